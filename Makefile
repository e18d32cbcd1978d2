# The two commands of the README: `make demo` and `make test`.
# `make` (= `make build`) builds Release into build/ with the CLI at build/bin/lightsim.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
# Seconds each libFuzzer target runs in `make fuzz` and `make test`.
FUZZ_SECONDS ?= 60
# Modules whose unit tests run under ThreadSanitizer: the thread pool and parallel loops (core)
# and the threaded KV generation and evaluation (kv). Add a module here when it gains threads.
TSAN_MODULES ?= core kv
JOBS       ?= $(shell nproc)
OUT        ?= out
CMAKE_GEN  := -G Ninja

.PHONY: all build demo test setup asan test-asan tsan test-tsan fuzz-build fuzz bench docs \
        format clean

all: build

setup:
	@scripts/setup

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/lightsim reproduce --out $(OUT)

# Unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then the whole suite.
$(ASAN_BUILD)/build.ninja: | setup
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DLIGHTSIM_SANITIZE=address,undefined -DLIGHTSIM_BUILD_BENCH=OFF

asan: setup $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target unit_tests

test-asan: asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --output-on-failure --no-tests=error -L unit -j $(JOBS)

# The unit tests of TSAN_MODULES under ThreadSanitizer (tests/tsan.supp: OpenMP false positives).
empty :=
space := $(empty) $(empty)
$(TSAN_BUILD)/build.ninja: | setup
	cmake -S . -B $(TSAN_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DLIGHTSIM_SANITIZE=thread -DLIGHTSIM_BUILD_BENCH=OFF

tsan: setup $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(addprefix unit_,$(TSAN_MODULES))

test-tsan: tsan
	cd $(TSAN_BUILD) && \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" \
	  ctest --output-on-failure --no-tests=error -L unit -R '^($(subst $(space),|,$(TSAN_MODULES)))\.' \
	  -j $(JOBS)

# libFuzzer targets of fuzz/ (clang, ASan+UBSan), each run for FUZZ_SECONDS (docs/hardening.md).
$(FUZZ_BUILD)/build.ninja: | setup
	cmake -S . -B $(FUZZ_BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++ -DLIGHTSIM_FUZZ=ON

fuzz-build: setup $(FUZZ_BUILD)/build.ninja
	cmake -S . -B $(FUZZ_BUILD) -DLIGHTSIM_FUZZ_SECONDS=$(FUZZ_SECONDS) > /dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

fuzz: fuzz-build
	cd $(FUZZ_BUILD) && ctest --output-on-failure --no-tests=error -L fuzz -j $(JOBS)

# test-tsan and fuzz are separate targets for now: with them `make test` would exceed its
# 45-minute budget on 2 cores (docs/hardening.md). The fuzz corpora and regression inputs are
# replayed in every `make test` (ctest fuzz_replay.*, also under ASan+UBSan).
test: build test-asan
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

# Runs every bench_* program (bounded min time, median of 3) and rewrites the generated tables of
# docs/performance.md against bench/targets.json; the hand-written notes outside the markers stay.
bench: build
	python3 scripts/bench_report.py --build $(BUILD) --out docs/performance.md

docs: build
	$(BUILD)/bin/lightsim config reference -o docs/config-reference.md

format:
	git ls-files '*.h' '*.cpp' ':!third_party' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)

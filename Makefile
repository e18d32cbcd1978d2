# The two commands of the README: `make demo` and `make test`.
# `make` (= `make build`) builds Release into build/ with the CLI at build/bin/lightsim.
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
OUT        ?= out
CMAKE_GEN  := -G Ninja

.PHONY: all build demo test setup asan test-asan bench docs format clean

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

test: build test-asan
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)

bench: build
	@for b in $(BUILD)/bin/bench_*; do echo "== $$b"; $$b; done

docs: build
	$(BUILD)/bin/lightsim config reference -o docs/config-reference.md

format:
	git ls-files '*.h' '*.cpp' ':!third_party' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

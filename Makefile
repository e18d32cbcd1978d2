# The two commands of the README: `make demo` and `make test`.
# `make` (= `make build`) builds Release into build/ with the CLI at build/bin/lightsim.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
# Executions of each libFuzzer target in `make fuzz` (libFuzzer's -runs; empty: no count, the
# run ends after FUZZ_SECONDS): `make fuzz FUZZ_RUNS=10000000` is the issue-24 campaign.
FUZZ_RUNS ?=
# Seconds each libFuzzer target runs in `make fuzz` and `make test` (a smoke run over the seeds
# and kept inputs; `make fuzz FUZZ_SECONDS=600` explores for longer). With FUZZ_RUNS the
# default is 0, no time cap (the count ends the run); both given, whichever comes first.
# 15 s since 2 Dec 2026: CI's `make test` took 45.9 min with 13 targets at 30 s
# (docs/hardening.md "Test time").
ifeq ($(strip $(FUZZ_RUNS)),)
FUZZ_SECONDS ?= 15
else
FUZZ_SECONDS ?= 0
endif
# libFuzzer's -seed for those runs: 1 repeats the same mutations on every clean clone (the
# gate of `make test`); `make fuzz FUZZ_SEED=0` draws a new seed each run (exploration).
FUZZ_SEED ?= 1
# Modules whose unit tests run under ThreadSanitizer in `make test`: the thread pool and parallel
# loops (core) and the threaded KV generation, evaluation and FAISS/OpenMP calls (kv). The
# parallel studies and the sweep runner run their work on core's pool; their tests that results
# are identical at 1 and 2 threads run in Release, and `make test-tsan TSAN_MODULES="core kv
# studies sweep"` runs them under ThreadSanitizer too (it builds nearly every module: about 4 min
# of CI time, docs/hardening.md "Test time"). Add a module here when it gains threads of its own.
TSAN_MODULES ?= core kv
# Unit tests that judge a statistical quality over many large draws run in Release only: under
# a sanitizer they cost minutes (kv.KvFit.RecoversKnownKnobs: 9 s in Release, 91 s under ASan,
# 52 s under TSan) while the same code paths run there through the smaller tests of the same
# suite (kv.KvFit.IsDeterministicAcrossThreadCounts, ...UnreachableStatistics...). A ctest -E
# regex.
SANITIZER_SKIP ?= ^kv\.KvFit\.RecoversKnownKnobs$$
# LLVM's OpenMP race-detection tool: makes libomp's synchronization visible to ThreadSanitizer.
ARCHER     ?= /usr/lib/llvm-14/lib/libarcher.so
JOBS       ?= $(shell nproc)
OUT        ?= out
# Where `make install` puts the program, libraries, headers, CMake package and data folder.
PREFIX     ?= /usr/local
CMAKE_GEN  := -G Ninja

.PHONY: all build demo test install setup asan test-asan tsan test-tsan fuzz bench docs \
        golden format clean

all: build

setup:
	@scripts/setup

$(BUILD)/build.ninja: | setup
	cmake -S . -B $(BUILD) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/bin/lightsim reproduce --out $(OUT)

# docs/install.md: <PREFIX>/bin/lightsim finds its presets in <PREFIX>/share/lightsim (the
# prefix may be moved afterwards). The Python package: pip install --no-build-isolation .
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The sanitizer builds: clang with line tables (symbolized reports at a fraction of the compile
# time of -g), no benchmarks, no Python module. -O0, but SANITIZER_O1_MODULES at -O1: the
# modules whose numeric loops the unit tests spend their time in (CMakeLists.txt says why).
SANITIZER_O1_MODULES ?= core photonics kv prism
SANITIZER_LEVELS = "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O0 -gline-tables-only -DNDEBUG" \
  "-DLIGHTSIM_SANITIZER_O1_MODULES=$(subst $(space),;,$(SANITIZER_O1_MODULES))"
SANITIZER_CMAKE = $(CMAKE_GEN) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  $(SANITIZER_LEVELS) -DLIGHTSIM_BUILD_BENCH=OFF

# AddressSanitizer + UndefinedBehaviorSanitizer (clang): the unit tests and the libFuzzer targets
# of fuzz/ (docs/hardening.md), from one build. (A build-asan configured with GCC by an older
# Makefile cannot switch compilers: remove it once.)
$(ASAN_BUILD)/build.ninja: | setup
	cmake -S . -B $(ASAN_BUILD) $(SANITIZER_CMAKE) -DLIGHTSIM_SANITIZE=address,undefined

asan: setup $(ASAN_BUILD)/build.ninja
	cmake -S . -B $(ASAN_BUILD) $(SANITIZER_LEVELS) -DLIGHTSIM_FUZZ_SECONDS=$(FUZZ_SECONDS) \
	  -DLIGHTSIM_FUZZ_SEED=$(FUZZ_SEED) -DLIGHTSIM_FUZZ_RUNS=$(or $(strip $(FUZZ_RUNS)),-1) > /dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS) --target unit_tests fuzz_targets

test-asan: asan
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --output-on-failure --no-tests=error -L unit -E '$(SANITIZER_SKIP)' -j $(JOBS)

# Each libFuzzer target for FUZZ_SECONDS (default 15) or FUZZ_RUNS executions, two at a time;
# each prints its count (stat::number_of_executed_units). New inputs that reach new code are
# kept in $(ASAN_BUILD)/fuzz-corpus/<name>/.
fuzz: asan
	cd $(ASAN_BUILD) && ctest --output-on-failure --no-tests=error -L '^fuzz$$' -j $(JOBS)

# The unit tests of TSAN_MODULES under ThreadSanitizer (clang; tests/tsan.supp, and OpenMP
# checked through LLVM's Archer tool).
empty :=
space := $(empty) $(empty)
$(TSAN_BUILD)/build.ninja: | setup
	cmake -S . -B $(TSAN_BUILD) $(SANITIZER_CMAKE) -DLIGHTSIM_SANITIZE=thread

tsan: setup $(TSAN_BUILD)/build.ninja
	cmake -S . -B $(TSAN_BUILD) $(SANITIZER_LEVELS) > /dev/null
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(addprefix unit_,$(TSAN_MODULES))

test-tsan: tsan
	cd $(TSAN_BUILD) && \
	  TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ignore_noninstrumented_modules=1 \
	    suppressions=$(CURDIR)/tests/tsan.supp" \
	  OMP_TOOL_LIBRARIES=$(ARCHER) \
	  ctest --output-on-failure --no-tests=error -L unit -R '^($(subst $(space),|,$(TSAN_MODULES)))\.' \
	  -E '$(SANITIZER_SKIP)' \
	  -j $(JOBS)

# The whole suite, in four phases (docs/hardening.md): (1) Release (GCC): every ctest test;
# (2) the unit tests under ASan+UBSan (clang; the fuzz corpora and kept inputs are replayed
# there as fuzz_replay.*); (3) each libFuzzer target for FUZZ_SECONDS; (4) the unit tests of
# TSAN_MODULES under ThreadSanitizer. About 19 min from a clean clone on 2 cores without ccache
# (4 Dec 2026, unity batches and lld; docs/hardening.md "Measured").
test: build
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS)
	$(MAKE) --no-print-directory test-asan
	$(MAKE) --no-print-directory fuzz
	$(MAKE) --no-print-directory test-tsan

# Runs every bench_* program (bounded min time, median of 3) and rewrites the generated tables of
# docs/performance.md against bench/targets.json; the hand-written notes outside the markers stay.
bench: build
	python3 scripts/bench_report.py --build $(BUILD) --out docs/performance.md

docs: build
	$(BUILD)/bin/lightsim config reference -o docs/config-reference.md

# Rewrites tests/golden/data/ from the current build (every case of tests/golden/cases.json at
# --threads 2); review the diff before committing it (docs/golden.md says when a change is right).
golden: build
	LIGHTSIM_BIN=$(BUILD)/bin/lightsim python3 -B tests/golden/golden.py regenerate

format:
	git ls-files '*.h' '*.cpp' ':!third_party' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD)

// bench_photonics: Google Benchmark programs of lightsim::photonics (mvm_bench.cpp).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();

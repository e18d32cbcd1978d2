// bench_core: Google Benchmark programs of lightsim::core (rng_bench.cpp, parallel_bench.cpp).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();

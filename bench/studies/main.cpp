// Benchmarks of the studies module (docs/performance.md, "studies").
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();

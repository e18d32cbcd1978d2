// The machine's limits measured in the benchmark process itself, and each hot kernel's achieved
// fraction of them as benchmark counters (issue 25 part 4; docs/performance.md, "Roofline").
//
// Two probes, single thread, timed in the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// so a loaded machine's waiting does not count; the contention for caches and memory does):
//  - triad_bandwidth(W): STREAM's triad a[i] = b[i] + s c[i] (J. D. McCalpin, "Memory Bandwidth
//    and Machine Balance in Current High Performance Computers", IEEE TCCA Newsletter, 1995)
//    over three double arrays of W bytes in all, 24 bytes counted per element (two reads, one
//    write; the write-allocate read is not counted, as in STREAM), best of the repetitions
//    (STREAM's rule). A kernel is compared with the triad at its own working set, so at N = 1024
//    (128 KB of signatures: L2) the limit is the L2's bandwidth and at 65536 (8 MB) the L3's.
//  - fma_peak(): fused multiply-adds on 12 independent vector accumulators at the widest ISA the
//    CPU has (AVX-512, AVX2+FMA; else SSE2 multiply and add), 2 flops per lane and operation.
// The roofline (S. Williams, A. Waterman, D. Patterson, "Roofline", CACM 52(4), 2009): a kernel
// of F flops and B bytes per call can run at most min(peak, (F / B) x bandwidth), so its
// fraction of the limit is max(flops/s / peak, bytes/s / bandwidth) = max(flop_frac, bw_frac).
// Header-only, internal linkage: include it from one source file per benchmark program; each
// probe runs once per process and working-set size (about 50 ms).
#pragma once

#include <benchmark/benchmark.h>
#include <immintrin.h>
#include <time.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <vector>

#include "lightsim/core/aligned.h"

namespace lightsim::bench {

// CPU time of the calling thread, seconds.
static inline double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) static void triad_pass(
    double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
    std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// Best triad bandwidth (bytes per CPU second) over three arrays of `working_set` bytes in all.
static inline double triad_bandwidth(std::size_t working_set) {
  static std::map<std::size_t, double> measured;
  if (auto it = measured.find(working_set); it != measured.end()) return it->second;
  const std::size_t n = std::max<std::size_t>(working_set / 24, 512);
  // 64-byte aligned like the kernels' arrays: at glibc's 16-byte offset every AVX-512 access
  // straddles two cache lines, which cost the triad about 10 % at 128 KB and 17 % at 1 MB on
  // the Intel VM (docs/performance.md, "Kernels on the Intel VM").
  AlignedVector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double bytes = 24.0 * static_cast<double>(n);
  // Each trial at least ~2 ms of passes; best of 7 trials after one warm-up pass.
  const std::size_t passes = std::max<std::size_t>(1, static_cast<std::size_t>(2e7 / bytes));
  triad_pass(a.data(), b.data(), c.data(), 3.0, n);
  double best = 0.0;
  for (int trial = 0; trial < 7; ++trial) {
    const double t0 = thread_seconds();
    for (std::size_t p = 0; p < passes; ++p) {
      triad_pass(a.data(), b.data(), c.data(), 3.0, n);
      benchmark::ClobberMemory();
    }
    const double t = thread_seconds() - t0;
    if (t > 0) best = std::max(best, bytes * static_cast<double>(passes) / t);
  }
  benchmark::DoNotOptimize(a.data());
  return measured[working_set] = best;
}

__attribute__((target("avx512f"))) static double fma_loop_avx512(long iters) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(1.0f + 1e-3f * static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
  for (long k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, add);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  benchmark::DoNotOptimize(s);
  return 12.0 * 16.0 * 2.0 * static_cast<double>(iters);
}

__attribute__((target("avx2,fma"))) static double fma_loop_avx2(long iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(1.0f + 1e-3f * static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.999999f), add = _mm256_set1_ps(1e-7f);
  for (long k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, add);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  benchmark::DoNotOptimize(s);
  return 12.0 * 8.0 * 2.0 * static_cast<double>(iters);
}

static double fma_loop_sse2(long iters) {
  __m128 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm_set1_ps(1.0f + 1e-3f * static_cast<float>(i));
  const __m128 m = _mm_set1_ps(0.999999f), add = _mm_set1_ps(1e-7f);
  for (long k = 0; k < iters; ++k)
    for (int i = 0; i < 12; ++i) acc[i] = _mm_add_ps(_mm_mul_ps(acc[i], m), add);
  __m128 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm_add_ps(s, acc[i]);
  benchmark::DoNotOptimize(s);
  return 12.0 * 4.0 * 2.0 * static_cast<double>(iters);
}

// Peak single-precision flops per CPU second of one core (best of 7 trials of ~2 ms).
static inline double fma_peak() {
  static const double peak = [] {
    double (*loop)(long) = fma_loop_sse2;
    if (__builtin_cpu_supports("avx512f"))
      loop = fma_loop_avx512;
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      loop = fma_loop_avx2;
    loop(1000);
    double best = 0.0;
    for (int trial = 0; trial < 7; ++trial) {
      const double t0 = thread_seconds();
      const double flops = loop(200'000);
      const double t = thread_seconds() - t0;
      if (t > 0) best = std::max(best, flops / t);
    }
    return best;
  }();
  return peak;
}

// Times the benchmark's loop in thread CPU time: construct before `for (auto _ : state)`, call
// report() after it with the kernel's flops and bytes moved per iteration and its working set.
// Counters: GB/s and Gflop/s achieved, the probes' limits (triad_GB/s at that working set,
// peak_Gflop/s), bw_frac, flop_frac and roofline_frac = the larger of the two.
class RooflineTimer {
 public:
  RooflineTimer() : t0_(thread_seconds()) {}
  void report(benchmark::State& state, double flops, double bytes, std::size_t working_set) {
    const double t = thread_seconds() - t0_;
    const double iters = static_cast<double>(state.iterations());
    if (t <= 0 || iters <= 0) return;
    const double bw = triad_bandwidth(working_set), peak = fma_peak();
    const double gbs = bytes * iters / t, gfs = flops * iters / t;
    state.counters["GB/s"] = gbs * 1e-9;
    state.counters["Gflop/s"] = gfs * 1e-9;
    state.counters["triad_GB/s"] = bw * 1e-9;
    state.counters["peak_Gflop/s"] = peak * 1e-9;
    state.counters["bw_frac"] = bw > 0 ? gbs / bw : 0.0;
    state.counters["flop_frac"] = peak > 0 ? gfs / peak : 0.0;
    state.counters["roofline_frac"] =
        std::max(state.counters["bw_frac"].value, state.counters["flop_frac"].value);
  }

 private:
  double t0_;
};

}  // namespace lightsim::bench

// The MVM kernel's SIMD code paths (AVX-512, AVX2, baseline) give the same bits: every path the
// CPU supports is forced in turn and compared with the baseline x86-64 path, for the fixed-state
// query and the per-query drift query, with every impairment and noise term on.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "fit_device.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"

namespace lightsim::photonics {
namespace {

using detail::SimdLevel;

struct Outputs {
  std::vector<float> scores, currents;
};

DeviceSpec device(int d) {
  return testing::seed_tfln_fit_device(d);
}

// Scores and currents of three queries of each kind on the path `level`.
Outputs run(SimdLevel level, int d, int rows, double tau) {
  const DeviceSpec dev = device(d);
  ImpairmentSpec imp;  // crosstalk, DAC codes and errors, noise: on
  imp.calibration_residual = Length::si(2e-12);
  imp.drift_global_sigma = Length::si(5e-12);
  imp.drift_local_sigma = Length::si(10e-12);
  imp.correlation_rings = 4.0;
  imp.drift_time_constant = Time::si(tau);
  RandomStream ws(7, {static_cast<std::uint64_t>(d)});
  std::vector<float> w(static_cast<std::size_t>(rows) * d), x(static_cast<std::size_t>(d));
  for (auto& v : w) v = static_cast<float>(0.9 * (2.0 * ws.uniform() - 1.0));
  MvmKernel k(dev, imp, w);
  k.use_simd_level(level);
  k.set_state(3, 1);
  RandomStream noise(3, {2});
  Outputs out;
  std::vector<float> s(static_cast<std::size_t>(rows)), c(s.size());
  for (int q = 0; q < 6; ++q) {
    for (auto& v : x) v = static_cast<float>(ws.uniform());
    if (q % 2 == 0)
      k.score(x, s, noise, c);
    else
      k.score_with_drift(x, s, noise, c);
    out.scores.insert(out.scores.end(), s.begin(), s.end());
    out.currents.insert(out.currents.end(), c.begin(), c.end());
  }
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(MvmSimd, EveryCompiledPathGivesTheBaselineBits) {
  int compared = 0;
  for (int d : {32, 7})
    for (int rows : {64, 45})                 // 45: a partial last block of 32 rows
      for (double tau : {0.0, 1e-7, 1e-6}) {  // 1e-6: K = 10, held corrections between updates
        const Outputs ref = run(SimdLevel::baseline, d, rows, tau);
        for (SimdLevel level : {SimdLevel::avx2, SimdLevel::avx512}) {
          if (!detail::simd_level_supported(level)) continue;
          const Outputs got = run(level, d, rows, tau);
          EXPECT_TRUE(same_bits(ref.scores, got.scores))
              << "scores, level " << static_cast<int>(level) << " d " << d << " rows " << rows;
          EXPECT_TRUE(same_bits(ref.currents, got.currents))
              << "currents, level " << static_cast<int>(level) << " d " << d << " rows " << rows;
          ++compared;
        }
      }
  if (compared == 0) GTEST_SKIP() << "this CPU has only the baseline path";
  // The outputs are not trivially equal: the drift query differs from the fixed one.
  const Outputs ref = run(SimdLevel::baseline, 32, 64, 0.0);
  EXPECT_NE(std::memcmp(ref.scores.data(), ref.scores.data() + 64, 64 * sizeof(float)), 0);
}

TEST(MvmSimd, UnsupportedPathIsRefused) {
  MvmKernel k(device(8), ImpairmentSpec{}, std::vector<float>(8 * 8, 0.1f));
  for (SimdLevel level : {SimdLevel::baseline, SimdLevel::avx2, SimdLevel::avx512}) {
    if (detail::simd_level_supported(level))
      EXPECT_NO_THROW(k.use_simd_level(level));
    else
      EXPECT_ANY_THROW(k.use_simd_level(level));
  }
}

}  // namespace
}  // namespace lightsim::photonics

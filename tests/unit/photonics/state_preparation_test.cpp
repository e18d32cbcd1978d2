// The shortcuts of bank preparation give the same bits as the long way (programming with a
// precomputed target detuning, a kernel constructed directly in an impairment state), every
// SIMD path gives the same state, and the state's responses are the exact bus model's
// (docs/performance.md, "A new impairment state").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "fit_device.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/photonics/wdm.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {
namespace {

DeviceSpec prep_device(int d) {
  return testing::seed_tfln_fit_device(d);
}

template <class T>
bool prep_same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(StatePreparation, ProgrammingWithThePrecomputedTargetIsTheSame) {
  const DeviceSpec dev = prep_device(32);
  const WeightProgrammer programmer(dev);
  RandomStream rng(5, {1});
  // The DAC instance must have the device's DAC resolution (one code error per code).
  const DacInstance dac =
      DacInstance::sample(DacSpec{dev.dac.bits, 0.3, 0.2, 0.01, true, 0.001}, rng);
  for (double w : {-1.2, -0.9, -0.31, 0.0, 0.125, 0.77, 0.9, 1.5}) {
    const ProgrammedWeight a = programmer.program(w, dac, 0.5);
    const ProgrammedWeight b = programmer.program_to(w, programmer.target_detuning(w), dac, 0.5);
    EXPECT_EQ(a.target_detuning, b.target_detuning) << w;
    EXPECT_EQ(a.code, b.code) << w;
    EXPECT_EQ(a.detuning, b.detuning) << w;
    EXPECT_EQ(a.achieved, b.achieved) << w;
    EXPECT_EQ(a.out_of_range, b.out_of_range) << w;
  }
}

TEST(StatePreparation, ADacInstanceOfAnotherResolutionIsRefused) {
  const DeviceSpec dev = prep_device(32);
  const WeightProgrammer programmer(dev);
  RandomStream rng(5, {1});
  const DacInstance dac = DacInstance::sample(DacSpec{dev.dac.bits - 2}, rng);
  EXPECT_THROW((void)programmer.program(0.5, dac), InternalError);
}

TEST(StatePreparation, KernelBuiltInAStateEqualsConstructionThenSetState) {
  const DeviceSpec dev = prep_device(32);
  ImpairmentSpec imp;  // crosstalk, DAC codes and errors, noise: on
  imp.calibration_residual = Length::si(2e-12);
  imp.drift_global_sigma = Length::si(5e-12);
  imp.drift_local_sigma = Length::si(10e-12);
  imp.correlation_rings = 4.0;
  const int rows = 45;
  RandomStream ws(7, {3});
  std::vector<float> w(static_cast<std::size_t>(rows) * 32), x(32);
  // Quantized weights (as a bank holds them) and a few distinct raw ones.
  for (auto& v : w) v = static_cast<float>(std::round(15.0 * (2.0 * ws.uniform() - 1.0)) / 16.0);
  w[3] = 0.3141f;
  for (auto& v : x) v = static_cast<float>(ws.uniform());
  MvmKernel slow(dev, imp, w);
  slow.set_state(3, 9);
  MvmKernel fast(dev, imp, w, 3, 9);
  EXPECT_TRUE(prep_same_bits(slow.bank().detunings(), fast.bank().detunings()));
  EXPECT_TRUE(prep_same_bits(slow.bank().effective_weights(), fast.bank().effective_weights()));
  std::vector<float> s1(rows), s2(rows);
  RandomStream n1(3, {2}), n2(3, {2});
  slow.score(x, s1, n1);
  fast.score(x, s2, n2);
  EXPECT_TRUE(prep_same_bits(s1, s2));
}

ImpairmentSpec every_impairment() {
  ImpairmentSpec imp;  // crosstalk, DAC codes and errors, noise: on
  imp.fabrication_sigma = Length::si(20e-12);
  imp.calibration_residual = Length::si(2e-12);
  imp.drift_global_sigma = Length::si(5e-12);
  imp.drift_local_sigma = Length::si(10e-12);
  imp.correlation_rings = 4.0;
  return imp;
}

std::vector<float> bank_weights(int rows, int d) {
  RandomStream ws(7, {4});
  std::vector<float> w(static_cast<std::size_t>(rows) * d);
  for (auto& v : w) v = static_cast<float>(0.9 * (2.0 * ws.uniform() - 1.0));
  return w;
}

TEST(StatePreparation, EverySimdPathGivesTheSameState) {
  const DeviceSpec dev = prep_device(32);
  const auto w = bank_weights(70, 32);  // 3 blocks, the last one partial
  MvmKernel ref(dev, every_impairment(), w);
  ref.use_simd_level(detail::SimdLevel::baseline);
  ref.set_state(2, 5);
  for (auto level : {detail::SimdLevel::avx2, detail::SimdLevel::avx512}) {
    if (!detail::simd_level_supported(level)) continue;
    MvmKernel k(dev, every_impairment(), w);
    k.use_simd_level(level);
    k.set_state(2, 5);
    EXPECT_TRUE(prep_same_bits(ref.bank().effective_weights(), k.bank().effective_weights()))
        << static_cast<int>(level);
    EXPECT_EQ(ref.bank().row_weight_sums(), k.bank().row_weight_sums());
  }
}

// W_eff of every ring in an impaired state against the bus model evaluated ring by ring with
// Ring::at (libm's sine, two divisions per ring): the kernel's rearrangement (sum of angles,
// one denominator) changes only the last bits of the double, so the float W_eff is the float
// rounding of the exact value.
TEST(StatePreparation, StateWeightsAreTheExactBusModelToFloatRounding) {
  const int d = 32, rows = 40;
  const DeviceSpec dev = prep_device(d);
  const auto w = bank_weights(rows, d);
  MvmKernel k(dev, every_impairment(), w, 4, 1);
  const auto weff = k.bank().effective_weights();
  const Ring ring = Ring::from_spec(dev.ring);
  const auto lambdas = channel_wavelengths(dev.grid);
  const auto& det = k.bank().detunings();
  double worst = 0.0;
  for (int r = 0; r < rows; ++r)
    for (int j = 0; j < d; ++j) {
      double thru = 1.0, drop = 0.0;
      for (int i = 0; i < d; ++i) {
        const PortPowers p = ring.at(lambdas[j], lambdas[i] + det[r * d + i]);
        drop += thru * p.drop;
        thru *= p.through;
      }
      const double exact = thru - drop;
      const double got = weff[static_cast<std::size_t>(r) * d + j];
      // Half an ulp of the float result plus 1e-12 for the doubles' rearrangement.
      const float g = static_cast<float>(got);
      const double ulp = std::max(std::nextafter(g, 2.0f) - g, g - std::nextafter(g, -2.0f));
      EXPECT_LE(std::abs(got - exact), 0.5 * ulp + 1e-12) << r << " " << j;
      worst = std::max(worst, std::abs(got - exact));
    }
  EXPECT_GT(worst, 0.0);
}

TEST(StatePreparation, StaticErrorsHaveTheRootSumSquareSigma) {
  // One normal of sigma sqrt(fab^2 + cal^2) per ring: the spread of the detunings about the
  // programmed ones (drift and DAC errors off) over 64 x 32 rings.
  const int d = 32, rows = 64;
  const DeviceSpec dev = prep_device(d);
  ImpairmentSpec imp;
  imp.crosstalk = imp.dac_errors = imp.noise = false;
  imp.fabrication_sigma = Length::si(30e-12);
  imp.calibration_residual = Length::si(40e-12);
  const auto w = bank_weights(rows, d);
  MvmKernel ideal(dev, imp, w);
  const std::vector<double> programmed = ideal.bank().detunings();
  MvmKernel k(dev, imp, w, 9, 2);
  double sum2 = 0.0;
  for (std::size_t i = 0; i < programmed.size(); ++i) {
    const double e = k.bank().detunings()[i] - programmed[i];
    sum2 += e * e;
  }
  const double sigma = std::sqrt(sum2 / static_cast<double>(programmed.size()));
  EXPECT_NEAR(sigma, 50e-12, 50e-12 * 4.0 / std::sqrt(2.0 * programmed.size()));
}

// WeightProgrammer::round_code (set_state's DAC rounding without the libm call) against
// std::lround: halves both ways, the doubles next to them, signed zeros, the range where every
// double is an integer, the fallback range, and random codes.
TEST(StatePreparation, RoundCodeIsLround) {
  std::vector<double> xs{0.0,
                         -0.0,
                         0.49999999999999994,
                         -0.49999999999999994,
                         0x1p52,
                         0x1p52 + 1.0,
                         -0x1p53,
                         0x1p62,
                         -0x1p62,
                         0x1p62 - 1024.0,
                         4.5e18};
  for (int i = -40; i <= 40; ++i) {
    const double h = 0.5 * i;
    xs.insert(xs.end(), {h, std::nextafter(h, 1e9), std::nextafter(h, -1e9)});
  }
  RandomStream rng(9, {1});
  for (int i = 0; i < 2000; ++i) xs.push_back(70000.0 * (rng.uniform() - 0.25));
  for (double x : xs) EXPECT_EQ(WeightProgrammer::round_code(x), std::lround(x)) << x;
}

}  // namespace
}  // namespace lightsim::photonics

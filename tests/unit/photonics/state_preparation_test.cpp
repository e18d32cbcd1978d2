// The shortcuts of bank preparation give the same bits as the long way: the per-ring DAC gain
// without its code-error profile, programming with a precomputed target detuning, and a
// kernel constructed directly in an impairment state (docs/performance.md, "studies").
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "fit_device.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/device.h"
#include "lightsim/photonics/mvm.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {
namespace {

DeviceSpec device(int d) {
  return testing::seed_tfln_fit_device(d);
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

TEST(StatePreparation, SampleGainEqualsSampleAndLeavesTheStreamAtTheSamePlace) {
  for (int bits : {1, 4, 8, 16})
    for (bool calibrated : {false, true}) {
      const DacSpec spec{bits, 0.3, 0.2, 0.01, calibrated, 0.001};
      RandomStream a(11, {static_cast<std::uint64_t>(bits)}), b = a;
      a.next_u32();  // an odd start position: the uniforms align to even words
      b.next_u32();
      const DacInstance full = DacInstance::sample(spec, a);
      const DacInstance::Gain gain = DacInstance::sample_gain(spec, b);
      EXPECT_EQ(full.gain, gain.gain) << bits;
      EXPECT_EQ(full.calibrated_gain, gain.calibrated_gain) << bits;
      EXPECT_EQ(a.position(), b.position()) << bits << " " << calibrated;
      EXPECT_EQ(a.uniform(), b.uniform());  // the next draw agrees
    }
}

TEST(StatePreparation, ProgrammingWithThePrecomputedTargetIsTheSame) {
  const DeviceSpec dev = device(32);
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
  const DeviceSpec dev = device(32);
  const WeightProgrammer programmer(dev);
  RandomStream rng(5, {1});
  const DacInstance dac = DacInstance::sample(DacSpec{dev.dac.bits - 2}, rng);
  EXPECT_THROW((void)programmer.program(0.5, dac), InternalError);
}

TEST(StatePreparation, KernelBuiltInAStateEqualsConstructionThenSetState) {
  const DeviceSpec dev = device(32);
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
  EXPECT_TRUE(same_bits(slow.bank().detunings(), fast.bank().detunings()));
  EXPECT_TRUE(same_bits(slow.bank().effective_weights(), fast.bank().effective_weights()));
  std::vector<float> s1(rows), s2(rows);
  RandomStream n1(3, {2}), n2(3, {2});
  slow.score(x, s1, n1);
  fast.score(x, s2, n2);
  EXPECT_TRUE(same_bits(s1, s2));
}

}  // namespace
}  // namespace lightsim::photonics

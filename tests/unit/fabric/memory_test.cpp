// Memory reads (fabric/memory.h): the closed form of the seed's HBM check, linearity, and a
// GPU without its HBM read energy refused.
#include "lightsim/fabric/memory.h"

#include <gtest/gtest.h>

#include "lightsim/core/error.h"

namespace lightsim::fabric {
namespace {

TEST(MemoryRead, ClosedFormOfTheSeedsCheck) {
  // 1024 blocks x 2 (min, max) x 128 dims x 2 B x 31 pJ/B (SPEC 1.6).
  const double bytes = 1024.0 * 2 * 128 * 2;
  const MemoryRead m =
      memory_read(bytes, EnergyPerByte::si(31e-12), Bandwidth::si(3.35e12), Time::si(2e-6));
  EXPECT_NEAR(m.energy, bytes * 31e-12, 1e-18);
  EXPECT_NEAR(m.energy, 16.25e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(m.latency, 2e-6 + bytes / 3.35e12);
  EXPECT_DOUBLE_EQ(m.bytes, bytes);
}

TEST(MemoryRead, LinearInBytes) {
  const auto read = [](double bytes) {
    return memory_read(bytes, EnergyPerByte::si(31e-12), Bandwidth::si(1e12), Time::si(0));
  };
  const double e1 = read(1e6).energy;
  for (double f : {2.0, 4.0, 8.0}) EXPECT_NEAR(read(1e6 * f).energy / e1, f, 1e-12);
}

TEST(MemoryRead, HbmReadUsesTheGpusFiguresAndNeedsItsEnergy) {
  GpuSpec gpu;
  gpu.name = "test";
  EXPECT_THROW((void)hbm_read(gpu, 1e6, Time::si(0)), ConfigError);
  gpu.hbm_energy_per_byte = EnergyPerByte::si(4e-12);
  const MemoryRead m = hbm_read(gpu, 1e6, Time::si(1e-6));
  EXPECT_DOUBLE_EQ(m.energy, 1e6 * 4e-12);
  EXPECT_DOUBLE_EQ(m.latency, 1e-6 + 1e6 / gpu.hbm_bandwidth.si());
}

}  // namespace
}  // namespace lightsim::fabric

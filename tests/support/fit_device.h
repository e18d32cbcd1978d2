// Test helper: the seed_tfln_fit ring design (configs/devices/seed_tfln_fit.yaml: loaded Q 5e4,
// 20 dB extinction, channels at 0.2 nm, +-15 V Pockels tuning, 15 kOhm TIA) with `channels`
// wavelengths, built in code so unit tests need no config files. The photonics benchmark
// (bench/photonics/mvm_bench.cpp) uses the same design.
#pragma once

#include "lightsim/photonics/device.h"

namespace lightsim::testing {

inline photonics::DeviceSpec seed_tfln_fit_device(int channels) {
  photonics::DeviceSpec dev;
  dev.ring.q_loaded = 5e4;
  dev.ring.extinction_ratio = Decibel::si(20.0);
  dev.grid.channels = channels;
  dev.grid.spacing = Length::si(0.2e-9);
  dev.tuning.max_voltage = Voltage::si(15.0);
  dev.tia.gain = Resistance::si(15e3);
  return dev;
}

}  // namespace lightsim::testing

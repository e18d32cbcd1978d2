// A photonic weight-bank device: one spec composed of sub-specs (ring, WDM grid, tuning,
// bank size, design requirements). Presets live in configs/devices/ (`preset: tfln`).
// Later parts (laser, modulator, detector, converters, impairments) add sub-specs here.
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/photonics/detection.h"
#include "lightsim/photonics/ring.h"
#include "lightsim/photonics/tuning.h"
#include "lightsim/photonics/wdm.h"
#include "lightsim/photonics/weights.h"

namespace lightsim::photonics {

// The size of the weight bank: rows of `grid.channels` rings each (one ring per channel).
struct BankSpec {
  static constexpr std::string_view kind = "bank";
  int rows = 256;
  static void describe(config::Schema<BankSpec>& s);
};

// What the design must achieve; the feasibility checks compare the physics with these.
struct RequirementsSpec {
  static constexpr std::string_view kind = "requirements";
  Decibel crosstalk_target = Decibel::si(-20.0);  // worst ring-to-channel leak vs D0
  double weight_range = 0.9;                      // weights in [-w, +w] must be reachable
  Length fabrication_trim = Length::si(0.0);      // +- resonance error the tuner must absorb
  Power thermal_budget = Power::si(2.0);          // static tuning + TEC power allowed
  double score_enob = 5.0;                        // effective bits the scores need
  static void describe(config::Schema<RequirementsSpec>& s);
};

struct DeviceSpec {
  static constexpr std::string_view kind = "device";
  static constexpr std::string_view preset_dir = "devices";

  std::string description;
  RingSpec ring;
  GridSpec grid;
  TuningSpec tuning;
  BankSpec bank;
  DacSpec dac;
  LaserSpec laser;
  ModulatorSpec modulator;
  PathSpec path;
  DetectorSpec detector;
  TiaSpec tia;
  AdcSpec adc;
  NoiseSpec noise;
  RequirementsSpec requirements;

  static void describe(config::Schema<DeviceSpec>& s);
};

// The ring of a device as a solved Ring, at its own resonance wavelength.
inline Ring ring_of(const DeviceSpec& device) {
  return Ring::from_spec(device.ring);
}

}  // namespace lightsim::photonics

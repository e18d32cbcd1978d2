// Spec descriptions of the device and its small sub-specs (see device.h).
#include "lightsim/photonics/device.h"

namespace lightsim::photonics {

void BankSpec::describe(config::Schema<BankSpec>& s) {
  s.help("Size of the weight bank: rows of one ring per channel.");
  s.field("rows", &BankSpec::rows, "number of ring rows N (one weighted sum each)")
      .range(1, 1 << 20);
}

void RequirementsSpec::describe(config::Schema<RequirementsSpec>& s) {
  s.help("What the device must achieve; `lightsim photonics feasibility` checks it.");
  s.field("crosstalk_target", &RequirementsSpec::crosstalk_target,
          "largest allowed leak of a channel into another channel's ring, relative to the "
          "ring's peak drop")
      .range("-100 dB", "-0.001 dB");
  s.field("weight_range", &RequirementsSpec::weight_range,
          "balanced weights in [-w, +w] must be reachable")
      .range(0.01, 1.0);
  s.field("fabrication_trim", &RequirementsSpec::fabrication_trim,
          "+- resonance error left by fabrication that the tuner must absorb (0 = trimmed "
          "otherwise)")
      .range("0 pm", "100 nm");
  s.field("thermal_budget", &RequirementsSpec::thermal_budget,
          "static power allowed for holding the tuning plus the TEC")
      .positive();
  s.field("score_enob", &RequirementsSpec::score_enob,
          "effective number of bits the balanced outputs must reach (link budget)")
      .range(0.0, 24.0);
}

void DeviceSpec::describe(config::Schema<DeviceSpec>& s) {
  s.help("A micro-ring weight bank: ring, WDM grid, tuning, bank size and requirements.");
  s.field("description", &DeviceSpec::description,
          "what this device is and where its "
          "numbers come from");
  s.field("ring", &DeviceSpec::ring, "the add-drop ring (one design for every ring)");
  s.field("grid", &DeviceSpec::grid, "the WDM channel grid");
  s.field("tuning", &DeviceSpec::tuning, "how rings are tuned and how temperature moves them");
  s.field("bank", &DeviceSpec::bank, "bank size");
  s.field("dac", &DeviceSpec::dac, "tuning DAC of each ring");
  s.field("laser", &DeviceSpec::laser, "laser comb");
  s.field("modulator", &DeviceSpec::modulator, "query modulator");
  s.field("path", &DeviceSpec::path, "optical path from the laser to a row");
  s.field("detector", &DeviceSpec::detector, "balanced photodiodes");
  s.field("tia", &DeviceSpec::tia, "transimpedance amplifier");
  s.field("adc", &DeviceSpec::adc, "ADC on the TIA output");
  s.field("noise", &DeviceSpec::noise, "which noise terms are drawn");
  s.field("requirements", &DeviceSpec::requirements, "design targets for feasibility");
  // The ring's own rule runs only when `ring` is written; a device that leaves it out (and has
  // no preset giving one) gets RingSpec's defaults, which have no couplers.
  s.rule([](const DeviceSpec& d) -> std::optional<std::string> {
    if (auto problem = ring_spec_problem(d.ring))
      return fmt::format(
          "ring: {} (a device needs a ring: give `ring` with its couplers, or a "
          "preset that has one)",
          *problem);
    return std::nullopt;
  });
}

}  // namespace lightsim::photonics

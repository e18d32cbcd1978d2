// Resonance tuning (see tuning.h).
#include "lightsim/photonics/tuning.h"

#include <cmath>
#include <cstdlib>

namespace lightsim::photonics {

void TuningSpec::describe(config::Schema<TuningSpec>& s) {
  s.help(
      "Resonance tuning: Pockels voltage (TFLN) or heaters (SOI), and temperature "
      "sensitivity.");
  s.enumeration(
      "mechanism", &TuningSpec::mechanism,
      {{"pockels", TuningMechanism::pockels}, {"thermo_optic", TuningMechanism::thermo_optic}},
      "how a ring is tuned: pockels (voltage, both directions) or thermo_optic "
      "(heater, red shift only)");
  s.field("pockels_efficiency", &TuningSpec::pockels_efficiency,
          "resonance shift per volt (measured TFLN rings: 1.8-3 pm/V)")
      .range("0 pm/V", "1 nm/V");
  s.field("max_voltage", &TuningSpec::max_voltage,
          "largest |tuning voltage| the driver gives (Pockels)")
      .range("0 V", "1 kV");
  s.field("static_power", &TuningSpec::static_power,
          "static power per ring for holding a Pockels bias (leakage)")
      .min("0 W");
  s.field("heater_thermal_resistance", &TuningSpec::heater_thermal_resistance,
          "ring temperature rise per watt of its heater")
      .min("0 K/W");
  s.field("max_heater_power", &TuningSpec::max_heater_power, "largest heater power per ring")
      .min("0 W");
  s.field("thermal_crosstalk", &TuningSpec::thermal_crosstalk,
          "fraction of a heater's temperature rise seen by the adjacent ring (decays as c^|i-j|)")
      .range(0.0, 0.99);
  s.field("thermal_shift", &TuningSpec::thermal_shift,
          "resonance shift per kelvin (silicon ~69 pm/K; TFLN about a quarter of that)")
      .range("0 pm/K", "1 nm/K");
  s.field("temperature_stability", &TuningSpec::temperature_stability,
          "+- residual temperature excursion after the TEC, absorbed by the tuner")
      .min("0 K");
  s.field("tec_power", &TuningSpec::tec_power, "temperature controller power").min("0 W");
}

double tuning_slope(const TuningSpec& spec) {
  if (spec.mechanism == TuningMechanism::pockels) return spec.pockels_efficiency.si();
  return spec.heater_thermal_resistance.si() * spec.thermal_shift.si();
}

double resonance_shift(const TuningSpec& spec, double control, double delta_t) {
  return tuning_slope(spec) * control + spec.thermal_shift.si() * delta_t;
}

double control_for_shift(const TuningSpec& spec, double shift) {
  return shift / tuning_slope(spec);
}

double tuning_span(const TuningSpec& spec) {
  if (spec.mechanism == TuningMechanism::pockels)
    return 2.0 * spec.pockels_efficiency.si() * spec.max_voltage.si();
  return tuning_slope(spec) * spec.max_heater_power.si();
}

std::vector<double> thermal_crosstalk_matrix(const TuningSpec& spec, int n) {
  std::vector<double> k(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      k[static_cast<std::size_t>(i * n + j)] = std::pow(spec.thermal_crosstalk, std::abs(i - j));
  return k;
}

std::string to_string(TuningMechanism m) {
  return m == TuningMechanism::pockels ? "pockels" : "thermo_optic";
}

}  // namespace lightsim::photonics

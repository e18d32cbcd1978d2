// Resonance tuning: Pockels (voltage) or thermo-optic (heater power), plus the temperature
// sensitivity every ring has. Shift d lambda = lambda d n_eff / n_g (docs/photonics.md,
// "Tuning"); the spec takes the measured efficiencies, which already contain that factor.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"

namespace lightsim::photonics {

enum class TuningMechanism { pockels, thermo_optic };

struct TuningSpec {
  static constexpr std::string_view kind = "tuning";

  TuningMechanism mechanism = TuningMechanism::pockels;
  // Pockels: shift = pockels_efficiency * V, V in [-max_voltage, +max_voltage].
  TuningEfficiency pockels_efficiency = TuningEfficiency::si(2.5e-12);  // 2.5 pm/V
  Voltage max_voltage = Voltage::si(10.0);
  Power static_power = Power::si(1e-6);  // per ring: bias driver leakage (Pockels)
  // Thermo-optic: ring temperature rise = heater_thermal_resistance * P, P in [0, max].
  ThermalResistance heater_thermal_resistance = ThermalResistance::si(3600.0);  // 3.6 K/mW
  Power max_heater_power = Power::si(20e-3);
  double thermal_crosstalk = 0.0;  // fraction of a heater's rise at the adjacent ring
  // Every platform: temperature sensitivity and the residual excursion after the TEC.
  ThermalShift thermal_shift = ThermalShift::si(17e-12);                // pm/K
  TemperatureDelta temperature_stability = TemperatureDelta::si(0.05);  // +- K
  Power tec_power = Power::si(1.0);

  static void describe(config::Schema<TuningSpec>& s);
};

// Resonance shift (metres) for a control value (volts for Pockels, watts of heater power for
// thermo-optic) and a temperature offset delta_t (kelvin) from the calibration point.
double resonance_shift(const TuningSpec& spec, double control, double delta_t);
// Control value giving `shift` at the calibration temperature (may lie outside the range).
double control_for_shift(const TuningSpec& spec, double shift);
// Full detuning span the tuner reaches (metres): 2 eff Vmax (Pockels, bidirectional) or
// R_th (d lambda/dT) Pmax (heater, red shift only).
double tuning_span(const TuningSpec& spec);
// Shift per unit of control: m/V or m/W.
double tuning_slope(const TuningSpec& spec);
// Thermal crosstalk among n rings in a row: K[i*n + j] = c^|i-j| (c = thermal_crosstalk), the
// temperature rise at ring i per unit rise that heater j causes at its own ring.
std::vector<double> thermal_crosstalk_matrix(const TuningSpec& spec, int n);

std::string to_string(TuningMechanism m);

}  // namespace lightsim::photonics

// Optical path and detection: laser comb, modulator, splitter tree, waveguide, balanced
// photodiodes, TIA, ADC, and the noise of the balanced output (reference "Detection and
// noise"; docs/photonics.md, "Detection and noise").
#pragma once

#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/rng.h"
#include "lightsim/core/units.h"

namespace lightsim::photonics {

using RinDensity = Quantity<dims::decibel / dims::frequency>;  // written "dB/Hz"

struct LaserSpec {
  static constexpr std::string_view kind = "laser";
  Power power_per_line = Power::si(1e-3);
  RinDensity rin = RinDensity::si(-150.0);  // relative intensity noise, dB/Hz
  double wall_plug_efficiency = 0.2;
  static void describe(config::Schema<LaserSpec>& s);
};

// Query encoding: input x in [0, 1] sets the line's transmission eps + (1 - eps) x below the
// insertion loss, eps = 10^(-ER/10).
struct ModulatorSpec {
  static constexpr std::string_view kind = "modulator";
  Decibel insertion_loss = Decibel::si(3.0);
  Decibel extinction_ratio = Decibel::si(20.0);
  static void describe(config::Schema<ModulatorSpec>& s);
};

// Loss from the laser to a ring row: coupling, splitter tree to N rows
// (10 log10 N + excess * ceil(log2 N)), and waveguide; then on the row, the excess insertion
// loss of the rings the light passes (through port, per ring on the path) and of the ring that
// drops it (drop port), and the coupling into the photodiode (link_budget.h: the critical path).
struct PathSpec {
  static constexpr std::string_view kind = "optical_path";
  Decibel coupling_loss = Decibel::si(1.5);
  Decibel splitter_excess = Decibel::si(0.2);              // per 1x2 stage
  LossPerLength waveguide_loss = LossPerLength::si(20.0);  // 0.2 dB/cm
  Length waveguide_length = Length::si(0.01);
  Decibel ring_through_loss = Decibel::si(0.0);       // excess per ring passed off resonance
  Decibel ring_drop_loss = Decibel::si(0.0);          // excess of the drop port of a ring
  Decibel detector_coupling_loss = Decibel::si(0.0);  // waveguide to photodiode
  static void describe(config::Schema<PathSpec>& s);
};

// balanced: through- and drop-port photodiodes in series, the TIA sees I_thru - I_drop, so a
// ring's weight is T - D in [-1, 1] (Tait et al., "Neuromorphic photonic networks using
// silicon photonic weight banks", Sci. Rep. 7, 7430 (2017)). single_ended: the drop-port
// photodiode alone, so a ring contributes D in [0, 1]; the rings keep the balanced programming
// and the controller recovers the signed score digitally as sum_j x_j - 2 sum_j D_j x_j (exact
// for a lossless ring, T + D = 1), which doubles the weight of every detector noise term and
// drops the through-port light. docs/photonics.md, "Single-ended detection".
enum class DetectionMode { balanced, single_ended };

struct DetectorSpec {
  static constexpr std::string_view kind = "detector";
  DetectionMode mode = DetectionMode::balanced;
  Responsivity responsivity = Responsivity::si(1.0);
  Current dark_current = Current::si(10e-9);
  PowerNoiseDensity nep = PowerNoiseDensity::si(1e-12);  // W/sqrt(Hz)
  static void describe(config::Schema<DetectorSpec>& s);
};

// One TIA per balanced pair; the noise bandwidth is `bandwidth`.
struct TiaSpec {
  static constexpr std::string_view kind = "tia";
  CurrentNoiseDensity input_noise = CurrentNoiseDensity::si(5e-12);  // A/sqrt(Hz)
  Frequency bandwidth = Frequency::si(1e9);
  Time integration_window = Time::si(10e-9);
  Resistance gain = Resistance::si(10e3);                      // transimpedance = feedback resistor
  TemperatureDelta temperature = TemperatureDelta::si(300.0);  // of the feedback resistor
  static void describe(config::Schema<TiaSpec>& s);
};

// Bipolar ADC on the TIA output: range +-full_scale/2, LSB = full_scale / 2^bits.
struct AdcSpec {
  static constexpr std::string_view kind = "adc";
  int bits = 8;
  Voltage full_scale = Voltage::si(1.0);
  static void describe(config::Schema<AdcSpec>& s);
};

// Which noise terms are drawn (each switchable).
struct NoiseSpec {
  static constexpr std::string_view kind = "noise";
  bool shot = true, thermal = true, tia = true, nep = true, rin = true, adc = true;
  static void describe(config::Schema<NoiseSpec>& s);
};

// Variances (A^2, input-referred current of the balanced output) of each term.
struct NoiseTerms {
  double shot = 0, thermal = 0, tia = 0, nep = 0, rin = 0, adc = 0;
  double total() const { return shot + thermal + tia + nep + rin + adc; }
};

// The detection chain in SI doubles, precomputed once; used per query in hot loops.
class DetectionModel {
 public:
  DetectionModel(const DetectorSpec& det, const TiaSpec& tia, const AdcSpec& adc,
                 const LaserSpec& laser, const NoiseSpec& noise);

  // Noise variances of the balanced output for photocurrents i_thru and i_drop (A) and
  // rin_weighted = sum_j (R P_j w_j)^2 (A^2), the per-line signal currents through their
  // weights (independent RIN per line does not cancel in balanced detection).
  //   shot 2 q (I_thru + I_drop + 2 I_dark) B; thermal 4 k T B / R_f; TIA i_n^2 B;
  //   NEP 2 (R NEP)^2 B; RIN RIN B rin_weighted; ADC (LSB / G)^2 / 12.
  NoiseTerms variances(double i_thru, double i_drop, double rin_weighted) const;
  // The balanced current plus Gaussian analog noise drawn from `stream` (one normal scaled by
  // the square root of the summed analog variances: the terms are independent Gaussians),
  // then ADC quantization if enabled.
  double sample(double i_thru, double i_drop, double rin_weighted, RandomStream& stream) const;
  // ADC: clip to +-full scale / 2 and round to the LSB, in input-referred current.
  double quantize(double current) const;

  double bandwidth() const { return bandwidth_; }
  double responsivity() const { return responsivity_; }
  double adc_lsb_current() const { return lsb_current_; }
  double adc_full_scale_current() const { return full_scale_current_; }

 private:
  NoiseSpec enabled_;
  double responsivity_, dark_, bandwidth_, tia2_, thermal2_, nep2_, rin_, lsb_current_,
      full_scale_current_;
};

inline constexpr double kElementaryCharge = 1.602176634e-19;  // C
inline constexpr double kBoltzmann = 1.380649e-23;            // J/K

}  // namespace lightsim::photonics

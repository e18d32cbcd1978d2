// Detection chain and noise (see detection.h).
#include "lightsim/photonics/detection.h"

#include <algorithm>
#include <cmath>

namespace lightsim::photonics {

void LaserSpec::describe(config::Schema<LaserSpec>& s) {
  s.help("Laser comb: one line per channel.");
  s.field("power_per_line", &LaserSpec::power_per_line, "optical power of each comb line")
      .positive();
  s.field("rin", &LaserSpec::rin, "relative intensity noise (dB/Hz), independent per line")
      .range("-200 dB/Hz", "-80 dB/Hz");
  s.field("wall_plug_efficiency", &LaserSpec::wall_plug_efficiency,
          "optical output per electrical input")
      .range(1e-3, 1.0);
}

void ModulatorSpec::describe(config::Schema<ModulatorSpec>& s) {
  s.help("Modulator putting the query on each line: x in [0, 1] -> eps + (1 - eps) x.");
  s.field("insertion_loss", &ModulatorSpec::insertion_loss, "loss at full transmission")
      .range("0 dB", "30 dB");
  s.field("extinction_ratio", &ModulatorSpec::extinction_ratio, "on / off power ratio")
      .range("1 dB", "60 dB");
}

void PathSpec::describe(config::Schema<PathSpec>& s) {
  s.help("Optical path from the laser to one ring row.");
  s.field("coupling_loss", &PathSpec::coupling_loss, "fiber-to-chip coupling")
      .range("0 dB", "30 dB");
  s.field("splitter_excess", &PathSpec::splitter_excess,
          "excess loss per 1x2 stage of the splitter tree (on top of 10 log10 N)")
      .range("0 dB", "3 dB");
  s.field("waveguide_loss", &PathSpec::waveguide_loss, "propagation loss").min("0 dB/m");
  s.field("waveguide_length", &PathSpec::waveguide_length, "waveguide length to a row")
      .range("0 m", "1 m");
  s.field("ring_through_loss", &PathSpec::ring_through_loss,
          "excess insertion loss of each ring the light passes on its through port (the "
          "critical path passes channels - 1 rings before the one that drops it)")
      .range("0 dB", "3 dB");
  s.field("ring_drop_loss", &PathSpec::ring_drop_loss,
          "excess insertion loss of the drop port of the ring that weights the channel (the "
          "through-port light passes it instead: the larger of the two is on the critical path)")
      .range("0 dB", "10 dB");
  s.field("detector_coupling_loss", &PathSpec::detector_coupling_loss,
          "coupling loss from the waveguide into each photodiode")
      .range("0 dB", "10 dB");
}

void DetectorSpec::describe(config::Schema<DetectorSpec>& s) {
  s.help("Photodiodes of the balanced pair (or the drop-port photodiode alone).");
  s.enumeration(
      "mode", &DetectorSpec::mode,
      {{"balanced", DetectionMode::balanced}, {"single_ended", DetectionMode::single_ended}},
      "balanced: I_thru - I_drop (weights T - D); single_ended: the drop port only, "
      "the signed score recovered digitally as sum x - 2 sum D x");
  s.field("responsivity", &DetectorSpec::responsivity, "photocurrent per optical watt").positive();
  s.field("dark_current", &DetectorSpec::dark_current, "dark current per photodiode").min("0 A");
  s.field("nep", &DetectorSpec::nep, "noise-equivalent power per photodiode").min("0 W/rtHz");
}

void TiaSpec::describe(config::Schema<TiaSpec>& s) {
  s.help("Transimpedance amplifier of each balanced pair.");
  s.field("input_noise", &TiaSpec::input_noise, "input-referred noise current density")
      .min("0 A/rtHz");
  s.field("bandwidth", &TiaSpec::bandwidth, "noise bandwidth B").positive();
  s.field("integration_window", &TiaSpec::integration_window, "integration time per query")
      .positive();
  s.field("gain", &TiaSpec::gain, "transimpedance (feedback resistance R_f)").positive();
  s.field("temperature", &TiaSpec::temperature, "temperature of R_f (thermal noise 4kT/R_f)")
      .range("1 K", "500 K");
}

void AdcSpec::describe(config::Schema<AdcSpec>& s) {
  s.help("ADC on the TIA output: bipolar, +-full_scale/2.");
  s.field("bits", &AdcSpec::bits, "resolution").range(1, 24);
  s.field("full_scale", &AdcSpec::full_scale, "peak-to-peak input range").positive();
}

void NoiseSpec::describe(config::Schema<NoiseSpec>& s) {
  s.help("Switches for each noise term of the detection chain.");
  s.field("shot", &NoiseSpec::shot, "photodiode shot noise 2q(I + I_dark)B");
  s.field("thermal", &NoiseSpec::thermal, "feedback-resistor thermal noise 4kTB/R_f");
  s.field("tia", &NoiseSpec::tia, "TIA input-referred noise i_n^2 B");
  s.field("nep", &NoiseSpec::nep, "detector NEP (R NEP)^2 B per photodiode");
  s.field("rin", &NoiseSpec::rin, "laser relative intensity noise RIN B (R P w)^2 per line");
  s.field("adc", &NoiseSpec::adc, "ADC quantization (LSB^2 / 12)");
}

DetectionModel::DetectionModel(const DetectorSpec& det, const TiaSpec& tia, const AdcSpec& adc,
                               const LaserSpec& laser, const NoiseSpec& noise)
    : enabled_(noise),
      responsivity_(det.responsivity.si()),
      dark_(det.dark_current.si()),
      bandwidth_(tia.bandwidth.si()),
      tia2_(tia.input_noise.si() * tia.input_noise.si()),
      thermal2_(4.0 * kBoltzmann * tia.temperature.si() / tia.gain.si()),
      nep2_(det.responsivity.si() * det.nep.si() * det.responsivity.si() * det.nep.si()),
      rin_(std::pow(10.0, laser.rin.si() / 10.0)),
      lsb_current_(adc.full_scale.si() / std::ldexp(1.0, adc.bits) / tia.gain.si()),
      full_scale_current_(adc.full_scale.si() / tia.gain.si()) {}

NoiseTerms DetectionModel::variances(double i_thru, double i_drop, double rin_weighted) const {
  const double b = bandwidth_;
  NoiseTerms t;
  if (enabled_.shot) t.shot = 2.0 * kElementaryCharge * (i_thru + i_drop + 2.0 * dark_) * b;
  if (enabled_.thermal) t.thermal = thermal2_ * b;
  if (enabled_.tia) t.tia = tia2_ * b;
  if (enabled_.nep) t.nep = 2.0 * nep2_ * b;
  if (enabled_.rin) t.rin = rin_ * b * rin_weighted;
  if (enabled_.adc) t.adc = lsb_current_ * lsb_current_ / 12.0;
  return t;
}

double DetectionModel::quantize(double current) const {
  const double half = 0.5 * full_scale_current_;
  const double clipped = std::clamp(current, -half, half - lsb_current_);
  return std::round(clipped / lsb_current_) * lsb_current_;
}

double DetectionModel::sample(double i_thru, double i_drop, double rin_weighted,
                              RandomStream& stream) const {
  NoiseTerms t = variances(i_thru, i_drop, rin_weighted);
  t.adc = 0.0;  // quantization is applied, not drawn
  const double analog = std::sqrt(t.total());
  double out = i_thru - i_drop + (analog > 0.0 ? analog * stream.normal() : 0.0);
  return enabled_.adc ? quantize(out) : out;
}

}  // namespace lightsim::photonics

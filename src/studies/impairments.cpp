// Specs and helpers of the `impairments` study (include/lightsim/studies/impairments.h).
#include "lightsim/studies/impairments.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/core/rng.h"
#include "lightsim/photonics/wdm.h"
#include "lightsim/prism/calibration.h"

namespace lightsim::studies {

void ImpairmentAxesSpec::describe(config::Schema<ImpairmentAxesSpec>& s) {
  s.help("Values of each impairment axis of the impairments study (seed table 3.1 ranges).");
  s.field("bits", &ImpairmentAxesSpec::bits, "weight bits (= weight DAC bits)").range(1, 16);
  s.field("drift", &ImpairmentAxesSpec::drift, "per-ring resonance drift sigma")
      .range("0 pm", "1000 pm");
  s.field("crosstalk", &ImpairmentAxesSpec::crosstalk,
          "nearest-neighbour WDM isolation; sets the channel spacing")
      .range("-60 dB", "-3 dB");
  s.field("nep", &ImpairmentAxesSpec::nep, "detector noise-equivalent power")
      .range("0 pW/rtHz", "1000 pW/rtHz");
  s.field("splitter_excess", &ImpairmentAxesSpec::splitter_excess,
          "excess loss per 1x2 splitter stage")
      .range("0 dB", "3 dB");
}

void ImpairmentPointSpec::describe(config::Schema<ImpairmentPointSpec>& s) {
  s.help("One value per impairment axis: the combined operating point.");
  s.field("bits", &ImpairmentPointSpec::bits, "weight bits (= weight DAC bits)").range(1, 16);
  s.field("drift", &ImpairmentPointSpec::drift, "per-ring drift sigma").range("0 pm", "1000 pm");
  s.field("crosstalk", &ImpairmentPointSpec::crosstalk, "nearest-neighbour WDM isolation")
      .range("-60 dB", "-3 dB");
  s.field("nep", &ImpairmentPointSpec::nep, "detector NEP").range("0 pW/rtHz", "1000 pW/rtHz");
  s.field("splitter_excess", &ImpairmentPointSpec::splitter_excess, "per 1x2 stage")
      .range("0 dB", "3 dB");
}

void ImpairmentsStudySpec::describe(config::Schema<ImpairmentsStudySpec>& s) {
  s.help(
      "The impairments study (SPEC 1.4, seed table 3.1): Prism recall versus each impairment "
      "alone and combined, with and without compensation (calibration, QAT, voting), against "
      "projected-space and full-attention truth.");
  s.field("workload", &ImpairmentsStudySpec::workload,
          "synthetic KV cache (kv_synthetic; e.g. preset: qwen2.5-7b)");
  s.field("accelerator", &ImpairmentsStudySpec::accelerator,
          "the Prism machine (preset from configs/accelerators); its impairments are replaced "
          "point by point");
  s.field("block_tokens", &ImpairmentsStudySpec::block_tokens, "tokens per KV block")
      .range(1, 65536);
  s.field("ks", &ImpairmentsStudySpec::ks, "blocks selected per KV head per step (Recall@k)")
      .range(1, 100000)
      .min_items(1);
  s.field("projection", &ImpairmentsStudySpec::projection,
          "kv_projection fitted once per head and shared by every point")
      .one_of({"pca", "pca_qk", "random", "first"});
  s.field("ideal_bits", &ImpairmentsStudySpec::ideal_bits,
          "weight and query bits of an ideal (unquantized) point")
      .range(8, 24);
  s.field("axes", &ImpairmentsStudySpec::axes, "values swept per axis");
  s.field("combined", &ImpairmentsStudySpec::combined, "the combined operating point");
  s.field("compensation", &ImpairmentsStudySpec::compensation,
          "compensations: none, calibration, qat, voting, or '+'-joined parts (e.g. "
          "calibration+qat+voting); each runs where every part acts (calibration: drift, qat: "
          "weight bits, voting: detection noise)")
      .min_items(1);
  s.field("combined_axes_compensation", &ImpairmentsStudySpec::combined_axes_compensation,
          "compensations also run along the combined scenario's swept axes (each must be in "
          "compensation); the combined nominal point runs every compensation");
  s.field("votes", &ImpairmentsStudySpec::votes,
          "Monte-Carlo votes M of the voting compensation (priced M x energy and latency)")
      .range(1, 4096);
  s.field("qat_train_steps", &ImpairmentsStudySpec::qat_train_steps,
          "decode steps generated after workload.steps to train QAT on (never evaluated)")
      .range(1, 1 << 16);
  s.field("qat", &ImpairmentsStudySpec::qat,
          "QAT settings; the weight bits and score noise come from each point");
  s.field("tolerance", &ImpairmentsStudySpec::tolerance,
          "absolute recall difference within which a seed figure holds")
      .range(0.0, 1.0);
  s.field("negligible_drop", &ImpairmentsStudySpec::negligible_drop,
          "relative Recall@32 drop called negligible")
      .range(0.0, 1.0);
  s.rule([](const ImpairmentsStudySpec& x) -> std::optional<std::string> {
    for (std::size_t i = 0; i < x.compensation.size(); ++i)
      if (!parse_compensation(x.compensation[i]))
        return fmt::format(
            "compensation[{}]: '{}' is not none, calibration, qat, voting or a '+'-joined "
            "combination of distinct parts (e.g. calibration+qat+voting)",
            i, x.compensation[i]);
    for (std::size_t i = 0; i < x.combined_axes_compensation.size(); ++i) {
      const std::string& c = x.combined_axes_compensation[i];
      if (std::find(x.compensation.begin(), x.compensation.end(), c) == x.compensation.end())
        return fmt::format("combined_axes_compensation[{}]: '{}' is not listed in compensation", i,
                           c);
    }
    return std::nullopt;
  });
  s.rule([](const ImpairmentsStudySpec& x) -> std::optional<std::string> {
    for (std::int64_t k : x.ks)
      if (k == 32) return std::nullopt;
    return "ks must contain 32 (the seed's table reports Recall@32)";
  });
}

void ImpairmentsSeedReference::describe(config::Schema<ImpairmentsSeedReference>& s) {
  s.help("The seed's table 3.1 (SPEC 1.4), printed beside the impairments study; never an input.");
  s.field("source", &ImpairmentsSeedReference::source, "where the figures come from");
  s.field("recall32_8bit", &ImpairmentsSeedReference::recall32_8bit, "Recall@32 at 8-bit weights")
      .range(0.0, 1.0);
  s.field("recall32_4bit", &ImpairmentsSeedReference::recall32_4bit, "Recall@32 at 4-bit weights")
      .range(0.0, 1.0);
  s.field("drift_low", &ImpairmentsSeedReference::drift_low, "low end of the drift range")
      .range("0 pm", "1000 pm");
  s.field("recall32_drift_low", &ImpairmentsSeedReference::recall32_drift_low,
          "Recall@32 at drift_low")
      .range(0.0, 1.0);
  s.field("drift_high", &ImpairmentsSeedReference::drift_high, "the drift of the second figure")
      .range("0 pm", "1000 pm");
  s.field("recall32_drift_high", &ImpairmentsSeedReference::recall32_drift_high,
          "Recall@32 at drift_high")
      .range(0.0, 1.0);
  s.field("crosstalk_relative_drop", &ImpairmentsSeedReference::crosstalk_relative_drop,
          "relative Recall@32 drop from MRR crosstalk over -15..-30 dB")
      .range(0.0, 1.0);
  s.field("nep_snr", &ImpairmentsSeedReference::nep_snr,
          "SNR above which the seed calls NEP negligible")
      .range("0 dB", "100 dB");
}

prism::AcceleratorSpec impaired_accelerator(const prism::AcceleratorSpec& base,
                                            const ImpairmentKnobs& knobs, int ideal_bits) {
  prism::AcceleratorSpec a = base;
  photonics::ImpairmentSpec& imp = a.impairments;
  imp = photonics::ImpairmentSpec{};
  imp.crosstalk = imp.quantization = imp.dac_errors = imp.heater_crosstalk = imp.noise = false;
  a.programming.weight_bits = ideal_bits;
  a.electronics.query_bits = ideal_bits;
  if (knobs.bits) {
    a.programming.weight_bits = *knobs.bits;
    a.device.dac.bits = *knobs.bits;
    a.electronics.query_bits = base.electronics.query_bits;
    imp.quantization = imp.dac_errors = true;
  }
  if (knobs.drift) imp.drift_local_sigma = *knobs.drift;
  if (knobs.calibration_residual) {
    imp.drift_local_sigma = Length::si(0.0);
    imp.calibration_residual = *knobs.calibration_residual;
  }
  if (knobs.crosstalk) {
    imp.crosstalk = true;
    imp.heater_crosstalk = base.impairments.heater_crosstalk;
    const double fwhm = photonics::ring_of(a.device).fwhm();
    LIGHTSIM_CHECK_AS(InputError, std::isfinite(fwhm),
                      "impairments study: the accelerator's ring has no resolvable FWHM");
    a.device.grid.spacing =
        Length::si(photonics::spacing_for_isolation(fwhm, knobs.crosstalk->si()));
  }
  if (knobs.nep || knobs.splitter_excess) {
    imp.noise = true;
    if (knobs.nep) a.device.detector.nep = *knobs.nep;
    if (knobs.splitter_excess) a.device.path.splitter_excess = *knobs.splitter_excess;
  }
  return a;
}

DriftCalibration calibrate_drift(const prism::AcceleratorSpec& accelerator, Length sigma, int rows,
                                 std::uint64_t seed) {
  photonics::DeviceSpec device = accelerator.device;
  device.bank.rows = rows;
  const std::size_t n =
      static_cast<std::size_t>(rows) * static_cast<std::size_t>(device.grid.channels);
  std::vector<double> offsets(n);
  RandomStream draw(seed, {0x64726966ull /* "drif" */, static_cast<std::uint64_t>(rows)});
  draw.fill_normal(std::span<double>(offsets), 0.0, sigma.si());
  const prism::CalibrationReport rep =
      prism::calibrate_bank(device, accelerator.calibration, offsets, seed);
  DriftCalibration out;
  out.rings = static_cast<int>(n);
  out.failed = rep.failed;
  double sum2 = 0;
  for (const prism::LockResult& r : rep.rings) sum2 += r.residual * r.residual;  // failed: raw
  out.residual_rms = n > 0 ? std::sqrt(sum2 / static_cast<double>(n)) : 0.0;
  return out;
}

}  // namespace lightsim::studies

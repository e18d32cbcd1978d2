// Claims of the `impairments` study beside the seed's table 3.1 (impairments_points.h).
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "lightsim/photonics/wdm.h"
#include "studies/impairments_points.h"

namespace lightsim::studies::impairments_detail {
namespace {

std::string pct(double x) {
  return fmt::format("{:.3f}", x);
}

// A Recall@32 claim judged within the spec's absolute tolerance; `conditions` when it holds.
void judged(ImpairmentsRun& run, std::string id, std::string text, double seed,
            std::optional<Sampled> ours, const std::string& conditions, const std::string& why) {
  report::Claim& c = run.judged(std::move(id), std::move(text), "", report::SeedValue::point(seed),
                                ours ? std::optional<double>(ours->value) : std::nullopt,
                                Comparison::absolute, run.spec.tolerance, conditions);
  set_ours(c, ours);
  c.explanation = why.empty() && !ours ? "the study's config has no such point" : why;
}

// The relative Recall@32 drop from point a to point b, with its interval.
std::optional<Sampled> drop(const std::optional<Sampled>& a, const std::optional<Sampled>& b) {
  if (!a || !b || a->value <= 0) return std::nullopt;
  return relative_drop(*a, *b);
}

}  // namespace

// The seed's table 3.1 beside ours. The seed measured recall against truth in the projected
// space (SPEC section 3), so its figures are compared with our projected-space recall.
void add_claims(ImpairmentsRun& run, const Finder& f) {
  const ImpairmentsStudySpec& spec = run.spec;
  const ImpairmentsSeedReference& seed = run.seed;
  const std::string cond =
      "truth in the projected space (the ideal noiseless d=" +
      std::to_string(spec.accelerator.device.grid.channels) +
      " signature's top-k), as the seed measured; every other impairment ideal";
  const auto ideal_full = f.recall32("ideal", "none", 0, "none", false);
  const std::string e2e =
      ideal_full ? " End to end (full-attention truth) the ideal machine reaches Recall@32 " +
                       pct(*ideal_full) + ": the d=32 projection itself loses the rest."
                 : "";
  {
    const auto ours = f.sampled32("alone", "bits", 8);
    judged(run, "recall32_8bit", fmt::format("Recall@32 {} with 8-bit weights", seed.recall32_8bit),
           seed.recall32_8bit, ours, cond,
           "8-bit weight DAC (with the accelerator's INL/DNL and gain error behind its "
           "calibration ROM), queries at the accelerator's query_bits, nothing else "
           "impaired." +
               e2e);
  }
  {
    const auto ours = f.sampled32("alone", "bits", 4);
    judged(run, "recall32_4bit", fmt::format("Recall@32 {} with 4-bit weights", seed.recall32_4bit),
           seed.recall32_4bit, ours, cond,
           "4-bit weight DAC alone. The quantized weight moves a signature by up to half "
           "an LSB of 2/15 of the weight range; blocks whose projected scores lie closer "
           "than that swap places.");
  }
  const double lo = seed.drift_low.si() * 1e12, hi = seed.drift_high.si() * 1e12;
  {
    const auto ours = f.sampled32("alone", "drift", lo);
    judged(run, "recall32_drift_low",
           fmt::format("Recall@32 {} at {} pm drift", seed.recall32_drift_low, lo),
           seed.recall32_drift_low, ours, cond,
           "Drift in pm goes through the ring's Lorentzian response: the weight moves by "
           "the response's slope times the drift, not by a Gaussian on the normalized "
           "weight as in the seed's simulator (SPEC section 3).");
  }
  {
    const auto ours = f.sampled32("alone", "drift", hi);
    const auto cal = f.recall32("alone", "drift", hi, "calibration");
    judged(run, "recall32_drift_high",
           fmt::format("Recall@32 {} at {} pm drift", seed.recall32_drift_high, hi),
           seed.recall32_drift_high, ours, cond,
           fmt::format("Uncalibrated per-ring drift of {} pm against a ring FWHM of {:.0f} pm.{}",
                       hi, photonics::ring_of(spec.accelerator.device).fwhm() * 1e12,
                       cal ? " With the closed-loop lock (residual replacing the drift) Recall@32 "
                             "is " +
                                 pct(*cal) + "."
                           : ""));
  }
  {
    // Crosstalk alone at the isolations whose comb fits one FSR; aliased grids are a WDM
    // planning failure, not crosstalk (table crosstalk_grid), and are left out here.
    std::optional<Sampled> ours;
    const auto ideal32 = f.sampled32("ideal", "none", 0);
    std::string aliased;
    for (Decibel x : spec.axes.crosstalk) {
      ImpairmentKnobs k;
      k.crosstalk = x;
      const prism::AcceleratorSpec a = impaired_accelerator(spec.accelerator, k, 16);
      const double span = a.device.grid.spacing.si() * a.device.grid.channels;
      const auto r32 = f.recall32("alone", "crosstalk", x.si());
      if (span > photonics::ring_of(a.device).fsr()) {
        aliased += fmt::format("{}{} dB (Recall@32 {})", aliased.empty() ? "" : ", ", x.si(),
                               r32 ? pct(*r32) : "-");
        continue;
      }
      const auto d = drop(ideal32, f.sampled32("alone", "crosstalk", x.si()));
      if (d && (!ours || d->value > ours->value)) ours = d;
    }
    judged(run, "crosstalk_relative_drop",
           fmt::format("MRR crosstalk -15 to -30 dB: ~{:.3g}% relative Recall@32 drop",
                       100 * seed.crosstalk_relative_drop),
           seed.crosstalk_relative_drop, ours, cond,
           "The largest relative drop over the crosstalk points whose comb fits one FSR. The "
           "isolation sets the channel spacing (Lorentzian tail); the kernel applies the full "
           "crosstalk matrix over every FSR order and the bus order." +
               (aliased.empty()
                    ? std::string()
                    : " Left out because the 32-channel comb is then wider than the ring's FSR and "
                      "channels alias (table crosstalk_grid): " +
                          aliased + "."));
  }
  {
    // NEP: its own effect is the drop from the lowest to the highest NEP (both with every
    // other detection-noise term on).
    std::optional<Sampled> nep_drop;
    if (!spec.axes.nep.empty())
      nep_drop = drop(f.sampled32("alone", "nep", spec.axes.nep.front().si() * 1e12),
                      f.sampled32("alone", "nep", spec.axes.nep.back().si() * 1e12));
    report::Claim& c = run.qualitative(
        "nep_drop", fmt::format("detector NEP 1-20 pW/rtHz: negligible while SNR > {:g} dB",
                                seed.nep_snr.si()));
    set_ours(c, nep_drop);
    c.seed_value = report::SeedValue::none();
    const bool negligible = nep_drop && nep_drop->value <= spec.negligible_drop;
    c.verdict = !nep_drop    ? report::Verdict::not_comparable
                : negligible ? report::Verdict::holds_under_conditions
                             : report::Verdict::does_not_hold;
    c.conditions = negligible ? "every detection-noise term on at the accelerator's link budget "
                                "(table noise_floor gives the SNR)"
                              : "";
    c.explanation = fmt::format(
        "Ours: relative Recall@32 drop from the lowest to the highest NEP of the axis "
        "(negligible means <= {}).",
        spec.negligible_drop);
  }
  {
    std::optional<Sampled> splitter_drop;
    if (!spec.axes.splitter_excess.empty())
      splitter_drop =
          drop(f.sampled32("alone", "splitter_excess", spec.axes.splitter_excess.front().si()),
               f.sampled32("alone", "splitter_excess", spec.axes.splitter_excess.back().si()));
    report::Claim& c =
        run.qualitative("splitter_drop", "splitter loss 0.1-0.3 dB/stage needs gain compensation");
    set_ours(c, splitter_drop);
    const bool matters = splitter_drop && splitter_drop->value > spec.negligible_drop;
    c.verdict = !splitter_drop ? report::Verdict::not_comparable
                : matters      ? report::Verdict::holds
                               : report::Verdict::does_not_hold;
    c.explanation = fmt::format(
        "Ours: relative Recall@32 drop from the lowest to the highest excess loss (every noise "
        "term on). The splitter tree to the bank's rows has ceil(log2 rows) stages; excess loss "
        "only lowers the signal against the noise floor, so it needs compensation only when the "
        "drop exceeds {} (table noise_floor gives the SNR).",
        spec.negligible_drop);
  }
}

// What each compensation other than calibration recovers at 4-bit weights and at the seed's
// two drift levels, beside the seed's (uncompensated) table figures. A compensation that acts
// on 4-bit weights alone (qat) is read there; one that needs detection noise (voting) at the
// combined nominal point. The drift levels are read on the combined scenario's drift axis
// (every other axis at the nominal point; computed when combined_axes_compensation lists the
// compensation): drift alone is static, with no quantizer or noise for QAT or voting.
void add_compensation_claims(ImpairmentsRun& run, const Finder& f) {
  const ImpairmentsStudySpec& spec = run.spec;
  const ImpairmentsSeedReference& seed = run.seed;
  struct Case {
    std::string suffix, scenario, axis;
    double value, seed_value;
    std::string where;
  };
  const double lo = seed.drift_low.si() * 1e12, hi = seed.drift_high.si() * 1e12;
  const std::string nominal = fmt::format(
      "the combined nominal point ({} bits, {} pm drift, {} dB crosstalk, {} pW/rtHz NEP, {} dB "
      "splitter excess)",
      spec.combined.bits, spec.combined.drift.si() * 1e12, spec.combined.crosstalk.si(),
      spec.combined.nep.si() * 1e12, spec.combined.splitter_excess.si());
  for (const std::string& comp : spec.compensation) {
    if (comp == "none" || comp == "calibration") continue;
    const Compensation c = parse_compensation(comp).value();
    ImpairmentKnobs four;
    four.bits = 4;
    std::vector<Case> cases;
    if (compensation_acts(c, four))
      cases.push_back({"4bit", "alone", "bits", 4, seed.recall32_4bit, "4-bit weights alone"});
    else
      cases.push_back({"4bit", "combined", "nominal", 0, seed.recall32_4bit, nominal});
    cases.push_back({"drift_low", "combined", "drift", lo, seed.recall32_drift_low,
                     fmt::format("{} pm drift on the combined point", lo)});
    cases.push_back({"drift_high", "combined", "drift", hi, seed.recall32_drift_high,
                     fmt::format("{} pm drift on the combined point", hi)});
    std::string id = comp;
    std::replace(id.begin(), id.end(), '+', '_');
    for (const Case& k : cases) {
      const kv::KMetrics* none = f.at(k.scenario, k.axis, k.value);
      const kv::KMetrics* with = f.at(k.scenario, k.axis, k.value, comp);
      std::string text = fmt::format(
          "Compensation {} ({}{}{}). ", comp, c.calibration ? "closed-loop drift lock; " : "",
          c.qat ? "projection trained through the point's quantizer and noise on decode steps "
                  "never evaluated; "
                : "",
          c.voting ? fmt::format("{} Monte-Carlo votes per query at {} x the energy and latency; ",
                                 spec.votes, spec.votes)
                   : "");
      if (!with)
        text += "Not computed: this point needs " + comp +
                " in combined_axes_compensation (the --full size runs it).";
      if (none && with)
        text += fmt::format(
            "Without -> with: Recall@32 projected {} -> {}, full attention {} -> {}, mass "
            "recall {} -> {}. The projected truth stays the ideal PCA signature's top-k, so a "
            "QAT projection that ranks closer to attention than PCA does is read best against "
            "full attention.",
            pct(none->recall_projected.mean), pct(with->recall_projected.mean),
            pct(none->recall.mean), pct(with->recall.mean), pct(none->mass_recall.mean),
            pct(with->mass_recall.mean));
      judged(run, fmt::format("{}_recall32_{}", id, k.suffix),
             fmt::format("with {}, Recall@32 at {} reaches the seed's uncompensated {}", comp,
                         k.where, k.seed_value),
             k.seed_value,
             with ? std::optional<Sampled>(sampled(with->recall_projected)) : std::nullopt,
             "truth in the projected space, as the seed measured", text);
    }
  }
}

}  // namespace lightsim::studies::impairments_detail

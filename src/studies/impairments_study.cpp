// The `impairments` study (include/lightsim/studies/impairments.h; docs/studies.md).
#include <cmath>
#include <string>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/photonics/link_budget.h"
#include "lightsim/photonics/wdm.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/studies/impairments.h"
#include "lightsim/studies/retrieval.h"
#include "support.h"

namespace lightsim::studies {
namespace {

struct Point {
  std::string scenario;  // ideal | alone | combined
  std::string axis;      // none | bits | drift | crosstalk | nep | splitter_excess | nominal
  double value = 0;      // in the axis's display unit
  std::string compensation = "none";
  ImpairmentKnobs knobs;
  DriftCalibration calibration;
};

const char* axis_unit(const std::string& axis) {
  if (axis == "bits") return "bit";
  if (axis == "drift") return "pm";
  if (axis == "nep") return "pW/rtHz";
  if (axis == "crosstalk" || axis == "splitter_excess") return "dB";
  return "";
}

ImpairmentKnobs nominal(const ImpairmentPointSpec& c) {
  return {static_cast<int>(c.bits), c.drift, c.crosstalk, c.nep, c.splitter_excess, {}};
}

// Every point of the study: ideal, the combined point, each axis alone and on the combined
// point; the drift axis and combined points once per compensation.
std::vector<Point> study_points(const ImpairmentsStudySpec& s) {
  std::vector<Point> pts{{"ideal", "none", 0, "none", {}, {}}};
  auto add = [&](const std::string& scenario, const std::string& axis, double value,
                 const ImpairmentKnobs& k) {
    for (const std::string& comp : s.compensation)
      if (comp == "none" || k.drift) pts.push_back({scenario, axis, value, comp, k, {}});
  };
  add("combined", "nominal", 0, nominal(s.combined));
  for (const std::string scenario : {"alone", "combined"}) {
    const ImpairmentKnobs base = scenario == "alone" ? ImpairmentKnobs{} : nominal(s.combined);
    for (std::int64_t b : s.axes.bits) {
      ImpairmentKnobs k = base;
      k.bits = static_cast<int>(b);
      add(scenario, "bits", static_cast<double>(b), k);
    }
    for (Length v : s.axes.drift) {
      ImpairmentKnobs k = base;
      k.drift = v;
      add(scenario, "drift", v.si() * 1e12, k);
    }
    for (Decibel v : s.axes.crosstalk) {
      ImpairmentKnobs k = base;
      k.crosstalk = v;
      add(scenario, "crosstalk", v.si(), k);
    }
    for (PowerNoiseDensity v : s.axes.nep) {
      ImpairmentKnobs k = base;
      k.nep = v;
      add(scenario, "nep", v.si() * 1e12, k);
    }
    for (Decibel v : s.axes.splitter_excess) {
      ImpairmentKnobs k = base;
      k.splitter_excess = v;
      add(scenario, "splitter_excess", v.si(), k);
    }
  }
  return pts;
}

// Recall@32 (projected truth) of the first point matching, or nullopt.
struct Finder {
  const std::vector<Point>& pts;
  const RetrievalReport& rep;
  std::size_t k32;
  std::optional<double> recall32(const std::string& scenario, const std::string& axis, double value,
                                 const std::string& comp = "none", bool projected = true) const {
    for (std::size_t i = 0; i < pts.size(); ++i)
      if (pts[i].scenario == scenario && pts[i].axis == axis && pts[i].compensation == comp &&
          std::abs(pts[i].value - value) < 1e-9) {
        const RetrievalMetrics& m = rep.setups[i + 1][k32];
        return projected ? m.recall_projected.mean : m.recall.mean;
      }
    return std::nullopt;
  }
};

std::string pct(double x) {
  return fmt::format("{:.3f}", x);
}

// The seed's table 3.1 beside ours. The seed measured recall against truth in the projected
// space (SPEC section 3), so its figures are compared with our projected-space recall.
void add_claims(report::StudyResult& r, const ImpairmentsStudySpec& spec,
                const ImpairmentsSeedReference& seed, const Finder& f) {
  const std::string cond =
      "truth in the projected space (the ideal noiseless d=" +
      std::to_string(spec.accelerator.device.grid.channels) +
      " signature's top-k), as the seed measured; every other impairment ideal";
  const auto ideal = f.recall32("ideal", "none", 0);
  const auto ideal_full = f.recall32("ideal", "none", 0, "none", false);
  const std::string e2e =
      ideal_full ? " End to end (full-attention truth) the ideal machine reaches Recall@32 " +
                       pct(*ideal_full) + ": the d=32 projection itself loses the rest."
                 : "";
  {
    const auto ours = f.recall32("alone", "bits", 8);
    report::Claim& c = r.add_claim("recall32_8bit", "Recall@32 0.98 with 8-bit weights", "");
    support::judge(c, seed.recall32_8bit, ours, spec.tolerance, cond,
                   "8-bit weight DAC (with the accelerator's INL/DNL and gain error behind its "
                   "calibration ROM), queries at the accelerator's query_bits, nothing else "
                   "impaired." +
                       e2e);
  }
  {
    const auto ours = f.recall32("alone", "bits", 4);
    report::Claim& c = r.add_claim("recall32_4bit", "Recall@32 0.85 with 4-bit weights", "");
    support::judge(c, seed.recall32_4bit, ours, spec.tolerance, cond,
                   "4-bit weight DAC alone. The quantized weight moves a signature by up to half "
                   "an LSB of 2/15 of the weight range; blocks whose projected scores lie closer "
                   "than that swap places.");
  }
  const double lo = seed.drift_low.si() * 1e12, hi = seed.drift_high.si() * 1e12;
  {
    const auto ours = f.recall32("alone", "drift", lo);
    report::Claim& c =
        r.add_claim("recall32_drift_low", fmt::format("Recall@32 0.94 at {} pm drift", lo), "");
    support::judge(c, seed.recall32_drift_low, ours, spec.tolerance, cond,
                   "Drift in pm goes through the ring's Lorentzian response: the weight moves by "
                   "the response's slope times the drift, not by a Gaussian on the normalized "
                   "weight as in the seed's simulator (SPEC section 3).");
  }
  {
    const auto ours = f.recall32("alone", "drift", hi);
    const auto cal = f.recall32("alone", "drift", hi, "calibration");
    report::Claim& c =
        r.add_claim("recall32_drift_high", fmt::format("Recall@32 0.66 at {} pm drift", hi), "");
    support::judge(
        c, seed.recall32_drift_high, ours, spec.tolerance, cond,
        fmt::format("Uncalibrated per-ring drift of {} pm against a ring FWHM of {:.0f} pm.{}", hi,
                    photonics::ring_of(spec.accelerator.device).fwhm() * 1e12,
                    cal ? " With the closed-loop lock (residual replacing the drift) Recall@32 "
                          "is " +
                              pct(*cal) + "."
                        : ""));
  }
  {
    // Crosstalk alone at the isolations whose comb fits one FSR; aliased grids are a WDM
    // planning failure, not crosstalk (table crosstalk_grid), and are left out here.
    std::optional<double> ours;
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
      if (ideal && r32 && *ideal > 0)
        ours = std::max(ours.value_or(-1.0), (*ideal - *r32) / *ideal);
    }
    report::Claim& c = r.add_claim("crosstalk_relative_drop",
                                   "MRR crosstalk -15 to -30 dB: ~3% relative Recall@32 drop", "");
    support::judge(
        c, seed.crosstalk_relative_drop, ours, spec.tolerance, cond,
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
    std::optional<double> drop;
    if (!spec.axes.nep.empty()) {
      const auto a = f.recall32("alone", "nep", spec.axes.nep.front().si() * 1e12);
      const auto b = f.recall32("alone", "nep", spec.axes.nep.back().si() * 1e12);
      if (a && b && *a > 0) drop = (*a - *b) / *a;
    }
    report::Claim& c =
        r.add_claim("nep_drop", "detector NEP 1-20 pW/rtHz: negligible while SNR > 30 dB", "");
    c.ours = drop;
    c.seed_value = report::SeedValue::none();
    const bool negligible = drop && *drop <= spec.negligible_drop;
    c.verdict = !drop        ? report::Verdict::not_comparable
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
    std::optional<double> drop;
    if (!spec.axes.splitter_excess.empty()) {
      const auto a = f.recall32("alone", "splitter_excess", spec.axes.splitter_excess.front().si());
      const auto b = f.recall32("alone", "splitter_excess", spec.axes.splitter_excess.back().si());
      if (a && b && *a > 0) drop = (*a - *b) / *a;
    }
    report::Claim& c =
        r.add_claim("splitter_drop", "splitter loss 0.1-0.3 dB/stage needs gain compensation", "");
    c.ours = drop;
    const bool matters = drop && *drop > spec.negligible_drop;
    c.verdict = !drop     ? report::Verdict::not_comparable
                : matters ? report::Verdict::holds
                          : report::Verdict::does_not_hold;
    c.explanation = fmt::format(
        "Ours: relative Recall@32 drop from the lowest to the highest excess loss (every noise "
        "term on). The splitter tree to the bank's rows has ceil(log2 rows) stages; excess loss "
        "only lowers the signal against the noise floor, so it needs compensation only when the "
        "drop exceeds {} (table noise_floor gives the SNR).",
        spec.negligible_drop);
  }
}

// WDM grid of each crosstalk point and the noise floor of each noise point.
void add_physics_tables(report::StudyResult& r, const ImpairmentsStudySpec& spec) {
  Table& g = r.add_table("crosstalk_grid",
                         "WDM grid of each crosstalk point (spacing from the Lorentzian tail)",
                         {{"isolation_db", "dB"},
                          {"spacing_pm", "pm"},
                          {"comb_span_nm", "nm"},
                          {"fsr_nm", "nm"},
                          {"worst_neighbour_db", "dB"},
                          {"worst_aggregate_db", "dB"},
                          {"aliased", ""}});
  for (Decibel x : spec.axes.crosstalk) {
    ImpairmentKnobs k;
    k.crosstalk = x;
    const prism::AcceleratorSpec a = impaired_accelerator(spec.accelerator, k, 16);
    const photonics::Ring ring = photonics::ring_of(a.device);
    const photonics::CrosstalkSummary sum = photonics::summarize(
        photonics::crosstalk_matrix(ring, photonics::channel_wavelengths(a.device.grid)));
    const double span = a.device.grid.spacing.si() * a.device.grid.channels;
    g.add_row({x.si(), a.device.grid.spacing.si() * 1e12, span * 1e9, ring.fsr() * 1e9,
               sum.worst_db, sum.worst_aggregate_db, span > ring.fsr()});
  }
  Table& n = r.add_table("noise_floor", "Link-budget SNR of each noise point (every noise term on)",
                         {{"axis", ""}, {"value", ""}, {"snr_db", "dB"}, {"enob", "bit"}});
  auto row = [&](const std::string& axis, double value, std::optional<PowerNoiseDensity> nep,
                 std::optional<Decibel> splitter) {
    ImpairmentKnobs k;
    k.nep = nep;
    k.splitter_excess = splitter;
    const prism::AcceleratorSpec a = impaired_accelerator(spec.accelerator, k, 16);
    const photonics::LinkBudget b = photonics::link_budget(a.device);
    n.add_row({axis, value, b.snr_db, b.enob});
  };
  for (PowerNoiseDensity v : spec.axes.nep) row("nep", v.si() * 1e12, v, std::nullopt);
  for (Decibel v : spec.axes.splitter_excess) row("splitter_excess", v.si(), std::nullopt, v);
}

}  // namespace

report::StudyResult run_impairments_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<ImpairmentsStudySpec>(in.document, in.load);
  const auto seed = support::load_reference<ImpairmentsSeedReference>("impairments_seed", in.load);
  std::vector<Point> pts = study_points(spec);
  const auto d = static_cast<std::size_t>(spec.accelerator.device.grid.channels);

  ctx.log().info("impairments: generating the {}-token cache", spec.workload.tokens);
  const kv::KvCache cache = kv::generate_kv_cache(spec.workload, ctx);
  ctx.throw_if_cancelled("impairments");

  const ScorerCatalog catalog;
  std::vector<RetrievalSetup> setups{catalog.setup("signature_ideal", "signature", d)};
  for (std::size_t i = 0; i < pts.size(); ++i) {
    Point& p = pts[i];
    const int ideal_bits = static_cast<int>(spec.ideal_bits);
    if (p.compensation == "calibration") {
      const prism::AcceleratorSpec raw =
          impaired_accelerator(spec.accelerator, p.knobs, ideal_bits);
      p.calibration = calibrate_drift(raw, *p.knobs.drift, raw.device.bank.rows, ctx.seed() + i);
      p.knobs.calibration_residual = Length::si(p.calibration.residual_rms);
    }
    RetrievalSetup s = catalog.setup(
        fmt::format("{}:{}:{}:{}", p.scenario, p.axis, p.value, p.compensation), "prism", d);
    prism::attach_accelerator(s.options,
                              impaired_accelerator(spec.accelerator, p.knobs, ideal_bits));
    setups.push_back(std::move(s));
  }
  RetrievalOptions ro =
      support::retrieval_options(spec.ks, spec.block_tokens, spec.projection, d, catalog);
  ro.reference = 0;
  ctx.log().info("impairments: {} points on {} heads x {} steps", pts.size(),
                 cache.geometry().layers * cache.geometry().kv_heads, cache.geometry().steps);
  const RetrievalReport rep = evaluate_retrieval(cache, setups, ro, ctx);

  report::StudyResult r;
  r.study = "impairments";
  r.title = "Prism recall versus hardware impairments (seed table 3.1)";
  r.spec_section = "SPEC 1.4";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  Table& t = r.add_table(
      "points",
      "Recall per impairment point (projected truth = ideal signature top-k; full = attention)",
      {{"scenario", ""},
       {"axis", ""},
       {"value", ""},
       {"unit", ""},
       {"compensation", ""},
       {"residual_pm", "pm"},
       {"failed_rings", ""},
       {"k", ""},
       {"recall_projected", ""},
       {"recall_projected_ci", ""},
       {"recall_full", ""},
       {"recall_full_ci", ""},
       {"mass_recall", ""},
       {"needle_hit", ""},
       {"needle_hit_union", ""},
       {"fetched_fraction", ""}});
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (const RetrievalMetrics& m : rep.setups[i + 1])
      t.add_row({pts[i].scenario, pts[i].axis, pts[i].value, std::string(axis_unit(pts[i].axis)),
                 pts[i].compensation, pts[i].calibration.residual_rms * 1e12,
                 std::int64_t{pts[i].calibration.failed}, static_cast<std::int64_t>(m.k),
                 m.recall_projected.mean, m.recall_projected.ci95, m.recall.mean, m.recall.ci95,
                 m.mass_recall.mean, m.needle_hit.mean, m.needle_hit_union.mean,
                 m.fetched_fraction.mean});
  add_physics_tables(r, spec);
  const Finder finder{pts, rep, support::k_index(spec.ks, 32)};
  add_claims(r, spec, seed, finder);
  for (const char* axis : {"bits", "drift", "crosstalk", "nep", "splitter_excess"}) {
    const bool drift = std::string(axis) == "drift";
    r.add_chart(fmt::format("Recall@32 vs {} ({})", axis, axis_unit(axis)), "points",
                support::line_chart(fmt::format("datum.axis == '{}' && datum.k == 32{}", axis,
                                                drift ? " && datum.scenario == 'alone'" : ""),
                                    "value", fmt::format("{} ({})", axis, axis_unit(axis)),
                                    {"recall_projected", "recall_full"}, "Recall@32", "truth",
                                    drift ? "compensation" : "scenario"));
  }
  return r;
}

}  // namespace lightsim::studies

// The `impairments` study (include/lightsim/studies/impairments.h; docs/studies.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lightsim/core/error.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/photonics/link_budget.h"
#include "lightsim/photonics/wdm.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/prism/voting.h"
#include "lightsim/studies/impairments.h"
#include "lightsim/studies/runner.h"
#include "studies/compensation_common.h"
#include "studies/impairments_points.h"
#include "support.h"

namespace lightsim::studies {
namespace {

using impairments_detail::Finder;
using impairments_detail::ImpairmentsRun;
using impairments_detail::Point;

// The (weight bits, detection noise) state a QAT projection is trained for: the knobs that
// set the quantizer and the per-query noise (drift, crosstalk and calibration are static
// errors the training model of qat.h does not see).
ImpairmentKnobs qat_state_knobs(const ImpairmentKnobs& k) {
  ImpairmentKnobs s;
  s.bits = k.bits;
  s.nep = k.nep;
  s.splitter_excess = k.splitter_excess;
  return s;
}

std::string qat_state_key(const ImpairmentKnobs& k) {
  return fmt::format("{}:{}:{}", k.bits.value_or(0), k.nep ? k.nep->si() : -1.0,
                     k.splitter_excess ? k.splitter_excess->si() : -1.0);
}

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
// point, once per compensation that acts there (compensation_acts).
std::vector<Point> study_points(const ImpairmentsStudySpec& s) {
  std::vector<Point> pts{{"ideal", "none", 0, "none", {}, {}, 0, {}, {}}};
  std::size_t ordinal = 0;
  auto add = [&](const std::string& scenario, const std::string& axis, double value,
                 const ImpairmentKnobs& k) {
    ++ordinal;
    // The combined nominal point runs every compensation; the combined scenario's swept axes
    // those in combined_axes_compensation.
    const bool swept = scenario == "combined" && axis != "nominal";
    for (const std::string& comp : s.compensation) {
      const Compensation c = parse_compensation(comp).value();  // checked by the spec
      const bool listed =
          std::find(s.combined_axes_compensation.begin(), s.combined_axes_compensation.end(),
                    comp) != s.combined_axes_compensation.end();
      if (!compensation_acts(c, k) || (swept && comp != "none" && !listed)) continue;
      pts.push_back({scenario, axis, value, comp, c, k, ordinal, {}, {}});
    }
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

// WDM grid of each crosstalk point and the noise floor of each noise point.
void add_physics_tables(ImpairmentsRun& run) {
  const ImpairmentsStudySpec& spec = run.spec;
  run.table("crosstalk_grid", "WDM grid of each crosstalk point (spacing from the Lorentzian tail)",
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
    run.add_row("crosstalk_grid", {{"isolation_db", x.si()},
                                   {"spacing_pm", a.device.grid.spacing.si() * 1e12},
                                   {"comb_span_nm", span * 1e9},
                                   {"fsr_nm", ring.fsr() * 1e9},
                                   {"worst_neighbour_db", sum.worst_db},
                                   {"worst_aggregate_db", sum.worst_aggregate_db},
                                   {"aliased", span > ring.fsr()}});
  }
  run.table("noise_floor", "Link-budget SNR of each noise point (every noise term on)",
            {{"axis", ""}, {"value", ""}, {"snr_db", "dB"}, {"enob", "bit"}});
  auto row = [&](const std::string& axis, double value, std::optional<PowerNoiseDensity> nep,
                 std::optional<Decibel> splitter) {
    ImpairmentKnobs k;
    k.nep = nep;
    k.splitter_excess = splitter;
    const prism::AcceleratorSpec a = impaired_accelerator(spec.accelerator, k, 16);
    const photonics::LinkBudget b = photonics::link_budget(a.device);
    run.add_row("noise_floor",
                {{"axis", axis}, {"value", value}, {"snr_db", b.snr_db}, {"enob", b.enob}});
  };
  for (PowerNoiseDensity v : spec.axes.nep) row("nep", v.si() * 1e12, v, std::nullopt);
  for (Decibel v : spec.axes.splitter_excess) row("splitter_excess", v.si(), std::nullopt, v);
}

// The cache the study generates: the workload, with QAT qat_train_steps more decode steps
// that only train (qat.h).
kv::KvGeneratorSpec generated_workload(const ImpairmentsStudySpec& spec,
                                       const std::vector<Point>& pts) {
  const bool any_qat =
      std::any_of(pts.begin(), pts.end(), [](const Point& p) { return p.parts.qat; });
  kv::KvGeneratorSpec workload = spec.workload;
  if (any_qat) workload.steps += spec.qat_train_steps;
  return workload;
}

void evaluate(ImpairmentsRun& run) {
  const ImpairmentsStudySpec& spec = run.spec;
  Context& ctx = run.ctx;
  std::vector<Point> pts = study_points(spec);
  const auto d = static_cast<std::size_t>(spec.accelerator.device.grid.channels);
  const int ideal_bits = static_cast<int>(spec.ideal_bits);
  kv::EvalOptions ro = support::retrieval_options(spec.ks, spec.block_tokens, spec.projection, d);
  ro.reference = 0;
  ro.shared_projection.reset();  // fitted here: the QAT setups get their own projections
  ro.progress_label = "impairments: layer x KV head";

  const kv::KvGeneratorSpec workload = generated_workload(spec, pts);
  const bool any_qat = workload.steps > spec.workload.steps;
  ctx.log().info("impairments: generating the {}-token cache", workload.tokens);
  kv::KvCache generated = kv::generate_kv_cache(workload, ctx, "impairments: generate");
  ctx.throw_if_cancelled("impairments");
  QatTrainingSplit split;
  if (any_qat)
    split = split_qat_training(std::move(generated), static_cast<std::size_t>(spec.workload.steps),
                               ro.blocks, ctx);
  else
    split.eval = std::move(generated);
  const kv::KvCache& cache = split.eval;
  const auto fitted = std::make_shared<const NpyArray>(
      kv::fit_head_projections(cache, kv::standard_projection(spec.projection), d, ctx));

  // One QAT training per (bits, noise) state, shared by every point in that state.
  std::map<std::string, std::shared_ptr<const NpyArray>> qat;
  std::map<std::string, std::pair<int, double>> qat_trained;  // key -> (bits, score noise)
  for (Point& p : pts) {
    if (!p.parts.qat) continue;
    const ImpairmentKnobs state = qat_state_knobs(p.knobs);
    p.qat_state = qat_state_key(state);
    if (qat.count(p.qat_state)) continue;
    ctx.throw_if_cancelled("impairments QAT");
    const prism::QatOptions o = qat_options(
        spec.qat, impaired_accelerator(spec.accelerator, state, ideal_bits), ctx.seed());
    ctx.log().info("impairments: QAT at {} bits, score noise {:.3g}", o.weight_bits, o.score_noise);
    qat.emplace(p.qat_state, std::make_shared<const NpyArray>(
                                 train_qat_projections(split.train, *fitted, o, ctx)));
    qat_trained.emplace(p.qat_state, std::make_pair(o.weight_bits, o.score_noise));
  }

  std::vector<kv::ScorerSetup> setups{
      support::signature_setup("signature_ideal", d, kv::learned_projection(fitted))};
  std::vector<prism::VotingCost> prices;
  for (Point& p : pts) {
    if (p.parts.calibration) {
      const prism::AcceleratorSpec raw =
          impaired_accelerator(spec.accelerator, p.knobs, ideal_bits);
      p.calibration =
          calibrate_drift(raw, *p.knobs.drift, raw.device.bank.rows, ctx.seed() + p.knob_point);
      p.knobs.calibration_residual = Length::si(p.calibration.residual_rms);
    }
    prism::AcceleratorSpec a = impaired_accelerator(spec.accelerator, p.knobs, ideal_bits);
    a.selection.votes = p.parts.voting ? static_cast<int>(spec.votes) : 1;
    prices.push_back(prism::voting_cost(prism::cost(a), a.selection.votes));
    setups.push_back(support::prism_setup(
        fmt::format("{}:{}:{}:{}", p.scenario, p.axis, p.value, p.compensation), a, d,
        kv::learned_projection(p.parts.qat ? qat.at(p.qat_state) : fitted)));
  }
  ctx.log().info("impairments: {} points on {} heads x {} steps", pts.size(),
                 cache.geometry().layers * cache.geometry().kv_heads, cache.geometry().steps);
  const kv::EvalReport rep = kv::evaluate(cache, setups, ro, ctx);

  run.table(
      "points",
      "Recall per impairment point (projected truth = ideal signature top-k; full = attention)",
      {{"scenario", ""},
       {"axis", ""},
       {"value", ""},
       {"unit", ""},
       {"compensation", ""},
       {"residual_pm", "pm"},
       {"failed_rings", ""},
       {"votes", ""},
       {"energy_nj", "nJ"},
       {"latency_ns", "ns"},
       {"k", ""},
       {"recall_projected", ""},
       {"recall_projected_ci", ""},
       {"recall_full", ""},
       {"recall_full_ci", ""},
       {"mass_recall", ""},
       {"mass_recall_ci", ""},
       {"needle_hit", ""},
       {"needle_hit_union", ""},
       {"fetched_fraction", ""}});
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (const kv::KMetrics& m : rep.scorers[i + 1].per_k)
      run.add_row("points", {{"scenario", pts[i].scenario},
                             {"axis", pts[i].axis},
                             {"value", pts[i].value},
                             {"unit", std::string(axis_unit(pts[i].axis))},
                             {"compensation", pts[i].compensation},
                             {"residual_pm", pts[i].calibration.residual_rms * 1e12},
                             {"failed_rings", std::int64_t{pts[i].calibration.failed}},
                             {"votes", std::int64_t{prices[i].votes}},
                             {"energy_nj", prices[i].dynamic_energy * 1e9},
                             {"latency_ns", prices[i].latency * 1e9},
                             {"k", static_cast<std::int64_t>(m.k)},
                             {"recall_projected", m.recall_projected.mean},
                             {"recall_projected_ci", m.recall_projected.ci95},
                             {"recall_full", m.recall.mean},
                             {"recall_full_ci", m.recall.ci95},
                             {"mass_recall", m.mass_recall.mean},
                             {"mass_recall_ci", m.mass_recall.ci95},
                             {"needle_hit", m.needle_hit.mean},
                             {"needle_hit_union", m.needle_hit_union.mean},
                             {"fetched_fraction", m.fetched_fraction.mean}});
  add_physics_tables(run);
  run.table("qat_states", "QAT trainings: one per (weight bits, detection noise) state, every head",
            {{"state", ""}, {"weight_bits", "bit"}, {"score_noise", ""}});
  for (const auto& [key, state] : qat_trained)
    run.add_row("qat_states", {{"state", key},
                               {"weight_bits", std::int64_t{state.first}},
                               {"score_noise", state.second}});
  const Finder finder{pts, rep, support::k_index(spec.ks, 32)};
  impairments_detail::add_claims(run, finder);
  impairments_detail::add_compensation_claims(run, finder);
  // One line per (scenario, compensation, truth): colour by compensation, dash by truth, one
  // panel per scenario (the drift chart shows the impairment alone).
  for (const char* axis : {"bits", "drift", "crosstalk", "nep", "splitter_excess"}) {
    const bool drift = std::string(axis) == "drift";
    Chart chart = support::line_chart(fmt::format("datum.axis == '{}' && datum.k == 32{}", axis,
                                                  drift ? " && datum.scenario == 'alone'" : ""),
                                      "value", fmt::format("{} ({})", axis, axis_unit(axis)),
                                      {"recall_projected", "recall_full"}, "Recall@32",
                                      "compensation", "truth");
    if (!drift) chart.column = Channel{.field = "scenario", .type = "nominal", .no_title = true};
    chart.title = fmt::format("Recall@32 vs {} ({})", axis, axis_unit(axis));
    chart.table = "points";
    // The seed's Recall@32 at its two drifts (claims recall32_drift_low and _high), as markers.
    if (drift)
      chart.seed_claims = {{.id = "recall32_drift_low", .at = run.seed.drift_low.si() * 1e12},
                           {.id = "recall32_drift_high", .at = run.seed.drift_high.si() * 1e12}};
    run.chart(chart);
  }
}

const Definition<ImpairmentsStudySpec, ImpairmentsSeedReference>& definition() {
  static const Definition<ImpairmentsStudySpec, ImpairmentsSeedReference> d{
      .name = "impairments",
      .help = "Prism recall vs weight bits, drift, crosstalk, NEP, splitter loss (seed table 3.1)",
      .title = "Prism recall versus hardware impairments (seed table 3.1)",
      .spec_section = "SPEC 1.4",
      .reference = "references/impairments_seed.yaml",
      .evaluate = evaluate,
      .require_memory = [](const ImpairmentsStudySpec& s, std::uint64_t budget, std::size_t threads,
                           const config::LoadOptions&) {
        // The split moves keys and values into the evaluated cache (no second copy).
        support::require_cache_memory(generated_workload(s, study_points(s)), budget, "workload",
                                      threads);
      }};
  return d;
}

}  // namespace

report::StudyResult run_impairments_study(const StudyInput& in, Context& ctx) {
  return run_definition(definition(), in, ctx);
}

void add_impairments_study(Registry& registry) {
  add_study(registry, definition());
}

}  // namespace lightsim::studies

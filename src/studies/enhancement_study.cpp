// The `enhancement` study: Monte-Carlo voting and QAT at 4-bit weights (compensation.h).
#include <array>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/kv/attention.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/selection_eval.h"
#include "lightsim/prism/voting.h"
#include "lightsim/studies/compensation.h"
#include "studies/compensation_common.h"

namespace lightsim::studies {

void EnhancementStudySpec::describe(config::Schema<EnhancementStudySpec>& s) {
  s.help("Monte-Carlo voting and QAT at low weight precision (SPEC 1.5; docs/studies.md).");
  s.field("description", &EnhancementStudySpec::description, "what this configuration is");
  s.field("accelerator", &EnhancementStudySpec::accelerator,
          "the Prism accelerator (`preset: NAME` reads configs/accelerators/NAME.yaml)");
  s.field("workload", &EnhancementStudySpec::workload,
          "synthetic KV cache (`preset: NAME` reads configs/kv/NAME.yaml); the first half of "
          "its decode steps trains QAT, every figure is on the second half");
  s.field("weight_bits", &EnhancementStudySpec::weight_bits,
          "weight precision of the study (overrides programming.weight_bits)")
      .range(2, 16);
  s.field("block_tokens", &EnhancementStudySpec::block_tokens, "tokens per KV block")
      .range(1, 1 << 20);
  s.field("sink_tokens", &EnhancementStudySpec::sink_tokens, "always-resident sink tokens")
      .range(0, 1 << 20);
  s.field("recent_tokens", &EnhancementStudySpec::recent_tokens,
          "always-resident recent window, tokens")
      .range(0, 1 << 24);
  s.field("top_k", &EnhancementStudySpec::top_k, "blocks selected per query (Recall@k)")
      .range(1, 1 << 20);
  s.field("votes", &EnhancementStudySpec::votes, "numbers of Monte-Carlo votes M to compare");
  s.field("stress_nep", &EnhancementStudySpec::stress_nep,
          "detector NEP of the `noise` condition (a stress level where per-vote noise "
          "dominates, not a device claim)")
      .positive();
  s.field("static_residual", &EnhancementStudySpec::static_residual,
          "calibration residual of the `static` condition (per ring, constant over votes)")
      .min("0 pm");
  s.field("static_drift", &EnhancementStudySpec::static_drift,
          "local drift of the `static` condition (per ring, constant over votes)")
      .min("0 pm");
  s.field("qat", &EnhancementStudySpec::qat, "quantization-aware training settings");
  s.rule([](const EnhancementStudySpec& v) -> std::optional<std::string> {
    if (v.votes.empty()) return std::string("votes must list at least one M");
    for (std::int64_t m : v.votes)
      if (m < 1 || m > 4096) return fmt::format("votes: {} is outside [1, 4096]", m);
    if (v.workload.steps < 2) return std::string("workload.steps must be >= 2 (train + test)");
    return std::nullopt;
  });
}

namespace {

struct Condition {
  std::string name, fixes;
  prism::AcceleratorSpec acc;
};

std::vector<Condition> conditions(const EnhancementStudySpec& s) {
  prism::AcceleratorSpec base =
      selection_accelerator(s.accelerator, static_cast<std::size_t>(s.top_k));
  base.programming.weight_bits = s.weight_bits;
  prism::AcceleratorSpec noise = base, stat = base, both = base;
  noise.device.detector.nep = s.stress_nep;
  for (prism::AcceleratorSpec* a : {&stat, &both}) {
    a->impairments.calibration_residual = s.static_residual;
    a->impairments.drift_local_sigma = s.static_drift;
  }
  both.device.detector.nep = s.stress_nep;
  return {{"as_configured", "the accelerator's own noise and impairments", base},
          {"noise", "per-vote detector noise (stress NEP): voting can fix", noise},
          {"static", "calibration residual + drift held over the votes: voting cannot fix", stat},
          {"noise_and_static", "both", both}};
}

struct Sums {
  double recall_hw = 0, recall_e2e = 0, mass = 0;
  void add(const prism::SelectionSample& hw, const prism::SelectionSample& e2e) {
    recall_hw += hw.recall;
    recall_e2e += e2e.recall;
    mass += e2e.mass_recall;
  }
};

std::size_t index_of(const std::vector<std::int64_t>& votes, std::int64_t m, std::size_t fallback) {
  for (std::size_t i = 0; i < votes.size(); ++i)
    if (votes[i] == m) return i;
  return fallback;
}

std::string verdict_note(double ours, double seed) {
  return fmt::format("ours {:.3f} vs seed {:.3f} ({:+.3f})", ours, seed, ours - seed);
}

void add_enhancement_claims(report::StudyResult& r, const EnhancementStudySpec& spec,
                            const CompensationSeedReference& seed,
                            const std::vector<std::vector<Sums>>& mean, const double proj_mass[3],
                            const std::vector<std::array<double, 2>>& losses) {
  std::size_t imax = 0;
  for (std::size_t i = 0; i < spec.votes.size(); ++i)
    if (spec.votes[i] > spec.votes[imax]) imax = i;
  const std::size_t i1 = index_of(spec.votes, 1, 0), iv = index_of(spec.votes, seed.votes, imax);
  const Sums& single = mean[0][i1];
  const Sums& voted = mean[0][iv];
  const auto within = [](double a, double b) { return std::abs(a - b) <= 0.05; };
  const std::string no_source = fmt::format(
      "The seed's {} -> {} has no traceable source (SPEC section 3): no script or table of the "
      "PRISM code produces it, so it is printed only for comparison. ",
      seed.recall32_single, seed.recall32_voted);
  const std::string truth =
      "Recall@k here is against the exact projected top-k (hardware-only truth, as the seed's "
      "recall); the end-to-end figures are in the voting table. ";
  {
    report::Claim& c = r.add_claim("single_evaluation_recall",
                                   fmt::format("{}-bit Recall@32 of one evaluation is {}",
                                               seed.weight_bits, seed.recall32_single),
                                   "");
    c.seed_value = report::SeedValue::point(seed.recall32_single);
    c.ours = single.recall_hw;
    c.verdict = within(single.recall_hw, seed.recall32_single) ? report::Verdict::holds
                                                               : report::Verdict::does_not_hold;
    c.explanation =
        no_source + truth +
        fmt::format(
            "At {} bits with the configured detection chain one evaluation "
            "reaches {:.3f}; the noise condition (NEP raised to the stress level) gives "
            "{:.3f}, the static condition (errors held over the votes) {:.3f}. {}",
            spec.weight_bits, single.recall_hw, mean[1][i1].recall_hw, mean[2][i1].recall_hw,
            verdict_note(single.recall_hw, seed.recall32_single));
  }
  {
    report::Claim& c = r.add_claim("voted_recall",
                                   fmt::format("{} Monte-Carlo votes raise {}-bit Recall@32 to {}",
                                               seed.votes, seed.weight_bits, seed.recall32_voted),
                                   "");
    c.seed_value = report::SeedValue::point(seed.recall32_voted);
    c.ours = voted.recall_hw;
    c.verdict = within(voted.recall_hw, seed.recall32_voted) ? report::Verdict::holds
                                                             : report::Verdict::does_not_hold;
    c.explanation =
        no_source + truth +
        fmt::format(
            "With M = {} votes: as configured {:.3f} -> {:.3f}; noise-limited {:.3f} -> "
            "{:.3f} (voting averages the per-vote noise away); static-limited {:.3f} -> "
            "{:.3f} (quantization, calibration residual, drift and crosstalk are the "
            "same in every vote, so the votes agree on the same errors). The votes cost "
            "M x the dynamic energy and latency (voting table). {}",
            spec.votes[iv], single.recall_hw, voted.recall_hw, mean[1][i1].recall_hw,
            mean[1][iv].recall_hw, mean[2][i1].recall_hw, mean[2][iv].recall_hw,
            verdict_note(voted.recall_hw, seed.recall32_voted));
  }
  {
    double first = 0, lastl = 0;
    for (const auto& l : losses) {
      first += l[0] / static_cast<double>(losses.size());
      lastl += l[1] / static_cast<double>(losses.size());
    }
    report::Claim& c = r.add_claim(
        "qat_mass_recall",
        "quantization-aware training (straight-through estimator) compensates low-precision "
        "weights",
        "");
    c.ours = proj_mass[2];
    const bool beats_pca = proj_mass[2] >= proj_mass[1];
    c.verdict =
        beats_pca ? report::Verdict::holds_under_conditions : report::Verdict::does_not_hold;
    if (beats_pca)
      c.conditions = fmt::format(
          "{}-bit weights, held-out decode queries of the synthetic "
          "workload, QAT initialised from PCA",
          spec.weight_bits);
    c.explanation = fmt::format(
        "Held-out mass recall@{}: QAT {:.4f}, PCA {:.4f}, random {:.4f} (training loss {:.4f} "
        "-> {:.4f}). The seed gives no figure for QAT alone.",
        spec.top_k, proj_mass[2], proj_mass[1], proj_mass[0], first, lastl);
  }
}

}  // namespace

report::StudyResult run_enhancement_study(const StudyInput& in, Context& ctx) {
  const auto spec = config::read_spec<EnhancementStudySpec>(in.document, in.load);
  const CompensationSeedReference seed = load_compensation_seed(in.load);
  const CompensationSetup setup(
      spec.workload, block_options(spec.block_tokens, spec.sink_tokens, spec.recent_tokens),
      spec.top_k, in.config_file, ctx);
  const kv::KvGeometry& g = setup.cache.geometry();
  const std::size_t k = setup.k;
  const std::vector<Condition> conds = conditions(spec);
  const std::size_t nm = spec.votes.size(), nc = conds.size(), heads = setup.heads();
  const HeldOutSplit split = split_steps(g.steps);
  const prism::QatOptions qat = qat_options(spec.qat, conds[0].acc, ctx.seed());

  // Per head: voting sums [condition][M], and the projection comparison [random, pca, qat].
  std::vector<std::vector<Sums>> vote_sums(heads, std::vector<Sums>(nc * nm));
  std::vector<std::vector<Sums>> proj_sums(heads, std::vector<Sums>(3));
  std::vector<std::array<double, 2>> losses(heads);
  parallel_for(ctx, heads, [&](std::size_t h) {
    ctx.throw_if_cancelled("enhancement study");
    const HeadSetup hs =
        head_setup(setup, h, split.test, conds[0].acc.device.grid.channels, ctx.seed());
    const HeadTruth& truth = hs.truth;
    const kv::ProjectionMatrix& pca = hs.pca;
    for (std::size_t c = 0; c < nc; ++c)
      for (std::size_t m = 0; m < nm; ++m) {
        prism::AcceleratorSpec a = conds[c].acc;
        a.selection.votes = static_cast<int>(spec.votes[m]);
        truth.accumulate(a, pca, hs.index, k, [&](const auto& hw, const auto& e2e) {
          vote_sums[h][c * nm + m].add(hw, e2e);
        });
      }
    const TrainedProjections p =
        train_projections(hs.head, setup.layout, split, pca, qat, ctx, hs.index);
    losses[h] = {p.loss_first, p.loss_last};
    const kv::ProjectionMatrix* ps[3] = {&p.random, &pca, &p.qat};
    for (std::size_t i = 0; i < 3; ++i)
      truth.accumulate(conds[0].acc, *ps[i], hs.index, k,
                       [&](const auto& hw, const auto& e2e) { proj_sums[h][i].add(hw, e2e); });
  });

  const double n = static_cast<double>(heads * split.test.size());
  report::StudyResult r;
  r.study = "enhancement";
  r.title = fmt::format("Monte-Carlo voting and QAT at {}-bit weights", spec.weight_bits);
  r.spec_section = "SPEC 1.5";
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  const prism::CostReport cost = prism::cost(conds[0].acc);
  Table& t = r.add_table("voting", "Recall@k versus Monte-Carlo votes (held-out decode queries)",
                         {{"condition", ""},
                          {"votes", ""},
                          {"recall_hw", ""},
                          {"recall_e2e", ""},
                          {"mass_recall", ""},
                          {"dynamic_energy_nj", "nJ"},
                          {"energy_with_tec_nj", "nJ"},
                          {"latency_ns", "ns"},
                          {"pipelined_latency_ns", "ns"}});
  std::vector<std::vector<Sums>> mean(nc, std::vector<Sums>(nm));
  for (std::size_t c = 0; c < nc; ++c)
    for (std::size_t m = 0; m < nm; ++m) {
      Sums& s = mean[c][m];
      for (std::size_t h = 0; h < heads; ++h) {
        s.recall_hw += vote_sums[h][c * nm + m].recall_hw / n;
        s.recall_e2e += vote_sums[h][c * nm + m].recall_e2e / n;
        s.mass += vote_sums[h][c * nm + m].mass / n;
      }
      const prism::VotingCost vc = prism::voting_cost(cost, static_cast<int>(spec.votes[m]));
      t.add_row({conds[c].name, spec.votes[m], s.recall_hw, s.recall_e2e, s.mass,
                 vc.dynamic_energy * 1e9, vc.energy_with_tec * 1e9, vc.latency * 1e9,
                 vc.pipelined_latency * 1e9});
    }
  Table& pt = r.add_table(
      "projections", "Projection at equal d on held-out queries (as_configured, one vote)",
      {{"projection", ""}, {"recall_e2e", ""}, {"mass_recall", ""}, {"recall_hw", ""}});
  const char* names[3] = {"random", "pca", "qat"};
  double proj_mass[3] = {0, 0, 0}, proj_r[3] = {0, 0, 0};
  for (std::size_t i = 0; i < 3; ++i) {
    double hw = 0;
    for (std::size_t h = 0; h < heads; ++h) {
      proj_r[i] += proj_sums[h][i].recall_e2e / n;
      proj_mass[i] += proj_sums[h][i].mass / n;
      hw += proj_sums[h][i].recall_hw / n;
    }
    pt.add_row({std::string(names[i]), proj_r[i], proj_mass[i], hw});
  }
  add_enhancement_claims(r, spec, seed, mean, proj_mass, losses);
  r.add_chart("Recall@k versus votes (hardware-only truth)", "voting",
              Json::parse(R"({"mark": {"type": "line", "point": true},
  "encoding": {"x": {"field": "votes", "type": "quantitative", "scale": {"type": "log"}},
               "y": {"field": "recall_hw", "type": "quantitative", "title": "Recall@k"},
               "color": {"field": "condition", "type": "nominal"}}})"));
  r.add_chart("Held-out mass recall by projection", "projections", Json::parse(R"({"mark": "bar",
  "encoding": {"x": {"field": "projection", "type": "nominal"},
               "y": {"field": "mass_recall", "type": "quantitative"}}})"));
  return r;
}

}  // namespace lightsim::studies

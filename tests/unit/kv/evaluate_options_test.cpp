// The retrieval engine's options (metrics.h): the projected-space truth of a reference setup,
// the shared projection, several layouts in one evaluation, the output error switch, thread
// independence, the one JSON schema, and scorers resolved by name with their options.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "kv_test_util.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/scorer_setup.h"
#include "lightsim/kv/scorer_specs.h"
#include "small_kv_cache.h"

namespace lightsim::kv {
namespace {

ProjectionSource own_pca(std::size_t dim) {
  ProjectionSource p;
  p.dim = dim;
  p.fit = standard_projection("pca");
  return p;
}

EvalOptions eval_options() {
  EvalOptions o;
  o.ks = {4, 8};
  o.blocks.block_tokens = 64;
  return o;
}

void expect_same(const KMetrics& a, const KMetrics& b) {
  EXPECT_EQ(a.recall.mean, b.recall.mean);
  EXPECT_EQ(a.recall.ci95, b.recall.ci95);
  EXPECT_EQ(a.mass_recall.mean, b.mass_recall.mean);
  EXPECT_EQ(a.needle_hit.mean, b.needle_hit.mean);
  EXPECT_EQ(a.needle_hit_union.mean, b.needle_hit_union.mean);
  EXPECT_EQ(a.union_fetched_fraction.mean, b.union_fetched_fraction.mean);
  EXPECT_EQ(a.traffic_reduction, b.traffic_reduction);
}

TEST(KvEvaluate, OverlapFractionCountsTruthFoundInSelection) {
  const std::vector<std::size_t> truth{3, 4}, sel{1, 2, 3}, all{4, 3}, none{7};
  EXPECT_DOUBLE_EQ(overlap_fraction(sel, truth), 0.5);
  EXPECT_DOUBLE_EQ(overlap_fraction(all, truth), 1.0);
  EXPECT_DOUBLE_EQ(overlap_fraction(none, truth), 0.0);
  EXPECT_THROW((void)overlap_fraction(sel, {}), InternalError);
}

// A projection fitted once per head and shared is the fit each scorer makes of its own.
TEST(KvEvaluate, SharedProjectionEqualsPerScorerFit) {
  Context ctx(ContextOptions{.seed = 5, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  EvalOptions own = eval_options(), shared = eval_options();
  shared.shared_projection = SharedProjection{standard_projection("pca"), 8};
  const EvalReport a = evaluate(cache, {{"sig", signature_scorer(own_pca(8))}}, own, ctx);
  // Without a fitter of its own, the scorer takes the evaluation's shared projection.
  const EvalReport b =
      evaluate(cache, {{"sig", signature_scorer(ProjectionSource{.dim = 8})}}, shared, ctx);
  for (std::size_t ki = 0; ki < 2; ++ki)
    expect_same(a.scorers[0].per_k[ki], b.scorers[0].per_k[ki]);
  // A shared projection of another d is refused, not silently used.
  EXPECT_THROW(
      (void)evaluate(cache, {{"sig", signature_scorer(ProjectionSource{.dim = 16})}}, shared, ctx),
      InputError);
}

// The reference setup is its own projected truth; without a reference nothing is reported.
TEST(KvEvaluate, ReferenceSetupIsTheProjectedTruth) {
  Context ctx(ContextOptions{.seed = 7, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  EvalOptions o = eval_options();
  o.reference = 0;
  const std::vector<ScorerSetup> setups{{"sig", signature_scorer(own_pca(8))},
                                        {"mean", mean_key_scorer({})}};
  const EvalReport r = evaluate(cache, setups, o, ctx);
  for (std::size_t ki = 0; ki < 2; ++ki) {
    EXPECT_DOUBLE_EQ(r.scorers[0].per_k[ki].recall_projected.mean, 1.0);
    EXPECT_LT(r.scorers[1].per_k[ki].recall_projected.mean, 1.0);
    EXPECT_EQ(r.scorers[1].per_k[ki].recall_projected.n, r.scorers[1].per_k[ki].recall.n);
  }
  o.reference.reset();
  EXPECT_EQ(evaluate(cache, setups, o, ctx).scorers[1].per_k[0].recall_projected.n, 0u);
  o.reference = 2;
  EXPECT_THROW((void)evaluate(cache, setups, o, ctx), InputError);
}

// Several layouts in one evaluation give what one evaluation per layout gives.
TEST(KvEvaluate, LayoutsTogetherEqualLayoutsAlone) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  const std::vector<ScorerSetup> setups{{"sig", signature_scorer(own_pca(8))},
                                        {"quest", quest_scorer({})}};
  const std::vector<BlockOptions> layouts{{32, 4, 512}, {128, 4, 256}};
  const EvalOptions o = eval_options();
  const std::vector<EvalReport> together = evaluate(cache, setups, o, layouts, ctx);
  ASSERT_EQ(together.size(), 2u);
  for (std::size_t l = 0; l < 2; ++l) {
    EvalOptions one = o;
    one.blocks = layouts[l];
    const EvalReport alone = evaluate(cache, setups, one, ctx);
    EXPECT_EQ(together[l].blocks, alone.blocks);
    EXPECT_EQ(together[l].block_tokens, layouts[l].block_tokens);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t ki = 0; ki < 2; ++ki) {
        expect_same(together[l].scorers[i].per_k[ki], alone.scorers[i].per_k[ki]);
        EXPECT_EQ(together[l].scorers[i].per_k[ki].output_rel_error.mean,
                  alone.scorers[i].per_k[ki].output_rel_error.mean);
      }
  }
}

// The output error is optional and changes nothing else.
TEST(KvEvaluate, OutputErrorSwitchChangesOnlyTheOutputError) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  EvalOptions with = eval_options(), without = eval_options();
  without.output_error = false;
  const std::vector<ScorerSetup> setups{{"mean", mean_key_scorer({})}};
  const EvalReport a = evaluate(cache, setups, with, ctx);
  const EvalReport b = evaluate(cache, setups, without, ctx);
  for (std::size_t ki = 0; ki < 2; ++ki) {
    expect_same(a.scorers[0].per_k[ki], b.scorers[0].per_k[ki]);
    EXPECT_EQ(a.scorers[0].per_k[ki].mass_coverage.mean, b.scorers[0].per_k[ki].mass_coverage.mean);
    EXPECT_GT(a.scorers[0].per_k[ki].output_rel_error.n, 0u);
    EXPECT_EQ(b.scorers[0].per_k[ki].output_rel_error.n, 0u);
  }
}

// Per needle and per KV head breakdowns average back to the overall needle hit rate.
TEST(KvEvaluate, NeedleBreakdownsAverageToTheOverallRate) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  const EvalReport r = evaluate(cache, {{"mean", mean_key_scorer({})}}, eval_options(), ctx);
  for (const KMetrics& m : r.scorers[0].per_k) {
    ASSERT_EQ(m.needle_hit_by_needle.size(), 2u);
    ASSERT_EQ(m.needle_hit_by_head.size(), 2u);
    ASSERT_EQ(m.needle_hit_union_by_needle.size(), 2u);
    EXPECT_NEAR((m.needle_hit_by_needle[0].mean + m.needle_hit_by_needle[1].mean) / 2,
                m.needle_hit.mean, 1e-12);
    EXPECT_NEAR((m.needle_hit_by_head[0].mean + m.needle_hit_by_head[1].mean) / 2,
                m.needle_hit.mean, 1e-12);
    EXPECT_NEAR((m.needle_hit_union_by_needle[0].mean + m.needle_hit_union_by_needle[1].mean) / 2,
                m.needle_hit_union.mean, 1e-12);
  }
}

TEST(KvEvaluate, IdenticalForAnyThreadCount) {
  std::vector<Json> reports;
  for (std::size_t threads : {1u, 2u}) {
    Context ctx(ContextOptions{.seed = 11, .threads = threads});
    const KvCache cache = test::small_kv_cache(ctx);
    EvalOptions o = eval_options();
    o.reference = 0;
    o.shared_projection = SharedProjection{standard_projection("pca"), 8};
    const std::vector<ScorerSetup> setups{{"sig", signature_scorer(ProjectionSource{.dim = 8})},
                                          {"quest", quest_scorer({})}};
    reports.push_back(to_json(evaluate(cache, setups, o, ctx)));
  }
  EXPECT_EQ(reports[0].dump(), reports[1].dump());
}

// One schema: every estimate is {mean, ci95, n}, lists of them for the breakdowns.
TEST(KvEvaluate, JsonGivesEveryEstimateAsMeanCiAndCount) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  const Json j = to_json(evaluate(cache, {{"quest", quest_scorer({})}}, eval_options(), ctx));
  EXPECT_EQ(j["block_tokens"], 64);
  EXPECT_EQ(j["source"], cache.source);
  const Json& m = j["results"]["quest"]["4"];
  for (const char* key :
       {"recall", "recall_projected", "mass_recall", "mass_coverage", "output_rel_error",
        "fetched_fraction", "needle_hit", "needle_hit_union", "union_fetched_fraction"}) {
    ASSERT_TRUE(m.contains(key)) << key;
    EXPECT_TRUE(m[key].contains("mean") && m[key].contains("ci95") && m[key].contains("n")) << key;
  }
  EXPECT_EQ(m["recall"]["n"], 1u * 2u * 3u);  // layers x KV heads x steps
  EXPECT_TRUE(m["recall_k_at_K"]["8"].contains("ci95"));
  EXPECT_EQ(m["needle_hit_by_needle"].size(), 2u);
  EXPECT_TRUE(m["needle_hit_by_head"][1].contains("mean"));
  EXPECT_NE(
      to_text(evaluate(cache, {{"quest", quest_scorer({})}}, eval_options(), ctx)).find("quest"),
      std::string::npos);
}

struct RegisteredFamilies {
  ScorerFamily scorers{"kv_scorer", ""};
  ProjectionFamily projections{"kv_projection", ""};
  RegisteredFamilies() {
    register_scorers(scorers);
    register_projections(projections);
  }
  std::vector<ScorerSetup> resolve(std::vector<std::string> labels,
                                   std::vector<ScorerOption> options = {}) const {
    return resolve_scorers(labels, options, scorers, {&projections, {}});
  }
};

// Scoring from first_step on is scoring a cache that holds only those decode queries: the
// skipped steps leave no trace (no sample, no traffic, no union), and a first step at or past
// the last is refused.
TEST(KvEvaluate, FirstStepScoresOnlyTheLaterDecodeSteps) {
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache full = test::small_kv_cache(ctx);
  const KvGeometry& g = full.geometry();
  ASSERT_GE(g.steps, 3u);
  const std::size_t first = 2;
  KvGeometry later_g = g;
  later_g.steps = g.steps - first;
  std::vector<float> queries;
  for (std::size_t l = 0; l < g.layers; ++l)
    for (std::size_t q = 0; q < g.q_heads; ++q) {
      const float* row = full.query_data().data() + ((l * g.q_heads + q) * g.steps) * g.head_dim;
      queries.insert(queries.end(), row + first * g.head_dim, row + g.steps * g.head_dim);
    }
  KvCache later(later_g, full.key_data(), full.value_data(), std::move(queries));
  later.layer_ids = full.layer_ids;
  later.rope_base = full.rope_base;
  later.needles = full.needles;
  const std::vector<ScorerSetup> setups{{"sig", signature_scorer(own_pca(8))},
                                        {"mean", mean_key_scorer({})}};
  EvalOptions o = eval_options();
  const EvalReport ref = evaluate(later, setups, o, ctx);
  o.first_step = first;
  const EvalReport r = evaluate(full, setups, o, ctx);
  EXPECT_EQ(r.steps, g.steps - first);
  for (std::size_t i = 0; i < setups.size(); ++i)
    for (std::size_t ki = 0; ki < o.ks.size(); ++ki) {
      expect_same(r.scorers[i].per_k[ki], ref.scorers[i].per_k[ki]);
      EXPECT_EQ(r.scorers[i].per_k[ki].recall.n, g.layers * g.kv_heads * (g.steps - first));
      EXPECT_EQ(r.scorers[i].per_k[ki].bytes_per_step, ref.scorers[i].per_k[ki].bytes_per_step);
    }
  o.first_step = g.steps;
  EXPECT_THROW((void)evaluate(full, setups, o, ctx), InputError);
}

TEST(KvResolveScorers, NamesProjectionsAndAll) {
  const RegisteredFamilies r;
  const auto setups = r.resolve({"exact", "signature:random"});
  ASSERT_EQ(setups.size(), 2u);
  EXPECT_EQ(setups[0].name, "exact");
  EXPECT_EQ(setups[1].name, "signature:random:d32");
  std::vector<std::string> all;
  for (const ScorerSetup& s : r.resolve({"all"})) all.push_back(s.name);
  EXPECT_EQ(all, (std::vector<std::string>{"exact", "mean_key", "quest", "rep_keys", "faiss_ivfpq",
                                           "signature:pca:d32", "signature:pca_qk:d32",
                                           "signature:random:d32", "signature:first:d32"}));
  EXPECT_THROW((void)r.resolve({"qest"}), ConfigError);
  EXPECT_THROW((void)r.resolve({"signature:pcx"}), ConfigError);
  EXPECT_THROW((void)r.resolve({"quest:pca"}), UsageError);
}

// An option goes to every selected scorer whose spec has the field, is read (and range
// checked) by that spec, and is an error when no selected scorer takes it.
TEST(KvResolveScorers, OptionsGoToTheScorersThatTakeThem) {
  const RegisteredFamilies r;
  const auto setups = r.resolve({"quest", "signature"}, {{"dim", "8", "--dim"}});
  EXPECT_EQ(setups[1].name, "signature:pca:d8");
  EXPECT_THROW((void)r.resolve({"quest"}, {{"dim", "8", "--dim"}}), UsageError);
  EXPECT_THROW((void)r.resolve({"faiss_ivfpq"}, {{"pq_nbits", "40", "--pq-nbits"}}), ConfigError);
  EXPECT_THROW((void)r.resolve({"rep_keys"}, {{"reps", "many", "--reps"}}), ConfigError);
}

// A scorer options file (kind scorer_<name>) selects its scorer and sets its fields.
TEST(KvResolveScorers, OptionsFileSelectsItsScorer) {
  const RegisteredFamilies r;
  const std::filesystem::path dir = std::filesystem::path(LIGHTSIM_TEST_TMPDIR) / "kv_resolve";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "sig.yaml";
  {
    std::ofstream out(file);
    out << "schema_version: 1\nkind: scorer_signature\nprojection: first\ndim: 4\n";
  }
  const auto setups = r.resolve({file.string()});
  ASSERT_EQ(setups.size(), 1u);
  EXPECT_EQ(setups[0].name, "signature:first:d4");
  {
    std::ofstream out(file);
    out << "schema_version: 1\nkind: scorer_signatur\n";
  }
  EXPECT_THROW((void)r.resolve({file.string()}), ConfigError);
}

}  // namespace
}  // namespace lightsim::kv

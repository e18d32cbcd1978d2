#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "kv_test_util.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/register.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {
namespace {

ProjectionSource projection(const std::string& name, std::size_t dim) {
  ProjectionSource p;
  p.dim = dim;
  p.fit = standard_projection(name);
  return p;
}

struct Families {
  ProjectionFamily projections{"kv_projection", ""};
  Families() { register_projections(projections); }
  // A scorer with its options' defaults (signature: `projection`, d = dim).
  ScorerSetup setup(const std::string& name, const std::string& proj = "pca", std::size_t dim = 8) {
    if (name == "exact") return {name, exact_scorer({})};
    if (name == "mean_key") return {name, mean_key_scorer({})};
    if (name == "quest") return {name, quest_scorer({})};
    if (name == "rep_keys") return {name, rep_keys_scorer({})};
    if (name == "faiss_ivfpq") return {name, faiss_ivfpq_scorer({})};
    return {name, signature_scorer(projection(proj, dim))};
  }
};

TEST(KvBlocks, LayoutResidentAndCandidates) {
  const BlockLayout l(1000, {128, 4, 300});
  EXPECT_EQ(l.blocks(), 8u);
  EXPECT_EQ(l.resident_tokens(), 304u);
  EXPECT_EQ(l.fetch_tokens(0), 124u);
  EXPECT_EQ(l.fetch_tokens(5), 700u - 640u);  // recent window starts at 700
  EXPECT_EQ(l.fetch_tokens(6), 0u);
  EXPECT_EQ(l.candidates(), (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(KvBlocks, QuestBoundsEveryDotProductInItsBlock) {
  const KvCache c = testing::random_cache({1, 1, 1, 32, 1000, 50}, 3);
  const HeadView h = c.head(0, 0);
  const BlockLayout l(h.tokens, {64, 0, 0});
  std::vector<float> lo, hi;
  block_min_max_keys(h, l, lo, hi);
  for (std::size_t s = 0; s < h.steps; ++s)
    for (std::size_t b = 0; b < l.blocks(); ++b) {
      const float bound = quest_bound(h.query(0, s), &lo[b * 32], &hi[b * 32], 32);
      float best = -INFINITY;
      for (std::size_t t = l.begin(b); t < l.end(b); ++t) {
        float d = 0;
        for (std::size_t i = 0; i < 32; ++i) d += h.query(0, s)[i] * h.key(t)[i];
        best = std::max(best, d);
      }
      EXPECT_GE(bound, best - 1e-4f * std::abs(best)) << "block " << b << " step " << s;
    }
}

TEST(KvScorers, ExactScorerHasPerfectRecallAndMassRecall) {
  Families f;
  ContextOptions co;
  co.threads = 2;
  Context ctx(co);
  const KvCache c = generate_kv_cache(testing::tiny_spec(), ctx);
  EvalOptions o;
  o.ks = {1, 2, 3};
  o.blocks = {32, 4, 64};
  const EvalReport r = evaluate(c, {f.setup("exact")}, o, ctx);
  ASSERT_EQ(r.scorers.size(), 1u);
  for (const KMetrics& m : r.scorers[0].per_k) {
    EXPECT_DOUBLE_EQ(m.recall.mean, 1.0);
    EXPECT_DOUBLE_EQ(m.mass_recall.mean, 1.0);
    for (const auto& [K, e] : m.recall_k_at_K) EXPECT_DOUBLE_EQ(e.mean, 1.0);
    EXPECT_EQ(m.recall.n, 2u * 2u * 4u);
  }
}

TEST(KvScorers, FullDimensionPcaReproducesMeanKeyRanking) {
  const KvCache c = testing::random_cache({1, 1, 2, 16, 640, 6}, 4);
  const HeadView h = c.head(0, 0);
  const BlockLayout l(h.tokens, {32, 0, 0});
  auto mean = mean_key_scorer({})();
  auto pca = signature_scorer(projection("pca", 16))();
  mean->prepare(h, l, {});
  pca->prepare(h, l, {});
  std::vector<float> a(l.blocks()), b(l.blocks());
  for (std::size_t s = 0; s < h.steps; ++s) {
    mean->score(s, a);
    pca->score(s, b);
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_NEAR(a[i], b[i], 1e-4f * (1 + std::abs(a[i])));
    EXPECT_EQ(top_k_blocks(a, l, 8), top_k_blocks(b, l, 8));
  }
}

TEST(KvScorers, AllCandidatesSelectedGivesExactOutput) {
  Families f;
  Context ctx;
  const KvCache c = generate_kv_cache(testing::tiny_spec(), ctx);
  EvalOptions o;
  o.ks = {1000};
  o.blocks = {32, 4, 64};
  const EvalReport r =
      evaluate(c, {f.setup("mean_key"), f.setup("quest"), f.setup("rep_keys")}, o, ctx);
  for (const auto& s : r.scorers) {
    const KMetrics& m = s.per_k[0];
    EXPECT_EQ(m.k_effective, r.candidates);
    EXPECT_DOUBLE_EQ(m.recall.mean, 1.0);
    EXPECT_NEAR(m.output_rel_error.mean, 0.0, 1e-9);
    EXPECT_NEAR(m.mass_coverage.mean, 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(m.fetched_fraction.mean, 1.0);
    EXPECT_DOUBLE_EQ(m.needle_hit.mean, 1.0);
  }
}

TEST(KvMetrics, TrafficLedgerOfKnownGeometry) {
  Families f;
  Context ctx;
  // T = 1024, B = 128 -> 8 blocks; sink 4 + recent 128 resident; D = 16; bf16.
  const KvCache c = testing::random_cache({1, 1, 1, 16, 1024, 2}, 5);
  EvalOptions o;
  o.ks = {2};
  o.blocks = {128, 4, 128};
  const EvalReport r = evaluate(c, {f.setup("quest")}, o, ctx);
  const KMetrics& m = r.scorers[0].per_k[0];
  EXPECT_DOUBLE_EQ(m.full_scan_bytes, 1024.0 * 16 * 2 * 2);
  EXPECT_DOUBLE_EQ(m.resident_bytes, 132.0 * 16 * 2 * 2);
  EXPECT_DOUBLE_EQ(m.metadata_bytes, 8.0 * 2 * 16 * 2);  // min and max per block
  EXPECT_GE(m.selected_bytes, 2 * 124.0 * 16 * 2 * 2);
  EXPECT_LE(m.selected_bytes, 2 * 128.0 * 16 * 2 * 2);
  EXPECT_DOUBLE_EQ(m.traffic_reduction, m.full_scan_bytes / m.bytes_per_step);
}

TEST(KvMetrics, EstimateMeanAndInterval) {
  const Estimate e = estimate({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(e.mean, 2.5);
  EXPECT_NEAR(e.ci95, 1.96 * std::sqrt(5.0 / 3.0 / 4.0), 1e-12);
  EXPECT_EQ(estimate({}).n, 0u);
}

TEST(KvProjection, FirstAndRandomShapes) {
  Families f;
  const KvCache c = testing::random_cache({1, 1, 1, 16, 64, 1}, 6);
  const HeadView h = c.head(0, 0);
  RandomStream rng(1, {1});
  ProjectionInput in{&h, 4, 0, 0, &rng, nullptr};
  const ProjectionMatrix first = f.projections.get("first")(in);
  EXPECT_EQ(first.rows[0], 1.0f);
  EXPECT_EQ(first.rows[16 + 1], 1.0f);
  EXPECT_EQ(f.projections.get("random")(in).rows.size(), 64u);
  EXPECT_THROW((void)f.projections.get("learned")(in), InputError);
  in.dim = 17;
  EXPECT_THROW((void)f.projections.get("pca")(in), InputError);
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

TEST(KvScorers, FaissIvfPqFindsTheBlocksOfPlantedKeys) {
  // Random keys; block 5 holds 8 copies of the query direction scaled up: a real IVF-PQ index
  // (all lists probed) must rank block 5 first, and the scorer must be deterministic.
  KvCache c = testing::random_cache({1, 1, 1, 16, 2048, 2}, 9);
  for (std::size_t t = 5 * 64; t < 5 * 64 + 8; ++t)
    for (std::size_t d = 0; d < 16; ++d) c.keys(0, 0)[t * 16 + d] = 4.0f * c.queries(0, 0)[d];
  const HeadView h = c.head(0, 0);
  const BlockLayout l(h.tokens, {64, 0, 0});
  FaissIvfPqScorerSpec o;
  o.nlist = 8;
  o.nprobe = 8;
  o.pq_m = 8;
  o.pq_nbits = 6;
  o.retrieve = 32;
  auto a = faiss_ivfpq_scorer(o)(), b = faiss_ivfpq_scorer(o)();
  a->prepare(h, l, {0, 0, 3});
  b->prepare(h, l, {0, 0, 3});
  std::vector<float> sa(l.blocks()), sb(l.blocks());
  a->score(0, sa);
  b->score(0, sb);
  EXPECT_EQ(sa, sb);
  EXPECT_EQ(top_k_blocks(sa, l, 1), std::vector<std::size_t>{5});
  EXPECT_GT(a->metadata_bytes(), 8.0 * 16 * 4);  // centroids at least
  o.pq_m = 5;                                    // does not divide 16
  EXPECT_THROW(faiss_ivfpq_scorer(o)()->prepare(h, l, {}), InputError);
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

TEST(KvProjection, LearnedProjectionReadsItsHeadSlice) {
  // A learned array [layers=1, kv_heads=2, d=2, D=4]: head 1 holds rows e2, e0.
  NpyArray learned;
  learned.shape = {1, 2, 2, 4};
  learned.values.assign(16, 0.0f);
  learned.values[8 + 2] = 1.0f;
  learned.values[12 + 0] = 1.0f;
  const KvCache c = testing::random_cache({1, 2, 2, 4, 8, 1}, 10);
  const HeadView h = c.head(0, 1);
  ProjectionFamily f("kv_projection", "");
  register_projections(f);
  ProjectionInput in{&h, 2, 0, 1, nullptr, &learned};
  const ProjectionMatrix p = f.get("learned")(in);
  const float x[4] = {1, 2, 3, 4};
  float out[2];
  p.apply(x, out);
  EXPECT_EQ(out[0], 3.0f);
  EXPECT_EQ(out[1], 1.0f);
  in.dim = 3;  // shape disagrees with d
  EXPECT_THROW((void)f.get("learned")(in), DataFormatError);
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

// The knobs the matched-recall sweep turns (docs/kv-data.md, "FAISS at matched recall"): on a
// small generated cache, probing every list and retrieving every token must recall more of the
// oracle's blocks than one probed list and a short retrieval, and cost more metadata bytes.
TEST(KvScorers, FaissRecallGrowsWithNprobeAndRetrieve) {
  KvGeneratorSpec spec = testing::tiny_spec();
  spec.tokens = 1024;
  ContextOptions co;
  co.threads = 1;
  Context ctx(co);
  const KvCache cache = generate_kv_cache(spec, ctx);
  auto faiss = [&](const std::string& label, std::int64_t nprobe, std::int64_t retrieve) {
    FaissIvfPqScorerSpec o;
    o.nlist = 16;
    o.pq_m = 8;
    o.pq_nbits = 6;
    o.nprobe = nprobe;
    o.retrieve = retrieve;
    return ScorerSetup{label, faiss_ivfpq_scorer(o)};
  };
  EvalOptions eo;
  eo.ks = {4};
  eo.blocks = {32, 4, 32};
  const EvalReport r = evaluate(cache, {faiss("narrow", 1, 8), faiss("wide", 16, 1024)}, eo, ctx);
  const KMetrics& narrow = r.scorers[0].per_k[0];
  const KMetrics& wide = r.scorers[1].per_k[0];
  EXPECT_GT(wide.recall.mean, narrow.recall.mean + 0.1);
  EXPECT_GT(wide.mass_coverage.mean, narrow.mass_coverage.mean);
  EXPECT_GT(wide.metadata_bytes, narrow.metadata_bytes);
}

}  // namespace
}  // namespace lightsim::kv

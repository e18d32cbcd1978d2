// Equal-bytes comparisons (equal_bytes.h): each scorer at the largest setting whose metadata
// fits a budget of bytes per block, the size rules agreeing with the traffic ledger.
#include <gtest/gtest.h>

#include <algorithm>

#include "lightsim/core/error.h"
#include "lightsim/kv/equal_bytes.h"
#include "lightsim/kv/scorer_specs.h"
#include "small_kv_cache.h"

namespace lightsim::kv {
namespace {

struct Registered {
  ScorerFamily scorers{"kv_scorer", ""};
  ProjectionFamily projections{"kv_projection", ""};
  Registered() {
    register_scorers(scorers);
    register_projections(projections);
  }
};

EvalOptions options() {
  EvalOptions o;
  o.ks = {4, 8};
  o.blocks.block_tokens = 64;
  return o;
}

// small_kv_cache at block 64: D = 64, T = 3000, N_b = 47 blocks.
SelectReport run(const Registered& r, const std::vector<std::string>& labels,
                 const std::vector<double>& budgets, Context& ctx, const KvCache& cache) {
  const ScorerChoice choice{labels, {}, &r.scorers, {&r.projections, {}}};
  const std::vector<ScorerSetup> setups =
      resolve_scorers(labels, {}, r.scorers, {&r.projections, {}});
  return select_blocks(cache, setups, choice, options(), budgets, ctx);
}

const BudgetRow& row(const SelectReport& r, std::size_t budget, const std::string& scorer) {
  for (const BudgetRow& row : r.equal_bytes.at(budget).rows)
    if (row.scorer == scorer) return row;
  throw std::runtime_error("no row " + scorer);
}

const ScorerReport& equal_k(const SelectReport& r, const std::string& scorer) {
  for (const ScorerReport& s : r.equal_k.scorers)
    if (s.name == scorer) return s;
  throw std::runtime_error("no scorer " + scorer);
}

void expect_same_recall(const BudgetRow& row, const ScorerReport& s) {
  ASSERT_EQ(row.per_k.size(), s.per_k.size());
  for (std::size_t i = 0; i < s.per_k.size(); ++i) {
    EXPECT_EQ(row.per_k[i].recall.mean, s.per_k[i].recall.mean) << row.scorer;
    EXPECT_EQ(row.per_k[i].recall.ci95, s.per_k[i].recall.ci95) << row.scorer;
    EXPECT_EQ(row.per_k[i].metadata_bytes, s.per_k[i].metadata_bytes) << row.scorer;
  }
}

TEST(KvEqualBytes, AtAScorersNaturalSizeTheRowIsItsEqualKRow) {
  const Registered r;
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  // signature d32 bf16 = 64 B per block; mean_key 128; quest 256; rep_keys (4 reps) 512.
  const SelectReport rep =
      run(r, {"signature:pca", "mean_key", "quest", "rep_keys"}, {64, 512}, ctx, cache);
  ASSERT_EQ(rep.equal_k.scorers.size(), 4u);
  ASSERT_EQ(rep.equal_bytes.size(), 2u);

  const BudgetRow& sig = row(rep, 0, "signature:pca:d32");
  EXPECT_EQ(sig.configured, "signature:pca:d32");
  EXPECT_EQ(sig.knob, "dim=32");
  EXPECT_DOUBLE_EQ(sig.bytes_per_block, 64);
  expect_same_recall(sig, equal_k(rep, "signature:pca:d32"));

  const BudgetRow& rk = row(rep, 1, "rep_keys");
  EXPECT_EQ(rk.knob, "reps=4");
  EXPECT_DOUBLE_EQ(rk.bytes_per_block, 512);
  expect_same_recall(rk, equal_k(rep, "rep_keys"));
  expect_same_recall(row(rep, 1, "mean_key"), equal_k(rep, "mean_key"));
  expect_same_recall(row(rep, 1, "quest"), equal_k(rep, "quest"));
  // 512 B would hold d = 256, but d is at most head_dim.
  EXPECT_EQ(row(rep, 1, "signature:pca:d32").configured, "signature:pca:d64");
  EXPECT_DOUBLE_EQ(row(rep, 1, "signature:pca:d32").bytes_per_block, 128);
}

TEST(KvEqualBytes, ABudgetBelowAScorersMinimumDoesNotFit) {
  const Registered r;
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  const SelectReport rep = run(r, {"mean_key", "rep_keys", "signature:random"}, {100}, ctx, cache);
  const BudgetRow& mean = row(rep, 0, "mean_key");
  EXPECT_TRUE(mean.configured.empty());
  EXPECT_TRUE(mean.per_k.empty());
  EXPECT_DOUBLE_EQ(mean.bytes_per_block, 128);
  EXPECT_NE(mean.reason.find("128 B per block"), std::string::npos) << mean.reason;
  const BudgetRow& reps = row(rep, 0, "rep_keys");
  EXPECT_TRUE(reps.configured.empty());
  EXPECT_NE(reps.reason.find("reps = 1 takes 128 B"), std::string::npos) << reps.reason;
  // floor(100 / 2) = 50 signature elements.
  EXPECT_EQ(row(rep, 0, "signature:random:d32").configured, "signature:random:d50");

  const Json j = to_json(rep);
  const Json& m = j["equal_bytes"][0]["results"]["mean_key"];
  EXPECT_EQ(m["fits"], false);
  EXPECT_TRUE(m.contains("reason"));
  EXPECT_EQ(j["equal_bytes"][0]["results"]["signature:random:d32"]["setting"], "dim=50");
  EXPECT_NE(to_text(rep).find("does not fit"), std::string::npos);
  EXPECT_THROW((void)run(r, {"mean_key"}, {0}, ctx, cache), InputError);
}

TEST(KvEqualBytes, WithoutBudgetsTheReportIsEvaluates) {
  const Registered r;
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  const std::vector<std::string> labels{"quest", "signature:pca"};
  const SelectReport rep = run(r, labels, {}, ctx, cache);
  const EvalReport plain =
      evaluate(cache, resolve_scorers(labels, {}, r.scorers, {&r.projections, {}}), options(), ctx);
  EXPECT_EQ(dump_json(to_json(rep)), dump_json(to_json(plain)));
  EXPECT_EQ(to_text(rep), to_text(plain));
}

TEST(KvEqualBytes, FaissTakesTheLargestPqMThatFits) {
  // nlist = min(3000 / 39, 4 sqrt(3000)) = 76, nprobe 16: the fp32 centroids take
  // 76 x 64 x 4 / 47 = 413.9 B per block, each code byte 3000 x 16 / 76 / 47 = 13.44 B.
  const SummaryGeometry g{3000, 64, 47, 64};
  const FaissIvfPqScorerSpec spec;
  const auto fit = fit_faiss_ivfpq(spec, g, 500);
  ASSERT_TRUE(fit.setting.has_value());
  EXPECT_EQ(fit.setting->pq_m, 4);  // 8 would take 521 B
  EXPECT_EQ(fit.knob, "pq_m=4");
  EXPECT_NEAR(fit.bytes_per_block, (76.0 * 64 * 4 + 3000.0 * 4 * 16 / 76) / 47, 1e-9);
  const auto none = fit_faiss_ivfpq(spec, g, 400);
  EXPECT_FALSE(none.setting.has_value());
  EXPECT_NE(none.reason.find("coarse centroids"), std::string::npos) << none.reason;
}

TEST(KvEqualBytes, FaissRowAgreesWithTheLedger) {
  const Registered r;
  Context ctx(ContextOptions{.seed = 3, .threads = 2});
  const KvCache cache = test::small_kv_cache(ctx);
  // select_blocks checks the size rule against the ledger of the run (InternalError if not).
  const SelectReport rep = run(r, {"faiss_ivfpq"}, {500}, ctx, cache);
  const BudgetRow& f = row(rep, 0, "faiss_ivfpq");
  EXPECT_EQ(f.knob, "pq_m=4");
  EXPECT_LE(f.bytes_per_block, 500);
  EXPECT_EQ(f.per_k.size(), 2u);
}

}  // namespace
}  // namespace lightsim::kv

namespace lightsim::kv {
namespace {

// The message of check_selection for these labels and options at `g`, "" when it passes.
std::string selection_error(const std::vector<std::string>& labels,
                            const std::vector<ScorerOption>& options,
                            const std::vector<std::size_t>& ks, const KvGeometry& g) {
  const Registered r;
  const ScorerChoice choice{labels, options, &r.scorers, {&r.projections, {}}};
  BlockOptions blocks;
  blocks.block_tokens = 128;
  try {
    check_selection(choice, ks, blocks, g);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

ScorerOption flag(const std::string& field, const std::string& value) {
  std::string name = field;
  std::replace(name.begin(), name.end(), '_', '-');
  return {field, value, "scorer_options." + field + " (--" + name + ")"};
}

// 1024 tokens of head_dim 32: 8 blocks of 128; faiss_ivfpq's automatic nlist is
// min(1024 / 39, 4 sqrt(1024)) = 26.
KvGeometry geometry() {
  KvGeometry g;
  g.layers = 1;
  g.kv_heads = 1;
  g.q_heads = 2;
  g.head_dim = 32;
  g.tokens = 1024;
  g.steps = 2;
  return g;
}

TEST(KvCheckSelection, CacheDependentOptionsNameTheFlagTheValueAndTheRange) {
  const KvGeometry g = geometry();
  EXPECT_EQ(selection_error({"all"}, {}, {4, 8}, g), "");
  EXPECT_EQ(selection_error({"faiss_ivfpq"}, {flag("pq_m", "8"), flag("nlist", "64")}, {}, g), "");
  const std::string pq_m = selection_error({"faiss_ivfpq"}, {flag("pq_m", "3")}, {}, g);
  EXPECT_NE(pq_m.find("scorer_options.pq_m (--pq-m): 3 does not divide this cache's head_dim 32"),
            std::string::npos)
      << pq_m;
  EXPECT_NE(pq_m.find("allowed: 1, 2, 4, 8, 16, 32"), std::string::npos) << pq_m;
  const std::string nlist = selection_error({"faiss_ivfpq"}, {flag("nlist", "2000")}, {}, g);
  EXPECT_NE(nlist.find("scorer_options.nlist (--nlist): 2000 is out of range [0, 1024] for this "
                       "cache"),
            std::string::npos)
      << nlist;
  const std::string nprobe = selection_error({"faiss_ivfpq"}, {flag("nprobe", "27")}, {}, g);
  EXPECT_NE(nprobe.find("scorer_options.nprobe (--nprobe): 27 is out of range [1, 26]"),
            std::string::npos)
      << nprobe;
  EXPECT_EQ(selection_error({"faiss_ivfpq"}, {flag("nprobe", "26")}, {}, g), "");
  const std::string bits = selection_error({"faiss_ivfpq"}, {flag("pq_nbits", "11")}, {}, g);
  EXPECT_NE(bits.find("scorer_options.pq_nbits (--pq-nbits): 11 is out of range [1, 10]"),
            std::string::npos)
      << bits;
  const std::string dim = selection_error({"signature"}, {flag("dim", "33")}, {}, g);
  EXPECT_NE(dim.find("scorer_options.dim (--dim): 33 is out of range [1, 32] for this cache"),
            std::string::npos)
      << dim;
  const std::string k = selection_error({"exact"}, {}, {4, 9}, g);
  EXPECT_NE(k.find("k (--k): 9 is out of range [1, 8] for this cache (1024 tokens in 8 blocks of "
                   "128 (--block))"),
            std::string::npos)
      << k;
}

TEST(KvCheckSelection, DefaultsThatDoNotFitNameTheDefaultAndClippedOnesPass) {
  KvGeometry g = geometry();
  g.head_dim = 12;  // the default pq_m = 16 does not divide it, the default dim = 32 exceeds it
  const std::string pq_m = selection_error({"faiss_ivfpq"}, {}, {}, g);
  EXPECT_NE(pq_m.find("faiss_ivfpq pq_m (default): 16 does not divide"), std::string::npos) << pq_m;
  const std::string dim = selection_error({"signature:pca"}, {}, {}, g);
  EXPECT_NE(dim.find("signature dim (default): 32 is out of range [1, 12]"), std::string::npos)
      << dim;
  // The default nprobe (16) and retrieve (256) are clipped to a small cache's nlist and tokens.
  g = geometry();
  g.tokens = 200;  // nlist = 5
  EXPECT_EQ(selection_error({"faiss_ivfpq"}, {flag("pq_nbits", "6")}, {}, g), "");
}

}  // namespace
}  // namespace lightsim::kv

// The IVF-PQ index (ivfpq.h) and its bytes-touched model (the energy study's ANN baseline),
// and the block-summary bytes (blocks.h).
#include "lightsim/kv/ivfpq.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "lightsim/core/context.h"
#include "lightsim/core/error.h"
#include "lightsim/core/progress.h"
#include "lightsim/kv/blocks.h"
#include "lightsim/kv/generator.h"

namespace lightsim::kv {
namespace {

TEST(SummaryBytes, LinearInBlocksDimsAndSummaries) {
  EXPECT_DOUBLE_EQ(summary_bytes(1024, 2, 128, 2.0), 1024.0 * 2 * 128 * 2);
  EXPECT_DOUBLE_EQ(summary_bytes(1024, 2, 32, 2.0) * 4, summary_bytes(1024, 2, 128, 2.0));
  EXPECT_DOUBLE_EQ(summary_bytes(1024, 1, 128, 2.0) * 2, summary_bytes(1024, 2, 128, 2.0));
  EXPECT_DOUBLE_EQ(summary_bytes(4096, 2, 128, 2.0), 4 * summary_bytes(1024, 2, 128, 2.0));
}

// Block summaries of a small synthetic head, and its decode queries.
struct Head {
  std::vector<float> vectors, queries;
  std::size_t n = 0, nq = 0, dim = 0;
};

Head synthetic_head(std::int64_t tokens) {
  KvGeneratorSpec w;
  w.model_layers = 1;
  w.kv_heads = 1;
  w.q_heads = 4;
  w.tokens = tokens;
  w.steps = 4;
  ContextOptions co;
  co.threads = 1;
  Context ctx(co);
  const KvCache cache = generate_kv_cache(w, ctx);
  const HeadView h = cache.head(0, 0);
  const BlockLayout layout(h.tokens, {.block_tokens = 32});
  Head out;
  out.vectors = block_mean_keys(h, layout);
  out.n = layout.blocks();
  out.dim = h.head_dim;
  for (std::size_t g = 0; g < h.group; ++g)
    for (std::size_t s = 0; s < h.steps; ++s)
      out.queries.insert(out.queries.end(), h.query(g, s), h.query(g, s) + h.head_dim);
  out.nq = out.queries.size() / out.dim;
  return out;
}

TEST(IvfPqTouch, BytesTouchedGrowWithNprobe) {
  const Head h = synthetic_head(32768);  // 1024 block summaries of 128 dims
  IvfPqTouchOptions o;
  o.nlist = 32;
  double last = 0;
  for (std::size_t nprobe : {1u, 8u, 32u}) {
    o.nprobe = nprobe;
    const IvfPqTouch t =
        ivfpq_bytes_touched(h.vectors.data(), h.n, h.dim, h.queries.data(), h.nq, o, 7);
    EXPECT_EQ(t.nlist, 32u);
    EXPECT_EQ(t.nprobe, nprobe);
    EXPECT_DOUBLE_EQ(t.centroids, 32.0 * 128 * 4);
    EXPECT_DOUBLE_EQ(t.codebook, 256.0 * 128 * 4);
    EXPECT_GT(t.codes, last);
    last = t.codes;
  }
  // Every list probed: every code is read once.
  EXPECT_DOUBLE_EQ(last, static_cast<double>(h.n) * 16);
}

TEST(IvfPqTouch, FewVectorsLowerTheCodeBits) {
  const Head h = synthetic_head(4096);  // 128 summaries < 2^8
  const IvfPqTouch t =
      ivfpq_bytes_touched(h.vectors.data(), h.n, h.dim, h.queries.data(), h.nq, {}, 7);
  EXPECT_EQ(t.pq_nbits, 7u);
  EXPECT_EQ(t.nlist, 12u);  // ceil(sqrt(128))
  EXPECT_DOUBLE_EQ(t.codebook, 128.0 * 128 * 4);
}

// The one index: its lists hold every vector once, a search finds a stored vector's own
// direction first, and parameters the vectors cannot support are refused.
TEST(IvfPqIndex, ListsHoldEveryVectorAndSearchFindsItsOwn) {
  const Head h = synthetic_head(8192);  // 256 summaries
  const IvfPqIndex index(h.vectors.data(), h.n, h.dim,
                         {.nlist = 8, .pq_m = 16, .pq_nbits = 6, .seed = 3});
  std::size_t total = 0;
  for (std::size_t l = 0; l < index.nlist(); ++l) total += index.list_size(l);
  EXPECT_EQ(total, h.n);
  EXPECT_EQ(index.code_size(), 16u * 6u / 8u);
  EXPECT_EQ(index.ksub(), 64u);
  std::vector<float> d(4);
  std::vector<std::int64_t> labels(4);
  index.search(h.vectors.data() + 5 * h.dim, 4, 8, d.data(), labels.data());
  EXPECT_GE(d[0], d[1]);
  EXPECT_THROW(IvfPqIndex(h.vectors.data(), h.n, h.dim, {.nlist = 8, .pq_m = 5}), InputError);
  EXPECT_THROW(IvfPqIndex(h.vectors.data(), h.n, h.dim, {.nlist = 300}), InputError);
  EXPECT_THROW(IvfPqIndex(h.vectors.data(), 16, h.dim, {.nlist = 4, .pq_nbits = 8}), InputError);
}

// n Gaussian vectors of `dim` dimensions (the training plan does not depend on the values).
std::vector<float> gaussian_vectors(std::size_t n, std::size_t dim) {
  std::mt19937 gen(11);
  std::normal_distribution<float> normal;
  std::vector<float> v(n * dim);
  for (float& x : v) x = normal(gen);
  return v;
}

// The plan counts the polls FAISS makes while training: below, at and above one BLAS block
// (4096 rows), with the PQ's subsample (2^6 x 256 = 16384 of 20000 rows) and without. A FAISS
// whose k-means polls differently fails here (and its progress would then be off).
TEST(IvfPqTraining, PlanPredictsEveryPollOfFaiss) {
  struct Shape {
    std::size_t n, nlist, pq_m, pq_nbits;
  };
  const std::size_t dim = 32;
  for (const Shape& s : {Shape{1500, 16, 8, 6}, Shape{9000, 64, 4, 6}, Shape{20000, 128, 4, 6}}) {
    const std::vector<float> v = gaussian_vectors(s.n, dim);
    const IvfPqParams p{
        .nlist = s.nlist, .pq_m = s.pq_m, .pq_nbits = s.pq_nbits, .seed = 5, .pq_min_points = 8};
    const IvfPqIndex index(v.data(), s.n, dim, p);
    const IvfPqTrainingPlan plan = ivfpq_training_plan(s.n, dim, p);
    EXPECT_EQ(index.training_polls(), plan.polls()) << "n = " << s.n;
    ASSERT_EQ(plan.stages.size(), 3u);
    // The coarse k-means: 10 iterations (IndexIVF's cp.niter) of 2 n nlist dim FLOP.
    EXPECT_DOUBLE_EQ(plan.stages[0].flops, 10.0 * 2 * static_cast<double>(s.n * s.nlist * dim));
  }
}

// Training reports its MFLOP through the progress: lines while it runs, and a final line at
// the plan's total.
TEST(IvfPqTraining, ReportsItsProgressInMflop) {
  const std::size_t n = 9000, dim = 32;
  const std::vector<float> v = gaussian_vectors(n, dim);
  std::ostringstream out;
  Progress::Options o;
  o.mode = ProgressMode::plain;
  o.out = &out;
  o.plain_interval = std::chrono::milliseconds(0);  // a line at every advance
  Progress progress(o);
  const IvfPqParams p{
      .nlist = 64, .pq_m = 4, .pq_nbits = 6, .seed = 5, .pq_min_points = 8, .progress = &progress};
  const IvfPqIndex index(v.data(), n, dim, p);
  const auto total =
      static_cast<std::uint64_t>(std::ceil(ivfpq_training_plan(n, dim, p).flops() / 1e6));
  std::istringstream lines(out.str());
  std::string line, last;
  std::size_t count = 0;
  while (std::getline(lines, line)) {
    EXPECT_EQ(line.rfind("faiss training (Mflop): ", 0), 0u) << line;
    last = line;
    ++count;
  }
  EXPECT_GT(count, 10u);  // many lines before the end: it advanced while training
  EXPECT_NE(last.find(fmt::format("{}/{} (100%)", total, total)), std::string::npos) << last;
  EXPECT_NE(last.find("done in"), std::string::npos) << last;
}

}  // namespace
}  // namespace lightsim::kv

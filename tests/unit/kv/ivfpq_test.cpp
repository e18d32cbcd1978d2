// The IVF-PQ index (ivfpq.h) and its bytes-touched model (the energy study's ANN baseline),
// and the block-summary bytes (blocks.h).
#include "lightsim/kv/ivfpq.h"

#include <gtest/gtest.h>

#include "lightsim/core/context.h"
#include "lightsim/core/error.h"
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

}  // namespace
}  // namespace lightsim::kv

// The energy study's models: the summary scan's closed form and linearity, FAISS bytes touched
// against nprobe, and Prism beyond the largest accelerator reported as infeasible.
#include "lightsim/studies/energy.h"

#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "lightsim/core/context.h"
#include "lightsim/kv/blocks.h"
#include "shipped_configs.h"

namespace lightsim::studies {
namespace {

TEST(EnergyScan, ClosedFormOfTheSeedsCheck) {
  // 1024 blocks x 2 (min, max) x 128 dims x 2 B x 31 pJ/B (SPEC 1.6).
  const double bytes = summary_bytes(1024, 2, 128, 2.0);
  EXPECT_DOUBLE_EQ(bytes, 1024.0 * 2 * 128 * 2);
  const MemoryRead m = memory_read(bytes, 31e-12, 3.35e12, 2e-6);
  EXPECT_NEAR(m.energy, 1024.0 * 2 * 128 * 2 * 31e-12, 1e-18);
  EXPECT_NEAR(m.energy, 16.25e-6, 0.01e-6);
  EXPECT_DOUBLE_EQ(m.latency, 2e-6 + bytes / 3.35e12);
}

TEST(EnergyScan, LinearInBlocksAndDims) {
  const double e1 = memory_read(summary_bytes(1024, 2, 128, 2.0), 31e-12, 1e12, 0).energy;
  for (std::int64_t f : {2, 4, 8}) {
    const double ef = memory_read(summary_bytes(1024 * f, 2, 128, 2.0), 31e-12, 1e12, 0).energy;
    EXPECT_NEAR(ef / e1, static_cast<double>(f), 1e-12);
  }
  EXPECT_NEAR(summary_bytes(1024, 2, 32, 2.0) * 4, summary_bytes(1024, 2, 128, 2.0), 0);
  EXPECT_NEAR(summary_bytes(1024, 1, 128, 2.0) * 2, summary_bytes(1024, 2, 128, 2.0), 0);
}

// Block summaries of a small synthetic head, and its decode queries.
struct Head {
  std::vector<float> vectors, queries;
  std::size_t n = 0, nq = 0, dim = 0;
};

Head synthetic_head(std::int64_t tokens) {
  kv::KvGeneratorSpec w;
  w.model_layers = 1;
  w.kv_heads = 1;
  w.q_heads = 4;
  w.tokens = tokens;
  w.steps = 4;
  ContextOptions co;
  co.threads = 1;
  Context ctx(co);
  const kv::KvCache cache = kv::generate_kv_cache(w, ctx);
  const kv::HeadView h = cache.head(0, 0);
  const kv::BlockLayout layout(h.tokens, {.block_tokens = 32});
  Head out;
  out.vectors = kv::block_mean_keys(h, layout);
  out.n = layout.blocks();
  out.dim = h.head_dim;
  for (std::size_t g = 0; g < h.group; ++g)
    for (std::size_t s = 0; s < h.steps; ++s)
      out.queries.insert(out.queries.end(), h.query(g, s), h.query(g, s) + h.head_dim);
  out.nq = out.queries.size() / out.dim;
  return out;
}

TEST(EnergyFaiss, BytesTouchedGrowWithNprobe) {
  const Head h = synthetic_head(32768);  // 1024 block summaries of 128 dims
  EnergyFaissSpec spec;
  spec.nlist = 32;
  double last = 0;
  for (std::int64_t nprobe : {1, 8, 32}) {
    spec.nprobe = nprobe;
    const FaissTouch t =
        faiss_bytes_touched(h.vectors.data(), h.n, h.dim, h.queries.data(), h.nq, spec, 7);
    EXPECT_EQ(t.nlist, 32u);
    EXPECT_EQ(t.nprobe, static_cast<std::size_t>(nprobe));
    EXPECT_DOUBLE_EQ(t.centroids, 32.0 * 128 * 4);
    EXPECT_DOUBLE_EQ(t.codebook, 256.0 * 128 * 4);
    EXPECT_GT(t.codes, last);
    last = t.codes;
  }
  // Every list probed: every code is read once.
  EXPECT_DOUBLE_EQ(last, static_cast<double>(h.n) * 16);
}

TEST(EnergyFaiss, FewVectorsLowerTheCodeBits) {
  const Head h = synthetic_head(4096);  // 128 summaries < 2^8
  EnergyFaissSpec spec;
  const FaissTouch t =
      faiss_bytes_touched(h.vectors.data(), h.n, h.dim, h.queries.data(), h.nq, spec, 7);
  EXPECT_EQ(t.pq_nbits, 7u);
  EXPECT_EQ(t.nlist, 12u);  // ceil(sqrt(128))
  EXPECT_DOUBLE_EQ(t.codebook, 128.0 * 128 * 4);
}

TEST(EnergyPrism, BeyondTheLargestAcceleratorIsInfeasibleNotClamped) {
  const config::LoadOptions load = testing::shipped_configs();
  std::vector<std::pair<std::string, prism::AcceleratorSpec>> accels = {
      {"seed", prism::load_accelerator("seed", load)},
      {"scaled", prism::load_accelerator("scaled", load)}};
  const PrismAtContext small = prism_at(128, accels);
  ASSERT_TRUE(small.fits);
  EXPECT_EQ(small.accelerator, "seed");
  EXPECT_EQ(small.cost.timeline.passes, 1);
  const PrismAtContext mid = prism_at(4096, accels);  // > 256 rows: the scaled preset
  ASSERT_TRUE(mid.fits);
  EXPECT_EQ(mid.accelerator, "scaled");
  EXPECT_EQ(mid.cost.timeline.passes, 4);  // 4096 / 1024 physical rows
  EXPECT_GT(mid.cost.dynamic_energy, small.cost.dynamic_energy);
  const PrismAtContext full = prism_at(8192, accels);
  ASSERT_TRUE(full.fits);
  EXPECT_EQ(full.cost.timeline.passes, 8);
  const PrismAtContext beyond = prism_at(8193, accels);
  EXPECT_FALSE(beyond.fits);
  EXPECT_NE(beyond.reason.find("8193 blocks"), std::string::npos) << beyond.reason;
  EXPECT_NE(beyond.reason.find("scaled"), std::string::npos) << beyond.reason;
}

}  // namespace
}  // namespace lightsim::studies

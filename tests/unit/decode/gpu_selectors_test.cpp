// The GPU selector baselines (decode/gpu_selectors.h): their bytes and FLOPs against the
// formulas by hand, the roofline floor of their time, the board-power energy, and bad input.
#include "lightsim/decode/gpu_selectors.h"

#include <gtest/gtest.h>

#include "lightsim/core/error.h"
#include "shipped_configs.h"

namespace lightsim::decode {
namespace {

fabric::GpuSpec shipped_gpu(const std::string& name) {
  const config::LoadOptions o = testing::shipped_configs();
  return config::load_spec<fabric::GpuSpec>(config::find_named(name, "gpus", ".yaml", o, "gpu"), o);
}

// Qwen2.5-7B at 128K in blocks of 128 (1024 blocks), 28 layers, 4 KV heads, 28 query heads.
SelectionShape qwen(std::int64_t batch) {
  return {.layers = 28,
          .kv_heads = 4,
          .q_heads = 28,
          .head_dim = 128,
          .hidden = 3584,
          .context = 131072,
          .block_tokens = 128,
          .batch = batch};
}

const IvfPqGeometry kIvf{.nlist = 1448, .nprobe = 16, .pq_m = 16, .pq_nbits = 8};

TEST(GpuSelectors, SummaryScansReadTheirSummariesOnce) {
  const fabric::GpuSpec h100 = shipped_gpu("h100");
  const DsaIndexerSpec dsa;
  const GpuSelectorCost mean = gpu_selector_cost(GpuSelector::mean_key, qwen(8), h100, dsa, kIvf);
  const GpuSelectorCost quest = gpu_selector_cost(GpuSelector::quest, qwen(8), h100, dsa, kIvf);
  // mean keys: B G N D 2 bytes per layer; + the top-k's 8 B per score.
  const double summaries = 8.0 * 4 * 1024 * 128 * 2, scores = 8.0 * 4 * 1024 * 8;
  EXPECT_DOUBLE_EQ(mean.bytes, 28 * (summaries + scores));
  EXPECT_DOUBLE_EQ(quest.bytes, 28 * (2 * summaries + scores));  // min and max keys
  EXPECT_DOUBLE_EQ(mean.flops, 28 * 2.0 * 8 * 4 * 1024 * 128);
  EXPECT_DOUBLE_EQ(quest.flops, 28 * 4.0 * 8 * 28 * 1024 * 128);
  // Never faster than HBM streaming the bytes; memory-bound at decode sizes.
  EXPECT_GT(mean.time, mean.bytes / h100.hbm_bandwidth.si());
  EXPECT_GT(quest.time, mean.time);
  EXPECT_TRUE(mean.memory_bound);
  ASSERT_EQ(mean.kernels.size(), 2U);  // score, top-k: per layer
}

TEST(GpuSelectors, DsaIndexerReadsEveryIndexKeyInFp8) {
  const fabric::GpuSpec h100 = shipped_gpu("h100"), b200 = shipped_gpu("b200");
  const DsaIndexerSpec dsa;  // V3.2: 64 heads x 128, FP8 keys + fp32 scale
  const GpuSelectorCost g = gpu_selector_cost(GpuSelector::dsa_indexer, qwen(1), h100, dsa, kIvf);
  ASSERT_EQ(g.kernels.size(), 3U);
  EXPECT_EQ(g.kernels[1].name, "logits");
  EXPECT_DOUBLE_EQ(g.kernels[1].bytes, 28.0 * 131072 * (128 + 4));
  EXPECT_DOUBLE_EQ(g.kernels[1].flops, 28.0 * 131072 * (2.0 * 64 * 128 + 2.0 * 64));
  // The projections' FP8 weights are read once per layer, whatever the batch.
  const double weights = 1536.0 * 64 * 128 + 3584.0 * 64 + 3584.0 * 128;
  EXPECT_GE(g.kernels[0].bytes, 28 * weights);
  const GpuSelectorCost g64 =
      gpu_selector_cost(GpuSelector::dsa_indexer, qwen(64), h100, dsa, kIvf);
  EXPECT_LT(g64.kernels[0].bytes, 64 * g.kernels[0].bytes);
  EXPECT_DOUBLE_EQ(g64.kernels[1].bytes, 64 * g.kernels[1].bytes);
  // B200's HBM (8 TB/s) against H100's (3.35 TB/s): faster on a memory-bound scan.
  const GpuSelectorCost gb = gpu_selector_cost(GpuSelector::dsa_indexer, qwen(64), b200, dsa, kIvf);
  EXPECT_LT(gb.time, g64.time);
}

TEST(GpuSelectors, EnergyIsBoardPowerOverTheTimeAndHbmEnergyABound) {
  const fabric::GpuSpec h100 = shipped_gpu("h100");
  for (GpuSelector s : {GpuSelector::mean_key, GpuSelector::quest, GpuSelector::dsa_indexer,
                        GpuSelector::faiss_ivfpq}) {
    const GpuSelectorCost g = gpu_selector_cost(s, qwen(8), h100, DsaIndexerSpec{}, kIvf);
    SCOPED_TRACE(std::string(to_string(s)));
    EXPECT_GE(g.power, h100.idle_power->si());
    EXPECT_LE(g.power, h100.tdp->si());
    EXPECT_DOUBLE_EQ(g.energy, g.power * g.time);
    EXPECT_DOUBLE_EQ(g.hbm_energy, g.bytes * h100.hbm_energy_per_byte->si());
    EXPECT_LT(g.hbm_energy, g.energy);
  }
}

TEST(GpuSelectors, FaissScansTheProbedCodes) {
  const fabric::GpuSpec h100 = shipped_gpu("h100");
  const GpuSelectorCost g =
      gpu_selector_cost(GpuSelector::faiss_ivfpq, qwen(1), h100, DsaIndexerSpec{}, kIvf);
  ASSERT_EQ(g.kernels.size(), 4U);
  EXPECT_EQ(g.kernels[2].name, "scan");
  // 16 B codes (16 x 8 bits) of the nprobe / nlist share of the tokens, per KV head and layer.
  EXPECT_DOUBLE_EQ(g.kernels[2].bytes, 28.0 * 4 * 131072 * 16 * 16 / 1448.0);
}

TEST(GpuSelectors, BadInputIsAnError) {
  fabric::GpuSpec h100 = shipped_gpu("h100");
  SelectionShape s = qwen(1);
  s.batch = 0;
  EXPECT_THROW(gpu_selector_cost(GpuSelector::mean_key, s, h100, {}, kIvf), ConfigError);
  IvfPqGeometry bad = kIvf;
  bad.pq_m = 7;  // does not divide 128
  EXPECT_THROW(gpu_selector_cost(GpuSelector::faiss_ivfpq, qwen(1), h100, {}, bad), ConfigError);
  EXPECT_THROW(gpu_selector_from("lightning", "selectors"), InputError);
  h100.hbm_energy_per_byte.reset();
  EXPECT_THROW(gpu_selector_cost(GpuSelector::quest, qwen(1), h100, {}, kIvf), ConfigError);
}

}  // namespace
}  // namespace lightsim::decode

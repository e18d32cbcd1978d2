// Scaling limits of the cost analysis: the attention core is quadratic in prompt length, the
// rest linear; a decode step costs about 2 x active parameters.
#include <gtest/gtest.h>

#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

Transformer load(const char* name) {
  return load_hf_config(std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/models" / name);
}

TEST(Scaling, AttentionCoreIsQuadraticAndProjectionsLinear) {
  const Transformer m = load("llama3_8b.json");
  const CostReport a = analyze(m, {}, Workload::prefill(8192));
  const CostReport b = analyze(m, {}, Workload::prefill(16384));
  // T (T + 1) / 2 pairs.
  EXPECT_NEAR(b.attention_flops / a.attention_flops, 16384.0 * 16385 / (8192.0 * 8193), 1e-9);
  EXPECT_NEAR(b.matmul_flops / a.matmul_flops, 2.0, 1e-3);  // LM head runs on one token only
}

TEST(Scaling, LongPromptsAreAttentionDominated) {
  // Attention core 2 T^2 H d per layer vs projections 2 P T: crossover T = P / (H d).
  const Transformer m = load("llama3_8b.json");
  const LayerParameters p = layer_parameters(m, m.layers[0]);
  const double crossover = (p.total() - p.norms) / (32.0 * 128);
  const CostReport shorter =
      analyze(m, {}, Workload::prefill(static_cast<std::int64_t>(crossover / 2)));
  const CostReport longer =
      analyze(m, {}, Workload::prefill(static_cast<std::int64_t>(crossover * 2)));
  EXPECT_LT(shorter.attention_flops, shorter.matmul_flops);
  EXPECT_GT(longer.attention_flops, longer.matmul_flops);
}

TEST(Scaling, DecodeStepCostsTwiceTheActiveParameters) {
  for (const char* name : {"deepseek_v3.json", "qwen3_235b_a22b.json", "llama3_8b.json"}) {
    const Transformer m = load(name);
    const ParameterCount c = count_parameters(m);
    const CostReport r = analyze(m, {}, Workload::decode(1));  // negligible context
    EXPECT_NEAR(r.flops / (2.0 * (c.active - c.embedding)), 1.0, 0.02) << name;
  }
}

}  // namespace
}  // namespace lightsim::model

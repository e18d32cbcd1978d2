// Cost analysis: totals against 2 x params x tokens plus the attention term, and the
// special forms (causal masking, local chunks, MLA, expert reuse).
#include <gtest/gtest.h>

#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

Transformer load(const char* name) {
  return load_hf_config(std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/models" / name);
}

const OpGroup& group(const CostReport& r, std::string_view label) {
  for (const auto& g : r.groups)
    if (g.label == label) return g;
  throw std::runtime_error("no group " + std::string(label));
}

const Operator& op(const OpGroup& g, std::string_view name) {
  for (const auto& o : g.ops)
    if (o.name == name) return o;
  throw std::runtime_error("no operator " + std::string(name));
}

TEST(Cost, DenseLayerIsTwoParamsPerTokenPlusCausalAttention) {
  const Transformer m = load("llama3_8b.json");
  const double T = 4096;
  const CostReport r = analyze(m, {}, Workload::prefill(4096));
  const OpGroup& layer = group(r, "dense layer");
  EXPECT_EQ(layer.count(), 32);
  const LayerParameters p = layer_parameters(m, m.layers[0]);
  // Every weight is used once per token in a multiply-add.
  EXPECT_DOUBLE_EQ(layer.flops_of(OpClass::matmul), 2.0 * (p.total() - p.norms) * T);
  // QK^T and PV over the T (T + 1) / 2 causal pairs, 32 heads of 128; softmax 5 per score.
  const double pairs = T * (T + 1) / 2;
  EXPECT_DOUBLE_EQ(op(layer, "attn_score").flops + op(layer, "attn_value").flops,
                   4.0 * pairs * 32 * 128);
  const double estimate = 2.0 * p.total() * T + 4.0 * pairs * 32 * 128;
  EXPECT_NEAR(layer.flops() / estimate, 1.0, 0.01);
}

TEST(Cost, WholeModelMatchesTwoParamsTimesTokens) {
  const Transformer m = load("qwen2_5_7b.json");
  Workload w = Workload::prefill(2048, 4);
  w.logits_for_all_tokens = true;
  const CostReport r = analyze(m, {}, w);
  const ParameterCount c = count_parameters(m);
  const double N = 8192;
  const double attention = 4.0 * 4 * (2048.0 * 2049 / 2) * 28 * 128 * 28;  // per layer x 28
  EXPECT_NEAR(r.attention_flops - 5.0 * 4 * (2048.0 * 2049 / 2) * 28 * 28, attention,
              1e-9 * attention);
  // The embedding lookup is a gather (no FLOPs).
  EXPECT_NEAR(r.flops / (2.0 * (c.total - c.embedding) * N + attention), 1.0, 0.01);
}

TEST(Cost, PriorContextAddsTheRectangleOfPairs) {
  EXPECT_DOUBLE_EQ(causal_pairs(0, 4, 0), 10);
  EXPECT_DOUBLE_EQ(causal_pairs(100, 4, 0), 4 * 100 + 10);
  EXPECT_DOUBLE_EQ(keys_read(100, 4, 0), 104);
}

TEST(Cost, ChunkedLocalAttentionMatchesBruteForce) {
  for (std::int64_t prior : {0, 5, 8, 13}) {
    for (std::int64_t tokens : {1, 3, 8, 20}) {
      double brute = 0;
      for (std::int64_t p = prior; p < prior + tokens; ++p) brute += static_cast<double>(p % 8 + 1);
      EXPECT_DOUBLE_EQ(causal_pairs(prior, tokens, 8), brute) << prior << " " << tokens;
    }
  }
  EXPECT_DOUBLE_EQ(keys_read(13, 3, 8), 8);  // positions 8..15
}

TEST(Cost, MlaFormsAgreeOnKvWriteAndDifferInWork) {
  const Transformer m = load("deepseek_v3.json");
  DTypePolicy dt;
  dt.kv_cache = DType::fp8;
  const CostReport prefill = analyze(m, dt, Workload::prefill(4096));
  EXPECT_EQ(prefill.mla_form, "unabsorbed");
  const CostReport decode = analyze(m, dt, Workload::decode(32768, 64));
  EXPECT_EQ(decode.mla_form, "absorbed");
  const Operator& write = op(group(decode, "moe layer, MLA"), "kv_cache_write");
  EXPECT_DOUBLE_EQ(write.bytes_written, 64.0 * 576);  // one token x 576 fp8 values / sequence
  // Decode reads the whole latent cache once per layer: context x 576 bytes per sequence.
  EXPECT_NEAR(op(group(decode, "moe layer, MLA"), "attn_score").bytes_read, 64.0 * 32769 * 576,
              64.0 * 128 * 576 * 2 + 1);
  Workload forced = Workload::prefill(4096);
  forced.mla_form = MlaForm::absorbed;
  EXPECT_GT(analyze(m, dt, forced).attention_flops, prefill.attention_flops);
}

TEST(Cost, RoutedExpertsDoTopKWorkAndReadTouchedExperts) {
  const Transformer m = load("deepseek_v3.json");
  const CostReport one = analyze(m, {}, Workload::decode(100));
  EXPECT_NEAR(one.expected_experts_touched, 8.0, 1e-9);
  const CostReport many = analyze(m, {}, Workload::prefill(16384));
  EXPECT_NEAR(many.expected_experts_touched, 256.0, 1e-6);
  const OpGroup& layer = group(many, "moe layer, MLA");
  EXPECT_DOUBLE_EQ(op(layer, "experts_gate_up").flops + op(layer, "experts_down").flops,
                   2.0 * 16384 * 8 * 3 * 7168 * 2048);
  EXPECT_NEAR(op(layer, "experts_down").weight_bytes, 256.0 * 2048 * 7168 * 2, 1.0);
}

TEST(Cost, DecodeReadsEveryActiveWeightOnce) {
  const Transformer m = load("llama3_8b.json");
  const CostReport r = analyze(m, {}, Workload::decode(1000));
  const ParameterCount c = count_parameters(m);
  // The embedding table is gathered (one row), everything else is read in full.
  EXPECT_NEAR(r.weight_bytes / (2.0 * (c.total - c.embedding)), 1.0, 1e-3);
}

TEST(Cost, BadWorkloadIsAnInputError) {
  const Transformer m = load("llama3_8b.json");
  EXPECT_THROW((void)analyze(m, {}, Workload::prefill(0)), InputError);
  Workload w = Workload::decode(10);
  w.new_tokens = 2;
  EXPECT_THROW((void)analyze(m, {}, w), InputError);
}

}  // namespace
}  // namespace lightsim::model

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

// Each operator carries the kind its builder gave it (prefill and decode at scale read the
// kind, never the name): every operator of a DeepSeek-V3 MoE layer and of the edges.
TEST(Cost, OperatorsCarryTheirKind) {
  const Transformer m = load("deepseek_v3.json");
  Workload w = Workload::prefill(4096);
  w.mla_form = MlaForm::unabsorbed;
  const CostReport r = analyze(m, {}, w);
  const OpGroup& layer = group(r, "moe layer, MLA");
  const std::vector<std::pair<std::string_view, OpKind>> expected = {
      {"attn_norm", OpKind::other},
      {"q_a_proj", OpKind::latent_projection},
      {"q_a_norm", OpKind::other},
      {"q_b_proj", OpKind::head_projection},
      {"kv_a_proj", OpKind::latent_projection},
      {"kv_a_norm", OpKind::other},
      {"rope", OpKind::other},
      {"kv_cache_write", OpKind::other},
      {"kv_b_proj", OpKind::kv_up_projection},
      {"attn_score", OpKind::attention_score},
      {"softmax", OpKind::softmax},
      {"attn_value", OpKind::attention_score},
      {"o_proj", OpKind::head_projection},
      {"ffn_norm", OpKind::other},
      {"router", OpKind::router},
      {"topk_select", OpKind::routing},
      {"dispatch", OpKind::routing},
      {"experts_gate_up", OpKind::routed_expert},
      {"experts_act_mul", OpKind::routed_expert},
      {"experts_down", OpKind::routed_expert},
      {"combine", OpKind::routing},
      {"shared_gate_up", OpKind::shared_expert},
      {"shared_act_mul", OpKind::shared_expert},
      {"shared_down", OpKind::shared_expert},
  };
  for (const auto& [name, kind] : expected) EXPECT_EQ(op(layer, name).kind, kind) << name;
  for (const Operator& o : layer.ops) {
    EXPECT_EQ(o.row_parallel,
              o.name == "o_proj" || o.name == "experts_down" || o.name == "shared_down")
        << o.name;
    EXPECT_EQ(o.shares_input, o.name == "kv_a_proj") << o.name;
  }
  EXPECT_EQ(op(group(r, "dense layer, MLA"), "gate_up").kind, OpKind::dense_ffn);
  EXPECT_TRUE(op(group(r, "dense layer, MLA"), "down").row_parallel);
  for (const OpGroup& g : r.groups) {
    if (!g.layers.empty()) continue;
    for (const Operator& o : g.ops) EXPECT_EQ(o.kind, OpKind::embedding_head) << o.name;
  }
  // The absorbed form's extra matmuls are head-sharded projections.
  w.mla_form = MlaForm::absorbed;
  const CostReport absorbed_report = analyze(m, {}, w);  // outlives the group it holds
  const OpGroup& absorbed = group(absorbed_report, "moe layer, MLA");
  EXPECT_EQ(op(absorbed, "q_absorb").kind, OpKind::head_projection);
  EXPECT_EQ(op(absorbed, "v_up").kind, OpKind::head_projection);
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

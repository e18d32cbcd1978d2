// Every real Hugging Face config.json under tests/data/hf_configs (sources and published figures:
// tests/data/hf_configs/SOURCES.md) loads, and its parameter counts match the published ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "lightsim/core/error.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

std::filesystem::path data_dir() {
  return std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "tests/data/hf_configs";
}

Transformer load_hf(const std::string& stem) {
  return load_hf_config(data_dir() / (stem + ".json"));
}

// How the publisher counts. `total` is the main model unless with_mtp (Hugging Face's
// safetensors size of DeepSeek-V3.2 includes the MTP module). `active` includes the embedding
// table and LM head, except for OpenAI, whose gpt-oss model card counts the unembedding but
// not the embedding (Table 1).
struct Published {
  const char* stem;
  double total;
  double active;
  double active_tolerance = 0.02;  // wider only where the publisher gives a rounded name
  bool with_mtp = false;
  bool active_without_embedding = false;
};

// Figures and their sources: SOURCES.md. The 29 models of issue 22 (and two more families).
const Published kPublished[] = {
    {"deepseek_v3", 671e9, 37e9},
    {"deepseek_r1", 671e9, 37e9},
    // DeepSeek publishes no active count for V3.2; its V3 figure (37B) predates the DSA
    // indexer, which adds 0.85 B per token: computed 38.40 B (3.8 %).
    {"deepseek_v3_2", 685e9, 37e9, 0.04, true},
    {"kimi_k2_instruct", 1.04e12, 32.6e9},
    {"kimi_k2_5", 1.04e12, 32.6e9},  // the K2 language model (SOURCES.md)
    {"qwen3_0_6b", 0.6e9, 0.6e9},
    {"qwen3_1_7b", 1.7e9, 1.7e9},
    {"qwen3_8b", 8.2e9, 8.2e9},
    {"qwen3_14b", 14.8e9, 14.8e9},
    {"qwen3_32b", 32.8e9, 32.8e9},
    {"qwen3_30b_a3b", 30.5e9, 3.3e9},
    {"qwen3_235b_a22b", 235e9, 22e9},
    {"qwen3_coder_480b_a35b", 480e9, 35e9},
    // Qwen publishes the active count of Qwen3-Next and Qwen3.5 MoE models only as the rounded
    // name ("A3B", "A10B", "A17B"): computed 3.88 B, 9.77 B, 3.46 B and 17.35 B.
    {"qwen3_next_80b_a3b", 80e9, 3e9, 0.30},
    {"qwen3_5_27b", 27e9, 27e9},
    {"qwen3_5_35b_a3b", 35e9, 3e9, 0.16},
    {"qwen3_5_122b_a10b", 122e9, 10e9, 0.03},
    {"qwen3_5_397b_a17b", 397e9, 17e9, 0.03},
    {"qwen2_5_7b", 7.61e9, 7.61e9},
    {"llama3_1_8b", 8e9, 8e9},
    {"llama3_1_70b", 70e9, 70e9},
    {"llama3_1_405b", 405e9, 405e9},
    {"llama4_scout", 109e9, 17e9},
    {"llama4_maverick", 400e9, 17e9},
    {"mixtral_8x7b", 46.7e9, 12.9e9},
    {"mixtral_8x22b", 141e9, 39e9},
    {"gpt_oss_20b", 20.91e9, 3.61e9, 0.02, false, true},
    {"gpt_oss_120b", 116.83e9, 5.13e9, 0.02, false, true},
    {"mistral_nemo_12b", 12.2e9, 12.2e9},
    {"deepseek_v2_lite", 15.7e9, 2.4e9, 0.11},  // computed 2.66 B: "2.4B" excludes embeddings?
};

TEST(HfConfigs, EveryShippedConfigIsInTheTable) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(data_dir())) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string stem = entry.path().stem().string();
    bool listed = false;
    for (const Published& p : kPublished) listed = listed || stem == p.stem;
    EXPECT_TRUE(listed) << stem;
  }
  EXPECT_EQ(files, std::size(kPublished));
}

TEST(HfConfigs, TotalAndActiveParametersMatchThePublishedFigures) {
  for (const Published& p : kPublished) {
    SCOPED_TRACE(p.stem);
    const Transformer m = load_hf(p.stem);
    const ParameterCount c = count_parameters(m);
    const double total = c.total + (p.with_mtp ? c.mtp : 0.0);
    const double active = c.active - (p.active_without_embedding ? c.embedding : 0.0);
    EXPECT_NEAR(total / p.total, 1.0, 0.02) << total;
    EXPECT_NEAR(active / p.active, 1.0, p.active_tolerance) << active;
  }
}

TEST(HfConfigs, GptOssCheckpointBytesMatchThePublishedSize) {
  // gpt-oss model card (arXiv:2508.10925) Table 1: 60.8 GiB and 12.8 GiB with MXFP4 experts.
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(count_parameters(load_hf("gpt_oss_120b")).checkpoint_bytes / gib / 60.8, 1.0, 0.02);
  EXPECT_NEAR(count_parameters(load_hf("gpt_oss_20b")).checkpoint_bytes / gib / 12.8, 1.0, 0.02);
}

TEST(HfConfigs, QuantizationConfigSetsTheStoredBitsPerWeight) {
  const Transformer oss = load_hf("gpt_oss_120b");
  EXPECT_EQ(oss.checkpoint.method, "mxfp4");
  EXPECT_DOUBLE_EQ(oss.checkpoint.quantized_bits, 4.25);
  EXPECT_TRUE(oss.checkpoint.experts_only);
  const Transformer v3 = load_hf("deepseek_v3");
  EXPECT_EQ(v3.checkpoint.method, "fp8");
  EXPECT_DOUBLE_EQ(v3.checkpoint.quantized_bits, 8.0 + 32.0 / (128 * 128));
  EXPECT_FALSE(v3.checkpoint.experts_only);
  // Block FP8: about one byte per parameter (bf16 embedding, LM head and routers aside).
  const ParameterCount c = count_parameters(v3);
  EXPECT_NEAR(c.checkpoint_bytes / c.total, 1.0, 0.01);
  const Transformer k25 = load_hf("kimi_k2_5");
  EXPECT_EQ(k25.checkpoint.method, "compressed-tensors");
  EXPECT_DOUBLE_EQ(k25.checkpoint.quantized_bits, 4.5);  // int4 + a bf16 scale per 32
  EXPECT_TRUE(k25.checkpoint.experts_only);
  EXPECT_EQ(load_hf("llama3_1_8b").checkpoint.method, "bf16");
}

TEST(HfConfigs, LayerKindsFollowLayerTypesAndTheFamilyDefaults) {
  const Transformer oss = load_hf("gpt_oss_20b");
  EXPECT_EQ(oss.layers[0].sliding_window, 128);
  EXPECT_EQ(oss.layers[1].sliding_window, 0);
  EXPECT_TRUE(oss.attention.sinks && oss.attention.o_bias && oss.moe.expert_bias);
  // Qwen3-Next lists no layer_types: every 4th layer (full_attention_interval) is full.
  const Transformer next = load_hf("qwen3_next_80b_a3b");
  EXPECT_TRUE(next.layers[0].linear_attention);
  EXPECT_FALSE(next.layers[3].linear_attention);
  EXPECT_EQ(std::count_if(next.layers.begin(), next.layers.end(),
                          [](const LayerShape& l) { return l.linear_attention; }),
            36);
  EXPECT_TRUE(next.moe.shared_gate && next.attention.output_gate);
  // Qwen3.5 lists layer_types in its text_config.
  const Transformer q35 = load_hf("qwen3_5_397b_a17b");
  EXPECT_TRUE(q35.layers[2].linear_attention);
  EXPECT_FALSE(q35.layers[3].linear_attention);
  EXPECT_EQ(q35.moe_layer_count(), 60);
  // Mixtral and Qwen3-MoE: every layer is MoE; DeepSeek-V3.2 keeps 3 dense layers first.
  EXPECT_EQ(load_hf("mixtral_8x7b").moe_layer_count(), 32);
  const Transformer v32 = load_hf("deepseek_v3_2");
  EXPECT_EQ(v32.moe_layer_count(), 58);
  EXPECT_EQ(v32.attention.index_topk, 2048);
  // Llama-4 Scout: every layer MoE (interleave step 1), 3 of 4 layers chunked local attention.
  const Transformer scout = load_hf("llama4_scout");
  EXPECT_EQ(scout.moe_layer_count(), 48);
  EXPECT_EQ(scout.layers[0].attention_window, 8192);
  EXPECT_EQ(scout.layers[3].attention_window, 0);
}

TEST(HfConfigs, LinearAttentionLayersCacheNoKeysOrValues) {
  const Transformer next = load_hf("qwen3_next_80b_a3b");
  // 12 full-attention layers x 2 KV heads x 256 x (K and V) x 2 bytes.
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(next, DTypePolicy{}), 12.0 * 2 * 2 * 256 * 2);
}

TEST(HfConfigs, UnmodelledCostFeaturesAreNamedNotMisread) {
  EXPECT_EQ(unmodelled_cost_feature(load_hf("llama3_1_8b")), "");
  EXPECT_EQ(unmodelled_cost_feature(load_hf("mixtral_8x22b")), "");
  EXPECT_EQ(unmodelled_cost_feature(load_hf("kimi_k2_5")), "");
  EXPECT_NE(unmodelled_cost_feature(load_hf("qwen3_next_80b_a3b")).find("linear_attention"),
            std::string::npos);
  EXPECT_NE(unmodelled_cost_feature(load_hf("gpt_oss_20b")).find("sliding_window"),
            std::string::npos);
  EXPECT_NE(unmodelled_cost_feature(load_hf("deepseek_v3_2")).find("index_topk"),
            std::string::npos);
  try {
    (void)analyze(load_hf("gpt_oss_20b"), DTypePolicy{}, Workload::prefill(16));
    ADD_FAILURE() << "analyze accepted sliding-window layers";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sliding_window"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightsim::model

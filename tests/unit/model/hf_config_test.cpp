// Reading config.json: supported families, layer patterns, and errors that name the field.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"
#include "lightsim/model/transformer.h"

namespace lightsim::model {
namespace {

Transformer parse(const std::string& json) {
  return read_hf_config(config::parse_document(json, "config.json"), "test");
}

std::string error_of(const std::string& json) {
  try {
    (void)parse(json);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const char* kLlama = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 3,
  "vocab_size": 100, "hidden_act": "silu", "rope_theta": 10000.0})";

TEST(HfConfig, ReadsADenseGqaModelAndListsMetadata) {
  const Transformer m = parse(kLlama);
  EXPECT_EQ(m.hidden, 64);
  EXPECT_EQ(m.attention.head_dim, 16);
  EXPECT_EQ(m.attention.kv_heads, 2);
  EXPECT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.moe_layer_count(), 0);
  ASSERT_EQ(m.ignored_fields.size(), 1u);
  EXPECT_NE(m.ignored_fields[0].find("config.json:3: rope_theta"), std::string::npos)
      << m.ignored_fields[0];
}

TEST(HfConfig, UnknownArchitectureNamesModelTypeAndLine) {
  const std::string e = error_of(R"({"hidden_size": 8,
  "model_type": "mamba2"})");
  EXPECT_NE(e.find("config.json:2:17: model_type: unknown architecture 'mamba2'"),
            std::string::npos)
      << e;
}

TEST(HfConfig, MissingFieldIsNamed) {
  const std::string e = error_of(R"({"model_type": "llama", "hidden_size": 64,
  "num_attention_heads": 4, "num_hidden_layers": 3, "vocab_size": 100})");
  EXPECT_NE(e.find("intermediate_size: missing required field"), std::string::npos) << e;
}

TEST(HfConfig, UnknownFieldIsAnErrorNotIgnored) {
  std::string json = kLlama;
  json.insert(json.size() - 1, R"(, "num_memory_tokens": 16)");
  const std::string e = error_of(json);
  EXPECT_NE(e.find("num_memory_tokens: unknown field"), std::string::npos) << e;
}

TEST(HfConfig, UnsupportedVariantValuesAreErrors) {
  std::string json = kLlama;
  json.replace(json.find("\"silu\""), 6, "\"gelu\"");
  EXPECT_NE(error_of(json).find("hidden_act: unsupported value"), std::string::npos);
  const std::string qwen = R"({"model_type": "qwen2", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 10, "use_sliding_window": true})";
  EXPECT_NE(error_of(qwen).find("use_sliding_window"), std::string::npos);
}

// Llama-3.1 configs carry "mlp_bias": false and "attention_bias": false (were rejected: mlp_bias
// was an unknown field). mlp_bias: true selects FFN biases that are not modelled: an error.
// attention_bias: true (biases on q, k, v and o) is read into the parameter count; the cost
// model names it as not represented rather than costing the model without it.
TEST(HfConfig, Llama31BiasFlagsFalseLoadMlpBiasTrueIsAnError) {
  std::string json = kLlama;
  json.insert(json.size() - 1, R"(, "mlp_bias": false, "attention_bias": false)");
  const Transformer m = parse(json);
  EXPECT_FALSE(m.attention.qkv_bias);
  EXPECT_EQ(m.layers.size(), 3u);
  std::string bad = kLlama;
  bad.insert(bad.size() - 1, R"(, "mlp_bias": true)");
  const std::string e = error_of(bad);
  EXPECT_NE(e.find("mlp_bias: unsupported value (only false is modelled"), std::string::npos) << e;
  EXPECT_NE(e.find("config.json:"), std::string::npos) << e;
  std::string biased = kLlama;
  biased.insert(biased.size() - 1, R"(, "attention_bias": true)");
  const Transformer b = parse(biased);
  EXPECT_TRUE(b.attention.qkv_bias && b.attention.o_bias);
  EXPECT_EQ(unmodelled_cost_feature(b), "attention_bias (biases on q, k, v and o)");
}

TEST(HfConfig, UnknownLayerKindAndQuantizationAreErrorsNamingTheKey) {
  std::string json = kLlama;
  json.insert(json.size() - 1,
              R"(, "layer_types": ["full_attention", "sliding_attention", "full_attention"])");
  EXPECT_NE(error_of(json).find("layer_types[1]: unsupported layer kind 'sliding_attention'"),
            std::string::npos)
      << error_of(json);
  json = kLlama;
  json.insert(json.size() - 1, R"(, "quantization_config": {"quant_method": "awq", "bits": 4})");
  EXPECT_NE(error_of(json).find("quantization_config.quant_method: unsupported quantization 'awq'"),
            std::string::npos)
      << error_of(json);
  json = kLlama;
  json.insert(json.size() - 1,
              R"(, "quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
              "weight_block_size": [128, 128], "group_size": 64})");
  EXPECT_NE(error_of(json).find("quantization_config.group_size: unknown field"), std::string::npos)
      << error_of(json);
}

TEST(HfConfig, CheckpointBytesFollowTorchDtypeAndQuantization) {
  const double total = count_parameters(parse(kLlama)).total;
  EXPECT_DOUBLE_EQ(count_parameters(parse(kLlama)).checkpoint_bytes, 2 * total);
  std::string fp32 = kLlama;
  fp32.insert(fp32.size() - 1, R"(, "torch_dtype": "float32")");
  const Transformer m = parse(fp32);
  EXPECT_EQ(m.checkpoint.method, "float32");
  EXPECT_DOUBLE_EQ(count_parameters(m).checkpoint_bytes, 4 * total);
  ASSERT_EQ(m.ignored_fields.size(), 2u);  // torch_dtype is still listed as metadata
}

// Mistral-7B-v0.1-style sliding_window applies to every layer; Qwen3-Next's layer_types must
// list every layer.
TEST(HfConfig, MistralSlidingWindowAndLayerTypesLength) {
  std::string mistral = kLlama;
  mistral.replace(mistral.find("\"llama\""), 7, "\"mistral\"");
  mistral.insert(mistral.size() - 1, R"(, "sliding_window": 4096)");
  const Transformer m = parse(mistral);
  for (const LayerShape& l : m.layers) EXPECT_EQ(l.sliding_window, 4096);
  EXPECT_EQ(unmodelled_cost_feature(m), "sliding_window (sliding-window attention layers)");
  std::string qwen = R"({"model_type": "qwen3_next", "hidden_size": 64, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 10, "head_dim": 16,
    "linear_num_key_heads": 2, "linear_num_value_heads": 4, "linear_key_head_dim": 8,
    "linear_value_head_dim": 8, "linear_conv_kernel_dim": 4, "hidden_act": "silu",
    "layer_types": ["linear_attention"]})";
  EXPECT_NE(error_of(qwen).find("layer_types: expected a list of num_hidden_layers = 2"),
            std::string::npos)
      << error_of(qwen);
}

TEST(HfConfig, MalformedValuesNameTheField) {
  std::string json = kLlama;
  json.replace(json.find("\"vocab_size\": 100"), 17, "\"vocab_size\": \"lots\"");
  EXPECT_NE(error_of(json).find("vocab_size: expected an integer, got 'lots'"), std::string::npos);
  json = kLlama;
  json.replace(json.find("\"num_key_value_heads\": 2"), 24, "\"num_key_value_heads\": 3");
  EXPECT_NE(error_of(json).find("not a multiple of num_key_value_heads 3"), std::string::npos);
}

TEST(HfConfig, DeepSeekDenseThenMoePatternAndMla) {
  const Transformer m =
      load_hf_config(std::string(LIGHTSIM_SOURCE_DIR) + "/configs/models/deepseek_v3.json");
  EXPECT_EQ(m.attention.kind, AttentionKind::mla);
  EXPECT_EQ(m.layers.size(), 61u);
  EXPECT_FALSE(m.layers[2].moe);
  EXPECT_TRUE(m.layers[3].moe);
  EXPECT_EQ(m.moe_layer_count(), 58);
  EXPECT_EQ(m.moe.groups, 8);
  EXPECT_EQ(m.moe.groups_per_token, 4);
  EXPECT_TRUE(m.moe.router_bias);
  EXPECT_EQ(m.mtp_layers, 1);
}

TEST(HfConfig, Llama4InterleavesMoeAndLocalGlobalAttention) {
  const Transformer m =
      load_hf_config(std::string(LIGHTSIM_SOURCE_DIR) + "/configs/models/llama4_maverick.json");
  EXPECT_FALSE(m.layers[0].moe);
  EXPECT_TRUE(m.layers[1].moe);
  EXPECT_EQ(m.layers[0].attention_window, 8192);
  EXPECT_EQ(m.layers[3].attention_window, 0);  // every 4th layer: global NoPE attention
  EXPECT_EQ(m.moe.shared_experts, 1);
  bool vision_listed = false;
  for (const auto& f : m.ignored_fields)
    vision_listed |= f.find("vision_config") != std::string::npos;
  EXPECT_TRUE(vision_listed);
}

TEST(HfConfig, TooManyExpertsPerTokenIsRejected) {
  const std::string e = error_of(R"({"model_type": "qwen3_moe", "hidden_size": 64,
    "intermediate_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 10,
    "num_experts": 4, "num_experts_per_tok": 8, "moe_intermediate_size": 32})");
  EXPECT_NE(e.find("num_experts_per_tok 8 exceeds the 4 routed experts"), std::string::npos) << e;
}

}  // namespace
}  // namespace lightsim::model

// Parameter counts computed from the shipped config.json files against published totals.
#include <gtest/gtest.h>

#include "lightsim/model/params.h"

namespace lightsim::model {
namespace {

Transformer load_model(const char* name) {
  return load_hf_config(std::filesystem::path(LIGHTSIM_SOURCE_DIR) / "configs/models" / name);
}

TEST(Params, DeepSeekV3MatchesPublished671BTotal37BActive) {
  const ParameterCount c = count_parameters(load_model("deepseek_v3.json"));
  EXPECT_NEAR(c.total / 671e9, 1.0, 0.02) << c.total;
  EXPECT_NEAR(c.active / 37e9, 1.0, 0.02) << c.active;
  // The MTP module (published: 14B) is reported apart; 671B + 14B = 685B on Hugging Face.
  EXPECT_NEAR(c.mtp / 14e9, 1.0, 0.05) << c.mtp;
}

TEST(Params, DeepSeekR1HasTheV3Shape) {
  EXPECT_DOUBLE_EQ(count_parameters(load_model("deepseek_r1.json")).total,
                   count_parameters(load_model("deepseek_v3.json")).total);
}

TEST(Params, KimiK2MatchesPublished1TTotal32BActive) {
  const ParameterCount c = count_parameters(load_model("kimi_k2.json"));
  EXPECT_NEAR(c.total / 1.04e12, 1.0, 0.02) << c.total;
  EXPECT_NEAR(c.active / 32e9, 1.0, 0.03) << c.active;
}

TEST(Params, Qwen3MoeMatchesPublished235BTotal22BActive) {
  const ParameterCount c = count_parameters(load_model("qwen3_235b_a22b.json"));
  EXPECT_NEAR(c.total / 235e9, 1.0, 0.02) << c.total;
  EXPECT_NEAR(c.active / 22e9, 1.0, 0.02) << c.active;
}

TEST(Params, Qwen25With7p61BParameters) {
  const ParameterCount c = count_parameters(load_model("qwen2_5_7b.json"));
  EXPECT_NEAR(c.total / 7.61e9, 1.0, 0.005) << c.total;
  EXPECT_DOUBLE_EQ(c.total, c.active);
}

TEST(Params, Llama3With8p03BParameters) {
  EXPECT_NEAR(count_parameters(load_model("llama3_8b.json")).total / 8.03e9, 1.0, 0.005);
}

TEST(Params, Llama4MaverickMatchesPublished400BTotal17BActive) {
  const Transformer m = load_model("llama4_maverick.json");
  EXPECT_EQ(m.moe_layer_count(), 24);
  const ParameterCount c = count_parameters(m);
  EXPECT_NEAR(c.total / 400e9, 1.0, 0.03) << c.total;
  EXPECT_NEAR(c.active / 17e9, 1.0, 0.05) << c.active;
}

TEST(Params, SeedVariantHits840BTotal42BActive) {
  const ParameterCount c = count_parameters(load_model("seed_r1_840b_a42b.json"));
  EXPECT_NEAR(c.total / 840e9, 1.0, 0.01) << c.total;
  EXPECT_NEAR(c.active / 42e9, 1.0, 0.01) << c.active;
}

TEST(Params, MlaCachesTheLatentAndRopeKey576ValuesPerTokenPerLayer) {
  const Transformer m = load_model("deepseek_v3.json");
  EXPECT_EQ(kv_values_per_token_per_layer(m), 576);
  DTypePolicy fp8;
  fp8.kv_cache = DType::fp8;
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, fp8), 576.0 * 61);
}

TEST(Params, GqaCachesKeysAndValuesOfEachKvHead) {
  const Transformer m = load_model("llama3_8b.json");
  EXPECT_EQ(kv_values_per_token_per_layer(m), 2 * 8 * 128);
  EXPECT_DOUBLE_EQ(kv_bytes_per_token(m, DTypePolicy{}), 2.0 * 2 * 8 * 128 * 32);  // 128 KiB
}

TEST(Params, TiedEmbeddingsDropTheLmHead) {
  Transformer m = load_model("qwen2_5_7b.json");
  const double untied = count_parameters(m).total;
  m.tied_embeddings = true;
  EXPECT_DOUBLE_EQ(untied - count_parameters(m).total, 152064.0 * 3584);
}

}  // namespace
}  // namespace lightsim::model

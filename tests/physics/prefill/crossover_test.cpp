// Attention-vs-FFN crossover against its closed form (docs/prefill.md, "Questions").
#include <gtest/gtest.h>

#include "../../unit/prefill/prefill_support.h"
#include "lightsim/prefill/questions.h"

namespace lightsim::prefill {
namespace {

TEST(Crossover, DenseGqaMatchesClosedForm) {
  // Llama-3-8B: per token and layer, FFN 2 x 3 h I FLOPs (+ 5 I activation); attention
  // (S + 1) / 2 causal keys per query x (4 H d + 5 H). Crossover where they are equal.
  const auto m = testing::model("llama3_8b");
  const model::DTypePolicy bf16;
  const double h = 4096, I = 14336, H = 32, d = 128;
  const double closed = 2 * (6 * h * I + 5 * I) / (4 * H * d + 5 * H) - 1;
  const std::int64_t s = attention_crossover(m, bf16);
  EXPECT_NEAR(static_cast<double>(s), closed, 2.0) << closed;
  const AttentionShare below = attention_share(m, bf16, s - 1);
  const AttentionShare above = attention_share(m, bf16, s);
  EXPECT_LE(below.attention, below.feed_forward);
  EXPECT_GT(above.attention, above.feed_forward);
}

}  // namespace
}  // namespace lightsim::prefill

// Questions the seed raises, answered from the cost analysis (docs/prefill.md, "Questions").
#pragma once

#include <cstdint>

#include "lightsim/model/cost.h"

namespace lightsim::prefill {

// FLOPs of one prefill of `tokens` tokens split as the seed compares them: attention
// products (score, softmax, value: the quadratic term) against the feed-forward layers
// (dense FFN, routed and shared experts).
struct AttentionShare {
  double attention = 0;     // FLOPs of the attention products
  double feed_forward = 0;  // FLOPs of FFN / expert matmuls and their activation
};
AttentionShare attention_share(const model::Transformer& model, const model::DTypePolicy& dtypes,
                               std::int64_t tokens);

// Shortest prompt (tokens) whose attention products take more FLOPs than its feed-forward
// layers; -1 when none up to 2^26 tokens. Bisection on the monotone ratio.
std::int64_t attention_crossover(const model::Transformer& model, const model::DTypePolicy& dtypes);

}  // namespace lightsim::prefill

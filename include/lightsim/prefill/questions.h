// Questions the seed raises, answered from the cost analysis (docs/prefill.md, "Questions").
#pragma once

#include <cstdint>
#include <string>

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

#include "lightsim/prefill/search.h"

namespace lightsim::prefill {

// A mixed workload of two request shapes (e.g. 8K and 128K prompts) on `gpus` GPUs, served
// (static) by two fixed partitions of the GPUs, each with its own best plan, running at the
// same time; or (dynamic, the seed's DP/CP switching) by all GPUs in turn, the long requests
// first with a context-parallel plan, then the short ones with their best plan.
struct MixedResult {
  std::int64_t static_short_gpus = 0, static_long_gpus = 0;  // best split
  double static_makespan_s = 0;                              // max of the two partitions' latencies
  double static_long_ttft_s = 0;
  double dynamic_makespan_s = 0;  // sum of the two phases on all GPUs
  double dynamic_long_ttft_s = 0;
  std::int64_t searches = 0;
  bool feasible = false;
  std::string reason;
};
// Partitions are multiples of `step` GPUs (e.g. the innermost domain).
MixedResult static_vs_dynamic(const Evaluator& short_requests, const Evaluator& long_requests,
                              std::int64_t gpus, std::int64_t step);

}  // namespace lightsim::prefill

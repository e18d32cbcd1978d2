// The parallel plans of a serving pool (docs/serving.md, "Plans of a pool"): the prefill and
// decode-at-scale setups the roofline step model times a pool with (roofline.h), and the plan
// of each pool chosen by the modules' own plan searches instead of stated:
//
//  - prefill: prefill::search (prefill/search.h) over the instance's GPUs for the latency of
//    one prompt of `prompt` tokens (the pool's TTFT term: a serve instance prefills one prompt
//    of the step's tokens at a time), the HBM check on, among the plans that can also prefill
//    a chunk of kSmallestPrompt tokens (the step model's smallest grid point);
//  - decode: decode::search (decode/plan_search.h) over the instance's GPUs at `context` keys
//    under the scenario's TPOT target: the plan with the highest tokens/s per GPU at the
//    largest batch meeting the target; that batch is the instance's max_batch.
//
// Both searches are exhaustive over their modules' stated enumeration rules; the counts of
// candidates and evaluations are reported beside the chosen plan.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "lightsim/decode/scale.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prefill/scenario.h"
#include "lightsim/serve/scenario.h"

namespace lightsim::serve {

// Tokens of the smallest prompt the roofline step model times (roofline.cpp: T(n < 2) is
// T(2) n / 2, as the prefill Evaluator needs two zig-zag chunks per sequence).
inline constexpr std::int64_t kSmallestPrompt = 2;

// The prefill scenario a pool's prompts are timed with: the serving scenario's model, formats
// and HBM share, one request, sequence_length left to the caller.
prefill::ScenarioSpec prefill_scenario_of(const ScenarioSpec& scenario);
// The decode-at-scale setup of `gpus` GPUs of `fabric` (plain decode, balanced experts, no
// two-batch overlap; the scenario's model, formats and HBM share).
decode::ScaleSetup scale_setup_of(const ScenarioSpec& scenario, const model::Transformer& model,
                                  const config::Ref<fabric::FabricSpec>& fabric, std::int64_t gpus);

struct PrefillPlanChoice {
  std::string plan;            // prefill/plan.h text of the best plan
  std::int64_t evaluated = 0;  // candidates evaluated (the enumeration's count)
  std::int64_t feasible = 0;   // candidates that fit and run, at both prompt lengths
  double latency = 0;          // s, one prompt of `prompt` tokens on the best plan
};

struct DecodePlanChoice {
  std::string plan;            // decode/plan.h text of the best plan
  std::int64_t batch = 0;      // instance batch of the best plan at the target
  std::int64_t plans = 0;      // plans enumerated
  std::int64_t evaluated = 0;  // step evaluations (plans x batches of the bisection)
  std::int64_t feasible = 0;   // plans meeting the target at some batch
  double tpot = 0;             // s per output token at that batch and context
  double tokens_per_s_per_gpu = 0;
};

// The lowest-latency prefill plan of `gpus` GPUs for one `prompt`-token prompt. ConfigError
// naming `where` when no plan fits.
PrefillPlanChoice choose_prefill_plan(const ScenarioSpec& scenario, const model::Transformer& model,
                                      const config::Ref<fabric::FabricSpec>& fabric,
                                      std::int64_t gpus, std::int64_t prompt,
                                      std::string_view where,
                                      const std::atomic<bool>* cancel = nullptr);
// The decode plan of `gpus` GPUs with the most tokens/s per GPU at `context` keys under
// scenario.slo.tpot. ConfigError naming `where` when no plan meets the target.
DecodePlanChoice choose_decode_plan(const ScenarioSpec& scenario, const model::Transformer& model,
                                    const config::Ref<fabric::FabricSpec>& fabric,
                                    std::int64_t gpus, std::int64_t context,
                                    std::string_view where);

}  // namespace lightsim::serve

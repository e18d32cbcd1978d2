// Plan search for decode under a TPOT target (docs/decode.md, "Plan search"): every plan of a
// GPU count that passes the enumeration rules, each at the largest batch that fits in HBM and
// meets the target; the best tokens/s per GPU wins.
//
// Enumeration (exhaustive over these sets, in the shapes of the prefill plan search):
//  - TP: powers of two dividing the head count, at most the innermost domain;
//  - PP: powers of two dividing GPUs / TP, at most 16 and the layer count;
//  - DPA = GPUs / (TP x PP);
//  - MoE models: EP = the largest divisor of W = TP x DPA not above the expert slots, and the
//    largest one that also fits the innermost domain (experts replicated W / EP times); with
//    TP > 1 also MOE=tp (EP = TP). Dense models: EP = 1;
//  - batch (the scenario's when set, else searched): sequences per attention group b, from 1
//    to what fits; the step time grows with b, so the largest b meeting the target is found by
//    bisection and the instance batch is b x DPA x PP.
#pragma once

#include <cstdint>
#include <vector>

#include "lightsim/decode/scale.h"

namespace lightsim::decode {

struct DecodeSearchResult {
  std::int64_t gpus = 0;
  double tpot_target = 0;          // s
  std::int64_t plans = 0;          // plans enumerated
  std::int64_t evaluated = 0;      // step evaluations (plans x batches tried)
  std::int64_t feasible = 0;       // plans meeting the target at some batch
  StepBreakdown best;              // best.feasible == false when no plan meets the target
  std::vector<StepBreakdown> top;  // the best plans, best first
};

std::vector<DecodePlan> enumerate_plans(const StepEvaluator& ev, std::int64_t gpus);
// The best plan of `gpus` GPUs at `context` under `tpot_target` seconds; `batch` > 0 fixes the
// instance batch. Keeps the `top` best plans.
DecodeSearchResult search(const StepEvaluator& ev, std::int64_t gpus, std::int64_t context,
                          double tpot_target, std::int64_t batch, std::int64_t top);

}  // namespace lightsim::decode

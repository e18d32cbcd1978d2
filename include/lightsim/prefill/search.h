// Plan search (docs/prefill.md, "Plan search"): every plan of a GPU count that passes the
// enumeration rules is evaluated; the best by batch latency wins.
//
// Enumeration (exhaustive over these sets; the pruning rules are stated, not heuristics):
//  - TP: powers of two dividing the head count and at most the innermost domain (TP across
//    a slower tier is never better: its all-reduce is on the critical path, unhidden);
//  - CP: every divisor of the GPU count with at least two tokens per rank chunk; for CP > 1
//    each of the four algorithms;
//  - stage width W = EP x EDP: every multiple of TP x CP dividing GPUs / PP (attention-DP
//    fills the rest); EP: the largest divisor of W not above the expert slots, and the
//    largest one that also fits the innermost domain (experts replicated EDP = W / EP times;
//    other EP values only trade expert weights per GPU against all-to-all reach);
//  - PP: powers of two dividing the GPU count, at most 16 and the layer count, with PP, 2 PP
//    and 4 PP micro-batches (PP = 1: one micro-batch);
//  - DP = GPUs / (W x PP).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "lightsim/prefill/evaluate.h"

namespace lightsim::prefill {

struct SearchResult {
  std::int64_t gpus = 0;
  std::int64_t evaluated = 0;  // plans evaluated (valid or not)
  std::int64_t feasible = 0;   // plans that fit and run
  double seconds = 0;          // wall time of the search
  Result best;                 // best.feasible == false when no plan fits (reason of the last)
  // The `top` best feasible plans by ascending latency, plans of equal latency in enumeration
  // order (best is top.front() when any plan fits).
  std::vector<Result> top;
};

// Candidate plans of `gpus` GPUs under the rules above (a list: for the tests and small
// counts; search() streams them, as a count with many divisors has ~10^7 candidates).
std::vector<Plan> enumerate_plans(const Evaluator& evaluator, std::int64_t gpus);
// Evaluates every candidate once as it is enumerated (no candidate list, so memory is the
// `top` kept results whatever the count), keeping the best and the `top` best. `cancel`
// (SIGINT/SIGTERM's flag, may be null) is polled every 256 candidates: Interrupted.
SearchResult search(const Evaluator& evaluator, std::int64_t gpus, std::size_t top = 0,
                    const std::atomic<bool>* cancel = nullptr);

// Pareto front of best latency vs GPU count: indices of `results` (ascending GPUs) whose
// latency is lower than that of every smaller GPU count.
std::vector<std::size_t> pareto_front(const std::vector<SearchResult>& results);

}  // namespace lightsim::prefill

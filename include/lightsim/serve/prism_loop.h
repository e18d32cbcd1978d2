// What Prism in the loop gives a serving run (docs/serving.md, "Prism in the loop"): the decode
// step with and without Prism-selected blocks at the run's operating point (the decode pool's
// mean batch and the token-weighted mean decode context of the completed requests), the KV
// traffic and power of both, and the retrieval quality of the selection at that context on the
// scenario's KV profile, so that a speed-up is never reported without its accuracy cost.
#pragma once

#include <cstdint>
#include <string>

#include "lightsim/core/context.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/decode/step.h"
#include "lightsim/serve/run.h"

namespace lightsim::serve {

struct PrismLoopReport {
  std::string accelerator;  // its description
  std::int64_t top_k = 0, block_tokens = 0, sink_tokens = 0, recent_tokens = 0;
  std::int64_t batch = 0;    // the decode pool's mean decode batch, rounded (>= 1)
  std::int64_t context = 0;  // tokens: token-weighted mean decode context of completed requests
  decode::StepReport full, prism;   // one decode step at (batch, context)
  double speedup = 0;               // full step time / Prism step time
  double kv_traffic_reduction = 0;  // KV bytes read per step, full / Prism
  // Retrieval quality at quality_context (the context above unless the scenario fixes it):
  // Recall@top_k against full attention's top-k blocks (mean, 95% half-width), the attention
  // mass the selected blocks hold over the top-k's, needle hits; `trivial` when the always-read
  // tokens or the candidate blocks cover the context (every block is read: recall 1).
  std::int64_t quality_context = 0;
  std::int64_t candidates = 0;  // blocks Prism chooses among (sinks and recent window excluded)
  bool trivial = false;
  double recall = 0, recall_ci95 = 0, mass_recall = 0, needle_hit = 0;
};

// Figures of a run whose scenario has prism.enabled (the report of serve::run(setup)).
// Deterministic for ctx's seed and any thread count.
PrismLoopReport evaluate_prism_loop(const ServeSetup& setup, const ServeReport& report,
                                    const config::LoadOptions& load, Context& ctx);

Json to_json(const PrismLoopReport& r);

}  // namespace lightsim::serve

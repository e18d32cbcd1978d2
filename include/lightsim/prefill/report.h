// Structured output of prefill results: JSON documents with ttft_s, latency_s,
// tokens_per_s_per_gpu, mfu, plan and breakdown (docs/prefill.md, "Outputs").
#pragma once

#include "lightsim/core/json_fwd.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/search.h"

namespace lightsim::prefill {

// One evaluated plan. Infeasible: {"feasible": false, "reason": ..., "plan": ...}.
Json result_json(const Result& result, const fabric::Topology& topology);
// A search: gpus, evaluated, feasible, seconds, best (result_json).
// The search's counts and best plan. Its wall time (SearchResult::seconds) is left out: it is
// not a result, and JSON results are identical run to run.
Json search_json(const SearchResult& search, const fabric::Topology& topology);

}  // namespace lightsim::prefill

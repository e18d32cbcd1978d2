// Expert load distribution and the most loaded EP rank (docs/prefill.md, "Routing skew").
#pragma once

#include <cstdint>
#include <vector>

#include "lightsim/prefill/scenario.h"

namespace lightsim::prefill::detail {

// Share of routed token-slots each expert receives (sums to 1), hottest first for zipf.
// Throws ConfigError when a histogram has the wrong length or sums to zero.
std::vector<double> expert_loads(const RoutingSpec& routing, std::int64_t experts);

// The largest share of routed token-slots any of `ep` ranks receives, after giving the
// `redundant` extra replicas to the experts with the highest load per replica (each replica
// takes an equal part of its expert's load) and placing the replicas by `placement`.
double max_rank_share(const std::vector<double>& loads, std::int64_t redundant,
                      ExpertPlacement placement, std::int64_t ep);

}  // namespace lightsim::prefill::detail

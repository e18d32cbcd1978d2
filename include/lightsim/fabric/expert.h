// MoE expert dispatch and combine as DeepEP runs them (docs/fabric.md, "Expert all-to-all
// (DeepEP)"): normal kernels (prefill, training) send one copy per distinct destination rank,
// crossing nodes once per destination node over RDMA and forwarding inside the node over
// NVLink, with node-limited routing; low-latency kernels (decode) send one message per
// (token, expert) pair, to the node's own ranks over NVLink and to the others over RDMA, after
// a fixed per-call cost.
#pragma once

#include <cstdint>
#include <string>

#include "lightsim/fabric/topology.h"

namespace lightsim::fabric {

enum class ExpertMode { normal, low_latency };

struct ExpertExchange {
  ExpertMode mode = ExpertMode::normal;
  std::int64_t ranks = 0;        // EP size
  double tokens = 0;             // tokens each rank sends (dispatch) or gets back (combine)
  double experts_per_token = 0;  // top-k
  double token_bytes = 0;        // bytes of one token's hidden state in the transfer's format
  std::int64_t max_nodes = 0;    // node-limited routing: nodes a token may reach; 0 = any
};

struct ExpertResult {
  bool feasible = false;
  std::string reason;
  double time = 0;             // s
  double scale_up_bytes = 0;   // per rank, on the innermost tier
  double scale_out_bytes = 0;  // per rank, leaving the node
  // DeepEP's reported figures: normal kernels divide the bytes of the bottleneck tier (NVLink
  // intranode, RDMA internode, the latter counting one copy per destination node including
  // the rank's own) by the time; low-latency kernels divide all bytes sent by the time.
  double reported_bandwidth = 0;  // B/s
  int bounding_tier = -1;
};

// One dispatch or combine on `topology` (contiguous ranks; the innermost tier is the node).
// Infeasible (with the reason) when the group does not fit or an input is not positive.
ExpertResult expert_exchange(const Topology& topology, const ExpertExchange& exchange);

}  // namespace lightsim::fabric

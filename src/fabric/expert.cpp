// DeepEP dispatch and combine (expert.h). Formulas and sources: docs/fabric.md, "Expert
// all-to-all (DeepEP)".
#include "lightsim/fabric/expert.h"

#include <algorithm>
#include <cmath>

namespace lightsim::fabric {
namespace {

// Expected distinct bins hit by k uniform draws over `bins` (with replacement).
double distinct(double bins, double k) {
  return bins * (1 - std::pow(1 - 1 / bins, k));
}

}  // namespace

ExpertResult expert_exchange(const Topology& t, const ExpertExchange& x) {
  ExpertResult r;
  if (x.ranks < 2 || !(x.tokens > 0) || !(x.experts_per_token > 0) || !(x.token_bytes > 0)) {
    r.reason = fmt::format(
        "an expert exchange needs at least 2 ranks and positive tokens, top-k and token bytes "
        "(got {} ranks, {} tokens, top-{}, {} B)",
        x.ranks, x.tokens, x.experts_per_token, x.token_bytes);
    return r;
  }
  if (t.tiers.empty() || x.ranks > t.capacity()) {
    r.reason = fmt::format("fabric '{}' holds at most {} GPUs; EP{} does not fit", t.name,
                           t.capacity(), x.ranks);
    return r;
  }
  std::size_t k = 0;  // the tier that joins the nodes of the group
  while (t.tiers[k].domain_size < x.ranks) ++k;
  const Tier& node = t.tiers[0];
  const Tier& net = t.tiers[k];
  const double ep = static_cast<double>(x.ranks);
  const double g = std::min(ep, static_cast<double>(node.domain_size));  // ranks per node
  const double m = std::ceil(ep / g);                                    // nodes
  const double topk = x.experts_per_token;
  const double b_node = node.bandwidth * node.efficiency;
  const double b_net = net.bandwidth * net.efficiency;

  if (x.mode == ExpertMode::low_latency) {
    // One message per (token, expert): the node's other ranks over NVLink, the rest over
    // RDMA, in parallel, after the fixed per-call cost.
    const double total = x.tokens * topk * x.token_bytes;
    r.scale_up_bytes = total * (g - 1) / ep;
    r.scale_out_bytes = total * (ep - g) / ep;
    const double up = r.scale_up_bytes / b_node, out = k > 0 ? r.scale_out_bytes / b_net : 0.0;
    r.bounding_tier = out > up ? static_cast<int>(k) : 0;
    r.time = t.expert_low_latency_overhead + std::max(up, out);
    r.reported_bandwidth = total / r.time;
  } else {
    // Normal kernels: node-limited routing picks M' = min(M, m) nodes, the k experts fall on
    // u = M'(1 - (1 - 1/M')^k) of them and on R = M'g(1 - (1 - 1/(M'g))^k) distinct ranks.
    // A token crosses to each remote destination node once (RDMA, u (m-1)/m copies) and every
    // destination rank but the sender gets its copy over NVLink (directly or forwarded from
    // the RDMA receiver): R (ep-1)/ep copies. The two overlap.
    const double nodes = x.max_nodes > 0 ? std::min(static_cast<double>(x.max_nodes), m) : m;
    const double u = distinct(nodes, topk);
    const double ranks = distinct(nodes * g, topk);
    r.scale_up_bytes = x.tokens * ranks * (ep - 1) / ep * x.token_bytes;
    r.scale_out_bytes = k > 0 ? x.tokens * u * (m - 1) / m * x.token_bytes : 0.0;
    const double up = r.scale_up_bytes / b_node, out = k > 0 ? r.scale_out_bytes / b_net : 0.0;
    r.bounding_tier = out > up ? static_cast<int>(k) : 0;
    r.time = std::max(node.alpha, k > 0 ? net.alpha : 0.0) + std::max(up, out);
    // DeepEP reports NVLink bytes intranode and, internode, RDMA bytes counted per
    // destination node including the sender's own.
    r.reported_bandwidth = (k > 0 ? x.tokens * u * x.token_bytes : r.scale_up_bytes) / r.time;
  }
  r.feasible = true;
  return r;
}

}  // namespace lightsim::fabric

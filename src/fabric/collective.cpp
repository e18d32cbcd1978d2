// Alpha-beta collective cost models (collective.h). Formulas and sources: docs/fabric.md.
// Contiguous placement: n GPUs occupy ceil(n / D_j) domains of each tier j; tier k0 (the
// innermost whose domain holds all n) is the outermost tier the group crosses.
#include "lightsim/fabric/collective.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lightsim::fabric {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Eval {
  double time = kInf;
  int bound = -1;
  bool ok() const { return time < kInf; }
};

struct Range {
  double bw = kInf;  // slowest effective per-GPU bandwidth among tiers [lo, hi]
  double alpha = 0;  // largest per-step latency among them
  int bound = -1;
  bool in_switch = true;  // every tier reduces in the switch
  double switch_bw = kInf;
};

Range range_of(const Topology& t, int lo, int hi) {
  Range r;
  for (int j = lo; j <= hi; ++j) {
    const Tier& tier = t.tiers[static_cast<std::size_t>(j)];
    const double bw = tier.bandwidth * tier.efficiency;
    if (bw < r.bw) {
      r.bw = bw;
      r.bound = j;
    }
    r.alpha = std::max(r.alpha, tier.alpha);
    r.in_switch = r.in_switch && tier.in_switch;
    r.switch_bw = std::min(r.switch_bw, tier.bandwidth * tier.in_switch_efficiency);
  }
  return r;
}

// Ring of n GPUs: `steps` steps each moving `bytes / n` per GPU (Patarasuk & Yuan 2009).
Eval ring(const Range& r, double n, double steps, double bytes) {
  return {steps * (r.alpha + bytes / n / r.bw), r.bound};
}

// Pipelined (double binary) tree all-reduce: reduce up then broadcast down, 2 log2(n) latency
// steps, every GPU sends and receives the buffer twice (NCCL tree; Sanders et al. 2009).
Eval tree(const Range& r, double n, double bytes) {
  return {2 * std::ceil(std::log2(n)) * r.alpha + 2 * bytes / r.bw, r.bound};
}

// In-switch (NVLS-like): each GPU pushes its buffer once into the switch, which reduces and
// multicasts; all-reduce = 2 latency steps + bytes / bw.
Eval in_switch(const Range& r, CollectiveOp op, double bytes) {
  if (!r.in_switch) return {};
  const double steps = op == CollectiveOp::all_reduce ? 2.0 : 1.0;
  return {steps * r.alpha + bytes / r.switch_bw, r.bound};
}

Eval flat(const Topology& t, CollectiveOp op, Algorithm a, double n, double bytes, int lo, int hi) {
  const Range r = range_of(t, lo, hi);
  const bool ar = op == CollectiveOp::all_reduce;
  switch (a) {
    case Algorithm::ring:
      return ring(r, n, ar ? 2 * (n - 1) : n - 1, bytes);
    // NCCL builds trees across nodes only (a chain inside each); so tree needs a group
    // spanning more than one tier-0 domain.
    case Algorithm::tree:
      return ar && hi >= 1 ? tree(r, n, bytes) : Eval{};
    case Algorithm::in_switch:
      return in_switch(r, op, bytes);
    default:
      return {};
  }
}

// Best flat algorithm among ring, tree, in-switch for a reduction-type op on tiers [lo, hi].
Eval best_flat(const Topology& t, CollectiveOp op, double n, double bytes, int lo, int hi) {
  if (n <= 1) return {0.0, lo};
  Eval best;
  for (Algorithm a : {Algorithm::ring, Algorithm::tree, Algorithm::in_switch}) {
    const Eval e = flat(t, op, a, n, bytes, lo, hi);
    if (e.time < best.time) best = e;
  }
  return best;
}

// Two levels: inside each tier-0 domain (m0 GPUs), then across the m domains over tiers
// 1..k0 with every GPU of a domain driving its own 1/m0 share in parallel.
Eval hierarchical(const Topology& t, CollectiveOp op, double n, double bytes, int k0) {
  if (k0 < 1) return {};
  const double m0 = std::min(n, static_cast<double>(t.tiers[0].domain_size));
  const double m = std::ceil(n / m0);
  Eval inner{0.0, 0}, outer;
  if (op == CollectiveOp::all_reduce) {
    const Eval rs = best_flat(t, CollectiveOp::reduce_scatter, m0, bytes, 0, 0);
    const Eval ag = best_flat(t, CollectiveOp::all_gather, m0, bytes, 0, 0);
    inner = {rs.time + ag.time, 0};
    outer = best_flat(t, CollectiveOp::all_reduce, m, bytes / m0, 1, k0);
  } else if (op == CollectiveOp::reduce_scatter || op == CollectiveOp::all_gather) {
    inner = best_flat(t, op, m0, bytes, 0, 0);
    outer = best_flat(t, op, m, bytes / m0, 1, k0);
  } else {
    return {};
  }
  if (!inner.ok() || !outer.ok()) return {};
  return {inner.time + outer.time, outer.time >= inner.time ? outer.bound : inner.bound};
}

// Direct all-to-all: a GPU sends bytes/n to each of the n group members; the share bound for
// peers first reached at tier j crosses tier j. Time = slowest tier's share / bandwidth.
Eval direct_all_to_all(const Topology& t, double n, double bytes, int k0) {
  Eval e{0.0, 0};
  double alpha = 0, inner = 1;  // group members inside the previous tier's domain (self)
  for (int j = 0; j <= k0; ++j) {
    const Tier& tier = t.tiers[static_cast<std::size_t>(j)];
    const double members = std::min(n, static_cast<double>(tier.domain_size));
    const double share = bytes * (members - inner) / n;
    const double time = share / (tier.bandwidth * tier.efficiency);
    if (time > e.time) e = {time, j};
    alpha = std::max(alpha, tier.alpha);
    inner = members;
  }
  e.time += alpha;
  return e;
}

Eval evaluate(const Topology& t, CollectiveOp op, Algorithm a, double n, double bytes, int k0) {
  if (op == CollectiveOp::all_to_all)
    return a == Algorithm::direct ? direct_all_to_all(t, n, bytes, k0) : Eval{};
  if (op == CollectiveOp::send_recv) {
    if (a != Algorithm::direct) return {};
    const Tier& tier = t.tiers[static_cast<std::size_t>(k0)];
    return {tier.alpha + bytes / (tier.bandwidth * tier.efficiency), k0};
  }
  if (a == Algorithm::hierarchical) return hierarchical(t, op, n, bytes, k0);
  return flat(t, op, a, n, bytes, 0, k0);
}

}  // namespace

double bus_factor(CollectiveOp op, std::int64_t gpus) {
  const double n = static_cast<double>(gpus);
  switch (op) {
    case CollectiveOp::all_reduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::send_recv:
      return 1.0;
    default:
      return (n - 1) / n;
  }
}

CollectiveResult collective(const Topology& t, CollectiveOp op, std::int64_t gpus, double bytes,
                            Algorithm algorithm) {
  CollectiveResult r;
  if (gpus < 2 || !(bytes > 0)) {
    r.reason = fmt::format(
        "a collective needs at least 2 GPUs and a positive size (got {} GPUs, "
        "{} B)",
        gpus, bytes);
    return r;
  }
  int k0 = -1;
  for (std::size_t j = 0; j < t.tiers.size(); ++j)
    if (t.tiers[j].domain_size >= gpus) {
      k0 = static_cast<int>(j);
      break;
    }
  if (k0 < 0) {
    r.reason = fmt::format("fabric '{}' holds at most {} GPUs; a group of {} does not fit", t.name,
                           t.capacity(), gpus);
    return r;
  }
  const double n = static_cast<double>(gpus);
  if (algorithm == Algorithm::automatic)
    algorithm = static_cast<Algorithm>(t.forced_algorithm[static_cast<std::size_t>(op)]);
  Eval best;
  if (algorithm == Algorithm::automatic) {
    for (Algorithm a : {Algorithm::ring, Algorithm::tree, Algorithm::in_switch,
                        Algorithm::hierarchical, Algorithm::direct}) {
      const Eval e = evaluate(t, op, a, n, bytes, k0);
      if (e.time < best.time) {
        best = e;
        r.algorithm = a;
      }
    }
  } else {
    best = evaluate(t, op, algorithm, n, bytes, k0);
    r.algorithm = algorithm;
    if (!best.ok()) {
      r.reason = fmt::format("algorithm '{}' is not available for {} of {} GPUs on '{}'{}",
                             algorithm_name(algorithm), op_name(op), gpus, t.name,
                             algorithm == Algorithm::in_switch
                                 ? " (a tier crossed has no in-switch reduction)"
                             : algorithm == Algorithm::hierarchical || algorithm == Algorithm::tree
                                 ? " (needs a group spanning more than one inner domain)"
                                 : "");
      return r;
    }
  }
  r.feasible = true;
  r.time = best.time;
  r.algbw = bytes / best.time;
  r.busbw = r.algbw * bus_factor(op, gpus);
  r.bounding_tier = best.bound;
  r.outer_tier = k0;
  return r;
}

std::string_view op_name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce:
      return "all-reduce";
    case CollectiveOp::reduce_scatter:
      return "reduce-scatter";
    case CollectiveOp::all_gather:
      return "all-gather";
    case CollectiveOp::all_to_all:
      return "all-to-all";
    case CollectiveOp::send_recv:
      return "send-recv";
  }
  return "?";
}

std::string_view algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::automatic:
      return "auto";
    case Algorithm::ring:
      return "ring";
    case Algorithm::tree:
      return "tree";
    case Algorithm::in_switch:
      return "in-switch";
    case Algorithm::hierarchical:
      return "hierarchical";
    case Algorithm::direct:
      return "direct";
  }
  return "?";
}

CollectiveOp parse_op(std::string_view word) {
  for (CollectiveOp op :
       {CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
        CollectiveOp::all_to_all, CollectiveOp::send_recv}) {
    std::string alt(op_name(op));
    std::replace(alt.begin(), alt.end(), '-', '_');
    if (word == op_name(op) || word == alt) return op;
  }
  LIGHTSIM_THROW(UsageError,
                 "unknown collective '{}' (expected all-reduce, reduce-scatter, all-gather, "
                 "all-to-all or send-recv)",
                 word);
}

Algorithm parse_algorithm(std::string_view word) {
  if (word == "nvls" || word == "in_switch") return Algorithm::in_switch;
  for (Algorithm a : {Algorithm::automatic, Algorithm::ring, Algorithm::tree, Algorithm::in_switch,
                      Algorithm::hierarchical, Algorithm::direct})
    if (word == algorithm_name(a)) return a;
  LIGHTSIM_THROW(UsageError,
                 "unknown algorithm '{}' (expected auto, ring, tree, in-switch, hierarchical or "
                 "direct)",
                 word);
}

}  // namespace lightsim::fabric

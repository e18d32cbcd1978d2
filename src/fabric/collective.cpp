// Alpha-beta collective cost models (collective.h). Formulas and sources: docs/fabric.md.
// Contiguous placement: n GPUs occupy ceil(n / D_j) domains of each tier j; tier k0 (the
// innermost whose domain holds all n) is the outermost tier the group crosses.
#include "lightsim/fabric/collective.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>

namespace lightsim::fabric {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Eval {
  Eval() = default;
  Eval(double t, int b, int p = -1) : time(t), bound(b), protocol(p) {}
  double time = kInf;
  int bound = -1;
  int protocol = -1;  // Protocol index when NCCL's protocol model chose one
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

// GPUs of an n-GPU contiguous group inside one domain of tier j, and the number of tier-j
// domains it spans.
double members(const Topology& t, double n, int j) {
  return std::min(n, static_cast<double>(t.tiers[static_cast<std::size_t>(j)].domain_size));
}
double domains(const Topology& t, double n, int j) {
  return std::ceil(n / members(t, n, j));
}

// Rail-optimized multi-channel ring over tiers 0..k (NCCL rings; channels spread over the
// NICs). Of the ring's n hops, h_j cross into tier j: h_0 = n - c_0, h_j = c_(j-1) - c_j, plus
// the closing hop on tier k (c_j = tier-j domains spanned). Each of the `channels` rings crosses
// a tier-(j-1) domain's boundary on its own GPU's link, so a domain of m GPUs drives its
// boundary hops over min(channels, m) links; with at least m channels (NCCL's search finds one
// per NIC up to the NVLink total) every GPU carries h_j / n of the hops on its own link. So
// T = sum_j steps_j alpha_j + (steps / n) S max_j h_j / (c_(j-1) min(channels, m_(j-1))) / B_j,
// with the steps of tier j in proportion (NCCL tuning.cc: (nsteps - nInterSteps) intraLat +
// nInterSteps interLat). `steps` = 2(n-1) for all-reduce, n-1 for reduce-scatter and
// all-gather. Returned as latency + transfer so the NCCL model can replace the latency.
struct RingParts {
  double latency = 0, transfer = 0;
  int bound = 0;
};
RingParts ring_parts(const Topology& t, double n, double steps, double bytes, int k,
                     double channels) {
  RingParts r;
  double worst = 0, prev = n;
  for (int j = 0; j <= k; ++j) {
    const Tier& tier = t.tiers[static_cast<std::size_t>(j)];
    const double c = domains(t, n, j);
    const double hops = prev - c + (j == k ? 1.0 : 0.0);
    const double links = j == 0 ? n : prev * std::min(channels, n / prev);
    prev = c;
    if (hops <= 0) continue;
    const double load = hops / links / (tier.bandwidth * tier.efficiency);
    if (load > worst) {
      worst = load;
      r.bound = j;
    }
    r.latency += steps * (j == k ? (hops - 1) : hops) / (n - 1) * tier.alpha;
  }
  r.transfer = steps * bytes / n * worst;
  return r;
}
Eval ring(const Topology& t, double n, double steps, double bytes, int k) {
  if (n <= 1) return {0.0, 0};
  const RingParts r = ring_parts(t, n, steps, bytes, k, kInf);
  return {r.latency + r.transfer, r.bound};
}

// NCCL's tree: a chain through the GPUs of each tier-0 domain, a double binary tree across the
// c_0 domains. Latency 2 ((ppn - 1) alpha_0 + ceil(log2 c_0) alpha_out) (NCCL tuning.cc);
// bandwidth: the chain sends the buffer up and down (2S per GPU on tier 0); across domains the
// busiest node of the double binary tree (each tree carries S/2) sends tree_load(c_0) S spread
// over its ppn NICs; both are pipelined, and the tree reaches 0.9 of the model (tuning.cc,
// busBw * .9).
constexpr double kTreeEfficiency = 0.9;

// Bytes (in units of S) the busiest node sends in a double binary tree over m nodes: a node
// with two children sends S/2 up and S/2 to each child in its inner tree plus S/2 up as a leaf
// of the other (2S); with 2 nodes each is one tree's root (S); with 3 or 4 no node has both a
// parent and two children (1.5S).
double tree_load(double m) {
  return m <= 2 ? 1.0 : m <= 4 ? 1.5 : 2.0;
}
Eval tree(const Topology& t, double n, double bytes, int k) {
  if (k < 1) return {};
  const Range outer = range_of(t, 1, k);
  const Tier& inner = t.tiers[0];
  const double ppn = members(t, n, 0), c0 = domains(t, n, 0);
  const double chain = ppn > 1 ? 2 * bytes / (inner.bandwidth * inner.efficiency) : 0.0;
  const double across = tree_load(c0) * bytes / (ppn * outer.bw);
  const double lat = 2 * ((ppn - 1) * inner.alpha + std::ceil(std::log2(c0)) * outer.alpha);
  return {lat + std::max(chain, across) / kTreeEfficiency, chain >= across ? 0 : outer.bound};
}

// In-switch (NVLS-like): each GPU pushes its buffer once into the switch, which reduces and
// multicasts; all-reduce = 2 latency steps + bytes / bw.
Eval in_switch(const Range& r, CollectiveOp op, double bytes) {
  if (!r.in_switch) return {};
  const double steps = op == CollectiveOp::all_reduce ? 2.0 : 1.0;
  return {steps * r.alpha + bytes / r.switch_bw, r.bound};
}

// NVLS-tree (NCCL NVLS_TREE): in-switch reduction inside each tier-0 domain, the tree above
// across domains, pipelined: T = 2 alpha_0 + 2 ceil(log2 c_0) alpha_out + max(S / B_sw,
// tree part / 0.9). Needs in-switch reduction on tier 0 and a group over > 1 domain.
Eval in_switch_tree(const Topology& t, double n, double bytes, int k) {
  if (k < 1 || !t.tiers[0].in_switch) return {};
  const Tier& inner = t.tiers[0];
  const Range outer = range_of(t, 1, k);
  const double ppn = members(t, n, 0), c0 = domains(t, n, 0);
  const double local = bytes / (inner.bandwidth * inner.in_switch_efficiency);
  const double across = tree_load(c0) * bytes / (ppn * outer.bw) / kTreeEfficiency;
  const double lat = 2 * inner.alpha + 2 * std::ceil(std::log2(c0)) * outer.alpha;
  return {lat + std::max(local, across), local >= across ? 0 : outer.bound};
}

// NCCL's cost model across tier-0 domains (nccl.h; tuning.cc ncclTopoTuneModel and
// ncclTopoGetAlgoTime, NCCL 2.30): per protocol, time = latency + size / algbw, where the
// latency is NCCL's constants and algbw is the physical transfer above (channel-limited NICs)
// cut by NCCL's protocol fractions and per-channel caps. Every protocol is tried (or the forced
// one) and the least time wins, as NCCL's tuner does. nodes = c_0, ppn = n / nodes.
constexpr std::array<Protocol, kProtocols> kAllProtocols{Protocol::ll, Protocol::ll128,
                                                         Protocol::simple};

// floor(log2(x)) of a node count (NCCL log2i).
double log2i(double x) {
  return std::floor(std::log2(std::max(x, 1.0)));
}

template <class TimeOf>
Eval best_protocol(std::optional<Protocol> force, int bound, TimeOf time_of) {
  Eval best;
  for (Protocol p : kAllProtocols) {
    if (force && *force != p) continue;
    const double time = time_of(p);
    if (time < best.time) best = Eval(time, bound, static_cast<int>(p));
  }
  return best;
}

Eval nccl_ring(const Topology& t, const NcclModel& m, CollectiveOp op, double n, double bytes,
               int k, std::optional<Protocol> force) {
  const bool ar = op == CollectiveOp::all_reduce;
  const double steps = ar ? 2 * (n - 1) : n - 1;
  const RingParts phys = ring_parts(t, n, steps, bytes, k, m.channels);
  const double nodes = domains(t, n, 0), ppn = n / nodes;
  const std::size_t idx = NcclModel::node_index(nodes);
  const double inter_steps = ar ? 2 * (nodes - 1) : nodes - 1;
  const double algbw = bytes / phys.transfer, to_alg = n / steps;
  return best_protocol(force, phys.bound, [&](Protocol p) {
    const auto i = static_cast<std::size_t>(p);
    const double overhead =
        m.net_overhead * (p == Protocol::simple ? m.simple_net_overhead_factor : 1);
    const double intra = std::max(m.nvlink_ring[i], overhead);
    const double inter = ppn == 1 ? m.net_tree[i] : m.net_ring[i];
    double lat = m.base_ring[i] + (steps - inter_steps) * intra + inter_steps * inter;
    if (p == Protocol::simple && ar && bytes / (m.channels * n) >= 64) lat *= m.ring_simple_plateau;
    const double bw =
        p == Protocol::ll
            ? std::min(m.ll_max[idx == 1 ? 0 : 1] * to_alg, m.ring_ll_fraction * algbw)
        : p == Protocol::ll128 ? std::min(m.ring_ll128_fraction * algbw,
                                          m.channels * m.ring_ll128_per_channel[idx] * to_alg)
                               : algbw;
    return lat + bytes / bw;
  });
}

// Tree correction (treeCorrectionFactor): bandwidth x the factor of size / 64 B's power of two.
double tree_correction(const NcclModel& m, Protocol p, double bytes) {
  const auto& f = m.tree_correction[static_cast<std::size_t>(p)];
  if (bytes < 64) return 1.0;
  const double log_size = std::floor(std::log2(bytes / 64));
  return log_size < static_cast<double>(f.size()) ? f[static_cast<std::size_t>(log_size)] : 1.0;
}

Eval nccl_tree(const Topology& t, const NcclModel& m, double n, double bytes, int k,
               std::optional<Protocol> force) {
  const Range outer = range_of(t, 1, k);
  const Tier& inner = t.tiers[0];
  const double nodes = domains(t, n, 0), ppn = members(t, n, 0);
  const std::size_t idx = NcclModel::node_index(nodes);
  const double chain = ppn > 1 ? 2 * bytes / (inner.bandwidth * inner.efficiency) : 0.0;
  const double across = tree_load(nodes) * bytes / (std::min(m.channels, ppn) * outer.bw);
  // NCCL's tree bus bandwidth is 2 x algbw (its ratio .5).
  const double bus = std::min(2 * bytes / std::max(chain, across) * m.tree_fraction,
                              m.channels * m.tree_per_channel[idx]);
  return best_protocol(force, chain >= across ? 0 : outer.bound, [&](Protocol p) {
    const auto i = static_cast<std::size_t>(p);
    const double b =
        p == Protocol::ll ? std::min(bus * m.tree_ll_fraction, m.ll_max[idx == 1 ? 0 : 1])
        : p == Protocol::ll128
            ? std::min(bus * m.tree_ll128_fraction, m.channels * m.tree_ll128_per_channel[idx])
            : bus;
    const double lat =
        m.base_tree[i] + 2 * ((ppn - 1) * m.nvlink_tree[i] + log2i(nodes) * m.net_tree[i]);
    return lat + bytes / (b / 2 * tree_correction(m, p, bytes));
  });
}

// NVLS-tree runs Simple only: latency intraLat + 2 log2i(nodes) interLat (+ base); bandwidth
// the in-switch reduction inside and the tree across, pipelined (NCCL applies no tree fraction
// to NVLS-tree).
Eval nccl_in_switch_tree(const Topology& t, const NcclModel& m, double n, double bytes, int k,
                         std::optional<Protocol> force) {
  if (!t.tiers[0].in_switch || (force && *force != Protocol::simple)) return {};
  const Tier& inner = t.tiers[0];
  const Range outer = range_of(t, 1, k);
  const double ppn = members(t, n, 0), nodes = domains(t, n, 0);
  const double local = bytes / (inner.bandwidth * inner.in_switch_efficiency);
  const double across = tree_load(nodes) * bytes / (ppn * outer.bw);
  const auto i = static_cast<std::size_t>(Protocol::simple);
  const double lat =
      m.base_nvls_tree[i] + m.nvlink_nvls_tree[i] + 2 * log2i(nodes) * m.net_nvls_tree[i];
  return {lat + std::max(local, across), local >= across ? 0 : outer.bound, static_cast<int>(i)};
}

Eval flat(const Topology& t, CollectiveOp op, Algorithm a, double n, double bytes, int lo, int hi) {
  const bool ar = op == CollectiveOp::all_reduce;
  switch (a) {
    case Algorithm::ring:
      return lo == 0 ? ring(t, n, ar ? 2 * (n - 1) : n - 1, bytes, hi) : [&] {
        // A ring over the domains of an outer level (hierarchical): one GPU per domain.
        const Range r = range_of(t, lo, hi);
        const double steps = ar ? 2 * (n - 1) : n - 1;
        return Eval{steps * (r.alpha + bytes / n / r.bw), r.bound};
      }();
    // NCCL builds trees across nodes only (a chain inside each); so tree needs a group
    // spanning more than one tier-0 domain.
    case Algorithm::tree:
      return ar && lo == 0 ? tree(t, n, bytes, hi) : Eval{};
    case Algorithm::in_switch:
      return in_switch(range_of(t, lo, hi), op, bytes);
    case Algorithm::in_switch_tree:
      return ar && lo == 0 ? in_switch_tree(t, n, bytes, hi) : Eval{};
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

Eval evaluate(const Topology& t, CollectiveOp op, Algorithm a, double n, double bytes, int k0,
              std::optional<Protocol> force) {
  const bool reduction = op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter ||
                         op == CollectiveOp::all_gather;
  if (t.nccl && k0 >= 1 && reduction) {
    const NcclModel& m = *t.nccl;
    if (a == Algorithm::ring) return nccl_ring(t, m, op, n, bytes, k0, force);
    if (op == CollectiveOp::all_reduce && a == Algorithm::tree)
      return nccl_tree(t, m, n, bytes, k0, force);
    if (op == CollectiveOp::all_reduce && a == Algorithm::in_switch_tree)
      return nccl_in_switch_tree(t, m, n, bytes, k0, force);
  }
  // LL and LL128 are NCCL's ring, tree and NVLS-tree across nodes only; elsewhere the tiers'
  // per-step latencies are Simple's (fitted to Simple runs).
  if (force && *force != Protocol::simple) return {};
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
                            Algorithm algorithm, std::optional<Protocol> protocol) {
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
    // NCCL's tuner: the fastest of its algorithms (ring, tree, NVLS, NVLS-tree) at this size
    // (tuning.cc: time = latency + size / bandwidth per algorithm); hierarchical is not an
    // NCCL algorithm and runs only when forced.
    for (Algorithm a : {Algorithm::ring, Algorithm::tree, Algorithm::in_switch,
                        Algorithm::in_switch_tree, Algorithm::direct}) {
      const Eval e = evaluate(t, op, a, n, bytes, k0, protocol);
      if (e.time < best.time) {
        best = e;
        r.algorithm = a;
      }
    }
    if (!best.ok()) {
      r.reason = fmt::format(
          "protocol '{}' is not available for {} of {} GPUs on '{}' (LL and LL128 run only in "
          "NCCL's ring, tree and NVLS-tree across tier-0 domains of a fabric with 'nccl')",
          protocol ? protocol_name(*protocol) : "auto", op_name(op), gpus, t.name);
      return r;
    }
  } else {
    best = evaluate(t, op, algorithm, n, bytes, k0, protocol);
    r.algorithm = algorithm;
    if (!best.ok()) {
      r.reason = fmt::format(
          "algorithm '{}'{} is not available for {} of {} GPUs on '{}'{}",
          algorithm_name(algorithm),
          protocol ? fmt::format(" with protocol '{}'", protocol_name(*protocol)) : std::string(),
          op_name(op), gpus, t.name,
          algorithm == Algorithm::in_switch ? " (a tier crossed has no in-switch reduction)"
          : algorithm == Algorithm::in_switch_tree
              ? " (needs in-switch reduction on the innermost tier and a "
                "group spanning more than one of its domains)"
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
  if (best.protocol >= 0) r.protocol = static_cast<Protocol>(best.protocol);
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
    case Algorithm::in_switch_tree:
      return "in-switch-tree";
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

std::optional<Protocol> parse_protocol(std::string_view word) {
  if (word == "auto") return std::nullopt;
  for (Protocol p : kAllProtocols) {
    std::string lower(protocol_name(p));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (word == protocol_name(p) || word == lower) return p;
  }
  LIGHTSIM_THROW(UsageError, "unknown protocol '{}' (expected auto, ll, ll128 or simple)", word);
}

Algorithm parse_algorithm(std::string_view word) {
  if (word == "nvls" || word == "in_switch") return Algorithm::in_switch;
  if (word == "nvls-tree" || word == "nvls_tree" || word == "in_switch_tree")
    return Algorithm::in_switch_tree;
  for (Algorithm a : {Algorithm::automatic, Algorithm::ring, Algorithm::tree, Algorithm::in_switch,
                      Algorithm::hierarchical, Algorithm::direct, Algorithm::in_switch_tree})
    if (word == algorithm_name(a)) return a;
  LIGHTSIM_THROW(UsageError,
                 "unknown algorithm '{}' (expected auto, ring, tree, in-switch (nvls), "
                 "in-switch-tree (nvls-tree), hierarchical or direct)",
                 word);
}

}  // namespace lightsim::fabric

// Step time of one plan (evaluate.h). Formulas and sources: docs/prefill.md, "Step time".
#include <algorithm>
#include <cmath>

#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/expert.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/overlap.h"

namespace lightsim::prefill {
namespace {

using fabric::CollectiveOp;
std::size_t idx(ComputeClass c) {
  return static_cast<std::size_t>(c);
}
std::size_t idx(CommKind c) {
  return static_cast<std::size_t>(c);
}

// Time of one kernel: the larger of its compute at the measured (or roofline) efficiency of
// its class at `size` and `k`, and its HBM traffic at the achievable bandwidth; plus the fixed
// launch cost. A fused operator (softmax) costs nothing when its attention kernel is measured.
double kernel(const fabric::KernelEfficiency& eff, double hbm, const Evaluator::OpCoef& op,
              double flops, double bytes, double size, double k) {
  if (op.fused && eff.tabled(op.kernel, op.format)) return 0.0;
  double c = 0;
  if (flops > 0) {
    const double e =
        op.tabled ? eff.compute(op.kernel, op.format, size, k, true, flops) : eff.roofline(flops);
    c = flops / (op.peak * e);
  }
  const double m = bytes > 0 ? bytes / (hbm * eff.memory(bytes)) : 0.0;
  return std::max(c, m) + eff.launch_overhead();
}

// Ulysses degree of a CP algorithm: the part of CP done by head all-to-all.
std::int64_t ulysses_degree(const Plan& p, std::int64_t heads, std::int64_t inner_domain) {
  if (p.cp <= 1) return 1;
  switch (p.cp_algorithm) {
    case CpAlgorithm::ulysses:
      return p.cp;
    case CpAlgorithm::hybrid: {
      std::int64_t u = 1;
      for (std::int64_t d = 1; d <= p.cp; ++d)
        if (p.cp % d == 0 && heads % (p.tp * d) == 0 && p.tp * d <= inner_domain) u = d;
      return u;
    }
    default:
      return 1;
  }
}

// Sequence-scaling divisor and weight divisor of an operator role.
struct Split {
  double seq = 1, weight = 1;
};

}  // namespace

// Dispatch or combine of `tokens` tokens per GPU to k experts each over `ep` ranks, as DeepEP's
// normal kernels run it (fabric/expert.h): one copy per distinct destination rank, one RDMA
// crossing per destination node, node-limited to the model's groups per token when it routes
// by groups.
fabric::CollectiveResult Evaluator::expert_all_to_all(std::int64_t ep, double tokens, double k,
                                                      double bytes_per_value) const {
  fabric::ExpertExchange x;
  x.ranks = ep;
  x.tokens = tokens;
  x.experts_per_token = k;
  x.token_bytes = static_cast<double>(model_.hidden) * bytes_per_value;
  x.max_nodes = model_.moe.groups > 1 ? model_.moe.groups_per_token : 0;
  const fabric::ExpertResult e = fabric::expert_exchange(topology_, x);
  fabric::CollectiveResult r;
  r.feasible = e.feasible;
  r.reason = e.reason;
  r.time = e.time;
  r.bounding_tier = e.bounding_tier;
  return r;
}

// Per-microbatch cost of one layer kind on one GPU; `x` = sequences per micro-batch per
// attention group. Adds compute and communication (times `scale`) to `r`; returns seconds.
double Evaluator::layer_time(const LayerKind& kind, const Plan& p, double x, double fill, Result& r,
                             double scale) const {
  const double hbm = topology_.gpu.hbm_bandwidth.si();
  const double S = static_cast<double>(scenario_.sequence_length);
  const double h = static_cast<double>(model_.hidden);
  const double H = static_cast<double>(model_.attention.heads);
  const double tp = static_cast<double>(p.tp), cp = static_cast<double>(p.cp);
  const double ep = static_cast<double>(p.ep), adp = static_cast<double>(p.attention_dp());
  const std::int64_t u = ulysses_degree(p, model_.attention.heads, topology_.tiers[0].domain_size);
  const double kv_div = p.cp_algorithm == CpAlgorithm::ring_kv  ? 1.0
                        : p.cp_algorithm == CpAlgorithm::hybrid ? static_cast<double>(u)
                                                                : cp;
  const double share = model_.moe.routed_experts > 0 ? max_rank_load(p.ep) : 1.0 / ep;
  const double E = static_cast<double>(std::max<std::int64_t>(1, model_.moe.routed_experts));
  const double slots =
      std::ceil((E + static_cast<double>(scenario_.routing.redundant_experts)) / ep);
  const bool expert_a2a = kind.moe && p.ep > 1 && !p.moe_tp;  // MOE=tp: no dispatch/combine
  const bool tbo = scenario_.two_microbatch_overlap && expert_a2a;
  const double parts = tbo ? 2.0 : 1.0;

  // Compute.
  std::array<double, kComputeClasses> t{};
  double kv_up = 0;       // latent up-projection time (part of attention_projections)
  double other_gemm = 0;  // dense GEMMs outside the shared and routed experts
  for (const OpCoef& op : kind.ops) {
    Split s;
    switch (op.role) {
      case Role::replicated:
        s = {cp, 1.0};
        break;
      case Role::sharded:
      case Role::core:
        s = {cp * tp, tp};
        break;
      case Role::kv_up:
        s = {tp * kv_div, tp};
        break;
      case Role::experts:
        // MOE=tp: every rank runs all of its TP group's rows at I / TP of each expert's width.
        s = p.moe_tp ? Split{cp * tp, tp}
                     : Split{static_cast<double>(p.edp) / (adp * share * fill), E / slots};
        break;
    }
    const double seqs = x / s.seq / parts;
    // The kernel's size as its table counts it: GEMM rows of the rank (TP splits N or K, not
    // M), tokens per local expert, or the attention block length (the ring's block under
    // ring CP, the whole sequence under Ulysses).
    double size = 0, k = op.k_dim;
    switch (op.role) {
      case Role::replicated:
      case Role::sharded:
        size = x / parts * op.m_seq / cp;
        if (op.k_split) k /= tp;
        break;
      case Role::core:
        size = S * static_cast<double>(u) / cp;
        break;
      case Role::kv_up:
        size = x / parts * op.m_seq / kv_div;
        break;
      case Role::experts:
        if (p.moe_tp) {  // the group's rows over all E experts; N or K split by TP
          size = x / parts / cp * op.m_seq / E;
          if (op.k_split) k /= tp;
        } else {
          size = seqs * op.m_seq / slots;
        }
        break;
    }
    const double time = parts * kernel(kernels_, hbm, op, op.flops_fixed + op.flops_seq * seqs,
                                       op.weight_bytes / s.weight + op.bytes_seq * seqs, size, k);
    t[idx(op.cls)] += time;
    if (op.role == Role::kv_up) kv_up += time;
    if (op.quant_bytes_per_value > 0) {  // its input's quantization: size rows x K values
      const double qb = size * k * op.quant_bytes_per_value;
      t[idx(ComputeClass::elementwise)] +=
          parts * (qb / (hbm * kernels_.memory(qb)) + kernels_.launch_overhead());
    }
    if (op.kernel == fabric::KernelClass::gemm && op.tabled &&
        op.cls != ComputeClass::shared_experts)
      other_gemm += time;
  }
  // Ring CP: after each of the r - 1 ring steps the block's partial attention output is merged
  // into the running output by its log-sum-exp (ring attention, Liu et al. 2023; Meta's CP,
  // arXiv:2411.01783 section 3, "merge attention"): a memory-bound kernel reading the partial
  // and the accumulator and writing the accumulator, 3 x 2 B per output value, of the rank's
  // tokens x its heads' value dims.
  if (p.cp > 1 && kind.attention && p.cp / u > 1) {
    const double vd = model_.attention.kind == model::AttentionKind::mla
                          ? static_cast<double>(model_.attention.v_head_dim)
                          : static_cast<double>(model_.attention.head_dim);
    const double merge = x / parts * S / cp * (H / tp) * vd * 6.0;
    t[idx(ComputeClass::elementwise)] +=
        parts * static_cast<double>(p.cp / u - 1) *
        (merge / (hbm * kernels_.memory(merge)) + kernels_.launch_overhead());
  }
  double compute = 0;
  for (std::size_t c = 0; c < kComputeClasses; ++c) {
    r.compute[c] += scale * t[c];
    compute += t[c];
  }

  auto add = [&](CommKind k, const fabric::CollectiveResult& c, double time, double exposed) {
    r.comm[idx(k)] += scale * time;
    r.exposed[idx(k)] += scale * exposed;
    if (c.feasible && time > 0) r.tier[idx(k)] = c.bounding_tier;
  };
  auto run = [&](std::int64_t stride, CollectiveOp op, std::int64_t n, double bytes) {
    fabric::Topology scratch;
    return fabric::collective(strided_view(stride, scratch), op, n, bytes);
  };
  double exposed = 0;
  const double tokens_group = x * S / cp;  // tokens of one CP rank per micro-batch

  // Tensor parallelism: attention output and FFN output all-reduced in BF16, not overlapped.
  if (p.tp > 1 && kind.attention) {
    const auto c = run(1, CollectiveOp::all_reduce, p.tp, tokens_group * h * act_bytes_);
    add(CommKind::tp_all_reduce, c, 2 * c.time, 2 * c.time);
    exposed += 2 * c.time;
  }

  // Context parallelism.
  double ring_hidden = 0;
  if (p.cp > 1 && kind.attention) {
    const bool mla = model_.attention.kind == model::AttentionKind::mla;
    const double G = static_cast<double>(model_.attention.kv_heads);
    const double d = static_cast<double>(model_.attention.head_dim);
    const double qk =
        mla ? static_cast<double>(model_.attention.qk_nope_dim + model_.attention.qk_rope_dim) : d;
    const double vd = mla ? static_cast<double>(model_.attention.v_head_dim) : d;
    if (u > 1) {  // Ulysses: q in and out back by all-to-all; K/V (or the MLA latent) gathered
      const double a2a = tokens_group * (H / tp) * (qk + vd) * act_bytes_;
      auto c = run(p.tp, CollectiveOp::all_to_all, u, a2a);
      double time = c.time;
      if (mla) {
        const auto g = run(p.tp, CollectiveOp::all_gather, u,
                           static_cast<double>(u) * tokens_group * kv_values_ * kv_bytes_);
        time += g.time;
      } else {
        const auto g = run(p.tp, CollectiveOp::all_to_all, u,
                           tokens_group * 2 * std::max(1.0, G / tp) * d * act_bytes_);
        time += g.time;
      }
      add(CommKind::cp_all_to_all, c, time, time);
      exposed += time;
    }
    const std::int64_t ring = p.cp / u;
    if (ring > 1) {
      const double tokens_ring = tokens_group * static_cast<double>(u);
      double step_bytes = 0;
      if (p.cp_algorithm == CpAlgorithm::ring_q)
        step_bytes = tokens_group * (H / tp) * std::max(qk, vd + 2.0) * act_bytes_;
      else if (mla)
        step_bytes = tokens_ring * kv_values_ * kv_bytes_;
      else
        step_bytes =
            tokens_ring * 2 * std::max(1.0, G / (tp * static_cast<double>(u))) * d * kv_bytes_;
      const auto c = run(p.tp * u, CollectiveOp::send_recv, ring, step_bytes);
      const double steps = static_cast<double>(ring - 1);
      // Each ring step overlaps the attention products (and, passing the MLA latent, its
      // up-projection) of the block already held: Liu et al. 2023, eq. in docs/prefill.md.
      const double overlappable = (t[idx(ComputeClass::attention_core)] +
                                   (p.cp_algorithm == CpAlgorithm::ring_q ? 0.0 : kv_up)) /
                                  static_cast<double>(ring);
      const double hidden = scenario_.ring_overlap ? steps * std::min(c.time, overlappable) : 0.0;
      add(CommKind::cp_ring, c, steps * c.time, steps * c.time - hidden);
      exposed += steps * c.time - hidden;
      ring_hidden = hidden;
    }
  }

  // Expert parallelism: dispatch (activation format) and combine (BF16) all-to-all; the most
  // loaded rank receives share x EP times the mean, which sets the all-to-all time. Without
  // two-micro-batch overlap both are exposed.
  if (expert_a2a) {
    const double k = static_cast<double>(model_.moe.experts_per_token);
    const double tokens_gpu = x * S / (cp * tp);
    // Each GPU sends its own (fullest-group) tokens; the most loaded rank receives its share
    // of the requests that exist.
    const double skew = std::max(1.0, share * ep * fill);
    if (tbo) {
      // Two-micro-batch overlap: each half's all-to-all runs beside the other half's compute
      // in the four-stage schedule of overlap.h, holding its SMs while it runs. The ring's
      // hidden time is taken from the attention beside which the dispatch would run, so a
      // link is not counted twice.
      const auto dc = expert_all_to_all(p.ep, tokens_gpu * skew / 2, k, dispatch_bytes_);
      const auto cc = expert_all_to_all(p.ep, tokens_gpu * skew / 2, k, act_bytes_);
      TwoBatchLayer l;
      l.shared = t[idx(ComputeClass::shared_experts)] / 2;
      l.experts = t[idx(ComputeClass::routed_experts)] / 2;
      l.attention = std::max(0.0, (compute - ring_hidden) / 2 - l.shared - l.experts);
      l.dispatch = dc.time;
      l.combine = cc.time;
      l.sm_share = comm_sm_share_;
      l.gemm_sm_cap = scenario_.gemm_sm_cap;
      l.attention_gemm = std::min(l.attention, other_gemm / 2);
      const TwoBatchTime o = two_batch_layer_time(l);
      add(CommKind::ep_dispatch, dc, 2 * dc.time, o.exposed_dispatch);
      add(CommKind::ep_combine, cc, 2 * cc.time, o.exposed_combine);
      exposed += o.exposed_dispatch + o.exposed_combine;
    } else {
      const auto dc = expert_all_to_all(p.ep, tokens_gpu * skew, k, dispatch_bytes_);
      const auto cc = expert_all_to_all(p.ep, tokens_gpu * skew, k, act_bytes_);
      add(CommKind::ep_dispatch, dc, dc.time, dc.time);
      add(CommKind::ep_combine, cc, cc.time, cc.time);
      exposed += dc.time + cc.time;
    }
  }
  return compute + exposed;
}

}  // namespace lightsim::prefill

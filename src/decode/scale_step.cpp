// Step time of one decode plan (scale.h). Formulas and sources: docs/decode.md, "Decode at
// scale".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lightsim/core/as_double.h"
#include "lightsim/decode/overlap.h"
#include "lightsim/decode/scale.h"
#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/expert.h"
#include "lightsim/model/cost.h"

namespace lightsim::decode {
namespace {

using Role = StepEvaluator::Role;
using Stage = StepEvaluator::Stage;

std::size_t idx(Part p) {
  return static_cast<std::size_t>(p);
}
std::size_t idx(Comm c) {
  return static_cast<std::size_t>(c);
}

}  // namespace

std::string_view part_name(Part p) {
  static constexpr std::array<std::string_view, kParts> names = {
      "attention_projections", "attention_core", "dense_ffn",   "shared_experts",
      "routed_experts",        "routing",        "elementwise", "embedding_head"};
  return names[idx(p)];
}

std::string_view comm_name(Comm c) {
  static constexpr std::array<std::string_view, kComms> names = {"tp_all_reduce", "ep_dispatch",
                                                                 "ep_combine", "pp_send"};
  return names[idx(c)];
}

double StepBreakdown::compute_total() const {
  double s = 0;
  for (double v : compute) s += v;
  return s;
}
double StepBreakdown::exposed_total() const {
  double s = 0;
  for (double v : exposed) s += v;
  return s;
}

// max(compute at the kernel table's efficiency, HBM bytes at the achievable bandwidth), plus
// the table's per-kernel cost and the CUDA graph's gap (docs/decode.md).
double StepEvaluator::op_time(const OpCoef& op, const DecodePlan& p, double seqs, double keys_ratio,
                              double pairs_ratio, Pass& pass, KernelCost* cost) const {
  const double tp = as_double(p.tp);
  double flops = op.flops_fixed + op.flops_seq * seqs;
  double bytes = op.weight_bytes + op.bytes_seq * seqs;
  double weights = op.weight_bytes, kv = 0;
  switch (op.role) {
    case Role::replicated:
      break;
    case Role::sharded:
    case Role::edge:
      flops /= tp;
      bytes /= tp;
      weights /= tp;
      break;
    case Role::core: {
      const model::Transformer& m = setup_.model;
      const double kv_div =
          m.attention.kind == model::AttentionKind::mla
              ? 1.0
              : std::min(tp, as_double(std::max<std::int64_t>(1, m.attention.kv_heads)));
      flops = (op.flops_fixed + op.flops_seq * seqs * pairs_ratio) / tp;
      bytes = op.bytes_seq * seqs * keys_ratio / kv_div;
      kv = bytes;
      weights = 0;
      break;
    }
    case Role::experts:
      break;  // expert_time
  }
  double c = 0;
  if (flops > 0) {
    const double k = op.k_split && op.role != Role::replicated ? op.k_dim / tp : op.k_dim;
    const double size = op.kernel == fabric::KernelClass::attention
                            ? as_double(analysis_context_) * keys_ratio
                            : std::max(1.0, op.m_seq * seqs);
    // A decode query sees every cached key: the unmasked attention curve.
    const double e = op.tabled ? kernels_.compute(op.kernel, op.format, size, k, false, flops)
                               : kernels_.roofline(flops);
    c = flops / (op.peak * e);
  }
  const double hbm = setup_.topology.gpu.hbm_bandwidth.si();
  const double mem = bytes > 0 ? bytes / (hbm * kernels_.memory(bytes)) : 0.0;
  pass.flops += flops;
  pass.weight_bytes += weights;
  pass.kv_bytes += kv;
  pass.kernels += 1;
  if (cost) *cost = {c, bytes};
  return std::max(c, mem) + kernels_.launch_overhead();
}

// Routed experts on the most loaded EP rank: its rows (the mean x expert_skew) over the
// distinct expert slots they touch, each touched expert's weights read once.
double StepEvaluator::expert_time(const LayerKind& kind, const DecodePlan& p, double x,
                                  double stage_seqs, double tokens, Pass& pass, StepBreakdown& out,
                                  double scale) const {
  const model::Moe& moe = setup_.model.moe;
  const double E = as_double(moe.routed_experts), k = as_double(moe.experts_per_token);
  const double tp = as_double(p.tp), W = as_double(p.stage()), ep = as_double(p.ep);
  double rows = 0, touched = 0, split = 1;
  if (p.moe_tp) {
    // Every expert's columns over the TP group: the group's tokens, 1 / TP of each expert.
    rows = tokens * x * k;
    touched = E * (1.0 - std::pow(1.0 - k / E, tokens * x));
    split = tp;
  } else {
    const double slots_total = E + as_double(setup_.scenario.redundant_experts);
    const double slots = std::ceil(slots_total / ep);
    const double into_group = tokens * stage_seqs * k * ep / W;  // rows into one EP group
    rows = tokens * stage_seqs * k / W * setup_.scenario.expert_skew;
    touched = slots * (1.0 - std::pow(1.0 - 1.0 / slots_total, into_group));
    touched = std::min(slots, std::max(touched, rows > 0 ? 1.0 : 0.0));
  }
  out.expert_rows = std::max(out.expert_rows, rows);
  out.experts_touched = std::max(out.experts_touched, touched);
  const double seq_equiv = rows / (tokens * k);  // sequences whose rows these are
  const double hbm = setup_.topology.gpu.hbm_bandwidth.si();
  double t = 0;
  for (const OpCoef& op : kind.ops) {
    if (op.role != Role::experts) continue;
    const double flops = op.flops_seq * seq_equiv / split;
    const double weights = op.weight_bytes * touched / split;
    const double bytes = weights + op.bytes_seq * seq_equiv / split;
    double c = 0;
    if (flops > 0) {
      const double kd = op.k_split && p.moe_tp ? op.k_dim / tp : op.k_dim;
      const double per_expert = touched > 0 ? rows / touched : 1.0;
      const double e = op.tabled
                           ? kernels_.compute(op.kernel, op.format, per_expert, kd, true, flops)
                           : kernels_.roofline(flops);
      c = flops / (op.peak * e);
    }
    const double mem = bytes > 0 ? bytes / (hbm * kernels_.memory(bytes)) : 0.0;
    pass.flops += flops;
    pass.weight_bytes += weights;
    pass.kernels += 1;
    t += std::max(c, mem) + kernels_.launch_overhead();
  }
  out.compute[idx(Part::routed_experts)] += t * scale;
  return t;
}

double StepEvaluator::layer_time(const LayerKind& kind, const DecodePlan& p, double x,
                                 double stage_seqs, double tokens, std::int64_t context, Pass& pass,
                                 StepBreakdown& out, double scale) const {
  const ScaleScenario& sc = setup_.scenario;
  const double keys_ratio =
      model::keys_read(context - 1, static_cast<std::int64_t>(tokens), kind.window) / kind.keys;
  const double pairs_ratio =
      model::causal_pairs(context - 1, static_cast<std::int64_t>(tokens), kind.window) / kind.pairs;
  const bool tbo = sc.two_batch_overlap;
  const double parts = tbo ? 2.0 : 1.0;
  const double xh = x / parts, sh = stage_seqs / parts;  // one micro-batch's sequences

  // Compute of one micro-batch (its bytes, FLOPs and kernels counted `parts` times).
  double c = 0;
  std::array<double, kParts> part{};
  std::array<double, 5> stage{};  // compute per two-batch-overlap stage (decode/overlap.h)
  Pass one;
  // The attention core (score, softmax, value) is one fused kernel (FlashMLA, FlashDecoding):
  // max(its FLOPs' time, its KV bytes' time), not the sum of per-product maxima (FlashMLA's
  // deep-dive, docs/20250422-new-kernel-deep-dive.md, "A Theoretical Analysis").
  KernelCost fused;
  double fused_kernels = 0;
  for (const OpCoef& op : kind.ops) {
    if (op.role == Role::experts) continue;
    if (op.role == Role::core) {
      KernelCost k;
      op_time(op, p, xh, keys_ratio, pairs_ratio, one, &k);
      fused.compute += k.compute;
      fused.bytes += k.bytes;
      fused_kernels += 1;
      continue;
    }
    const double t = op_time(op, p, xh, keys_ratio, pairs_ratio, one);
    part[idx(op.part)] += t;
    stage[static_cast<std::size_t>(op.stage)] += t;
    c += t;
  }
  if (fused_kernels > 0) {
    const double hbm = setup_.topology.gpu.hbm_bandwidth.si();
    const double mem = fused.bytes > 0 ? fused.bytes / (hbm * kernels_.memory(fused.bytes)) : 0.0;
    const double t = std::max(fused.compute, mem) + fused_kernels * kernels_.launch_overhead();
    part[idx(Part::attention_core)] += t;
    stage[static_cast<std::size_t>(Stage::core)] += t;
    c += t;
  }
  const bool moe = kind.moe && setup_.model.moe.routed_experts > 0;
  if (moe) {
    const double t = expert_time(kind, p, xh, sh, tokens, one, out, scale * parts);
    stage[static_cast<std::size_t>(Stage::experts)] += t;
    c += t;
  }
  for (std::size_t i = 0; i < kParts; ++i) out.compute[i] += part[i] * scale * parts;

  // Communication of one micro-batch.
  const fabric::Topology& topo = setup_.topology;
  const double h = as_double(setup_.model.hidden);
  std::array<double, kComms> comm{};
  if (p.tp > 1) {
    const auto r =
        fabric::collective(topo, fabric::CollectiveOp::all_reduce, p.tp, tokens * xh * h * 2.0);
    if (!r.feasible) out.reason = r.reason;
    comm[idx(Comm::tp_all_reduce)] = 2.0 * r.time;  // after attention and after the FFN
    out.tier[idx(Comm::tp_all_reduce)] = r.bounding_tier;
    one.kernels += 2;
  }
  if (moe && p.ep > 1 && !p.moe_tp) {
    fabric::ExpertExchange ex;
    ex.mode = fabric::ExpertMode::low_latency;
    ex.ranks = p.ep;
    // Tokens each rank sends; the most loaded rank receives expert_skew times the mean.
    ex.tokens = tokens * sh / as_double(p.stage()) * sc.expert_skew;
    ex.experts_per_token = as_double(setup_.model.moe.experts_per_token);
    ex.token_bytes = h * dispatch_bytes_;
    const auto dis = fabric::expert_exchange(topo, ex);
    ex.token_bytes = h * 2.0;  // combine returns BF16
    const auto com = fabric::expert_exchange(topo, ex);
    if (!dis.feasible) out.reason = dis.reason;
    comm[idx(Comm::ep_dispatch)] = dis.time;
    comm[idx(Comm::ep_combine)] = com.time;
    out.tier[idx(Comm::ep_dispatch)] = dis.bounding_tier;
    out.tier[idx(Comm::ep_combine)] = com.bounding_tier;
    one.kernels += 2;
  }
  pass.flops += one.flops * parts * scale;
  pass.weight_bytes += one.weight_bytes * parts * scale;
  pass.kv_bytes += one.kv_bytes * parts * scale;
  pass.kernels += one.kernels * static_cast<std::int64_t>(parts * scale);
  double m = 0;
  for (double v : comm) m += v;
  for (std::size_t i = 0; i < kComms; ++i) out.comm[i] += comm[i] * parts * scale;
  if (!tbo) {  // compute, then each transfer in turn
    for (std::size_t i = 0; i < kComms; ++i) out.exposed[i] += comm[i] * scale;
    return c + m;
  }
  // Two-batch overlap: DeepSeek's five-stage decode pipeline (decode/overlap.h). Dispatch
  // travels behind the shared experts and the other half's prepare stage, combine behind the
  // other half's core stage. The TP all-reduces run inside their micro-batch's stages (SGLang's
  // op_comm_prepare_* operations, on the compute stream): exposed in full.
  DecodeTwoBatchLayer l;
  l.prepare = stage[static_cast<std::size_t>(Stage::prepare)];
  l.core = stage[static_cast<std::size_t>(Stage::core)];
  l.shared = stage[static_cast<std::size_t>(Stage::shared)];
  l.experts = stage[static_cast<std::size_t>(Stage::experts)];
  l.output = stage[static_cast<std::size_t>(Stage::output)];
  l.dispatch = comm[idx(Comm::ep_dispatch)];
  l.combine = comm[idx(Comm::ep_combine)];
  const DecodeTwoBatchTime t = decode_two_batch_layer_time(l);
  const double all_reduce = comm[idx(Comm::tp_all_reduce)];
  out.exposed[idx(Comm::ep_dispatch)] += t.exposed_dispatch * scale;
  out.exposed[idx(Comm::ep_combine)] += t.exposed_combine * scale;
  out.exposed[idx(Comm::tp_all_reduce)] += 2.0 * all_reduce * scale;
  return t.layer + 2.0 * all_reduce;
}

StepBreakdown StepEvaluator::step_time(const DecodePlan& plan, std::int64_t batch,
                                       std::int64_t context) const {
  StepBreakdown out;
  out.tier.fill(-1);
  const DecodePlan p = resolved(plan);
  out.plan = p;
  out.gpus = p.gpus();
  out.batch = batch;
  out.context = context;
  if (batch < 1 || context < 1) {
    out.reason = fmt::format("a decode step needs batch >= 1 and context >= 1 (got {} and {})",
                             batch, context);
    return out;
  }
  if (std::string why = validate(p); !why.empty()) {
    out.reason = std::move(why);
    return out;
  }
  const ScaleScenario& sc = setup_.scenario;
  out.memory = memory(p, context);
  if (batch > out.memory.max_batch) {
    out.reason = out.memory.max_batch <= 0
                     ? fmt::format(
                           "weights {:.1f} GB per GPU leave no room for one sequence's KV cache "
                           "({:.3f} GB) in {:.1f} GB usable HBM",
                           out.memory.weights / 1e9, out.memory.kv_per_sequence / 1e9,
                           out.memory.capacity / 1e9)
                     : fmt::format(
                           "{} sequences of {} tokens exceed the {} that fit in HBM after the "
                           "weights ({:.1f} GB per GPU of {:.1f} GB usable)",
                           batch, context, out.memory.max_batch, out.memory.weights / 1e9,
                           out.memory.capacity / 1e9);
    return out;
  }
  const double tokens = as_double(q_);
  const double stage_seqs =
      as_double(batch) / as_double(p.pp);  // sequences of one pipeline micro-batch
  const std::int64_t x_int = (batch + p.pp * p.dpa - 1) / (p.pp * p.dpa);
  out.sequences_per_group = x_int;
  const double x = as_double(x_int);
  const std::int64_t L = static_cast<std::int64_t>(setup_.model.layers.size());
  const std::int64_t per_stage = (L + p.pp - 1) / p.pp;
  const double parts = sc.two_batch_overlap ? 2.0 : 1.0;
  const double graph = sc.graph_kernel_gap.si();

  double pass_sum = 0, stage_max = 0;
  Pass critical;
  for (std::int64_t s = 0; s < p.pp; ++s) {
    Pass pass;
    double t = 0;
    const std::int64_t first = s * per_stage, last = std::min(L, first + per_stage);
    if (s == 0)
      for (const OpCoef& op : embedding_.ops) {
        const double v = op_time(op, p, x, 1, 1, pass);
        out.compute[idx(Part::embedding_head)] += v;
        t += v;
      }
    // Layers of one shape cost the same: each shape once, times its layers in the stage.
    for (std::size_t k = 0; k < kinds_.size(); ++k) {
      std::int64_t n = 0;
      for (std::int64_t l = first; l < last; ++l)
        n += layer_kind_[static_cast<std::size_t>(l)] == static_cast<int>(k) ? 1 : 0;
      if (n > 0)
        t += as_double(n) *
             layer_time(kinds_[k], p, x, stage_seqs, tokens, context, pass, out, as_double(n));
    }
    if (s == p.pp - 1)
      for (const OpCoef& op : head_.ops) {
        const double v = op_time(op, p, x, 1, 1, pass);
        out.compute[idx(Part::embedding_head)] += v;
        t += v;
      }
    const double launch = as_double(pass.kernels) * graph + sc.graph_launch.si() * parts;
    out.launch += launch;
    t += launch;
    pass_sum += t;
    if (t > stage_max) {
      stage_max = t;
      critical = pass;
    }
  }
  double sends = 0;
  if (p.pp > 1) {
    // Stage to stage: the micro-batch's hidden states (BF16) between two GPUs W apart.
    fabric::Topology strided = setup_.topology;
    for (auto& tier : strided.tiers)
      tier.domain_size = std::max<std::int64_t>(1, tier.domain_size / p.stage());
    const auto r = fabric::collective(strided, fabric::CollectiveOp::send_recv, 2,
                                      tokens * x * as_double(setup_.model.hidden) * 2.0);
    if (!r.feasible) out.reason = r.reason;
    sends = as_double(p.pp - 1) * r.time;
    out.comm[idx(Comm::pp_send)] = out.exposed[idx(Comm::pp_send)] = sends;
    out.tier[idx(Comm::pp_send)] = r.bounding_tier;
  }
  if (!out.reason.empty()) return out;
  const double one_pass = pass_sum + sends;
  // PP micro-batches in flight: a round serves each once; the busiest stage bounds it.
  const double round = std::max(one_pass, as_double(p.pp) * stage_max);
  out.pipeline_wait = round - one_pass;

  // MTP: each draft token runs the MTP module (mtp_layers copies of the last layer's shape,
  // at least one) and the head, one token per sequence, after the verify pass.
  if (sc.draft_tokens > 0) {
    StepBreakdown scratch;
    Pass pass;
    double t = 0;
    const std::int64_t mtp = std::max<std::int64_t>(1, setup_.model.mtp_layers);
    for (std::int64_t i = 0; i < mtp; ++i)
      t += layer_time(draft_layer_, p, x, stage_seqs, 1.0, context, pass, scratch, 1.0);
    for (const OpCoef& op : draft_head_.ops) t += op_time(op, p, x, 1, 1, pass);
    t += as_double(pass.kernels) * graph + sc.graph_launch.si() * parts;
    out.mtp_draft = as_double(sc.draft_tokens) * t;
  }

  out.step_time = round + out.mtp_draft;
  out.tpot = out.step_time / sc.accepted_tokens;
  out.tokens_per_s = as_double(batch) * sc.accepted_tokens / out.step_time;
  out.tokens_per_s_per_gpu = out.tokens_per_s / as_double(p.gpus());
  out.weight_bytes_read = critical.weight_bytes * as_double(p.pp);
  out.kv_bytes_read = critical.kv_bytes * as_double(p.pp);
  out.flops = critical.flops * as_double(p.pp);
  out.kernels = critical.kernels * p.pp;
  out.feasible = true;
  return out;
}

}  // namespace lightsim::decode

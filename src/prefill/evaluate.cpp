// Plan evaluation: waves, memory budget, pipeline composition (evaluate.h, docs/prefill.md).
#include <algorithm>
#include <cmath>

#include "lightsim/fabric/collective.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/pipeline.h"

namespace lightsim::prefill {
namespace {

constexpr std::size_t kMaxKinds = 8;
// Largest stage x micro-batch count scheduled exactly (pipeline.h); beyond it the micro-batches
// take the average chunk cost.
constexpr double kMaxScheduleSteps = 1 << 16;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Layers [first, last) of stage s of pp: contiguous, as even as possible.
std::pair<std::int64_t, std::int64_t> stage_layers(std::int64_t layers, std::int64_t pp,
                                                   std::int64_t s) {
  return {s * layers / pp, (s + 1) * layers / pp};
}

// memory() of a stage at two sequences per group from its value at one: every per-sequence
// term there is a chain of products and quotients on b (x = b / MB, tokens = x S / CP, ...),
// and multiplying one factor by 2 multiplies a binary floating-point result by exactly 2, so
// this equals memory(..., 2.0, ...) bit for bit. Weights and capacity do not depend on b.
MemoryUse with_two_requests(const MemoryUse& one) {
  MemoryUse two = one;
  two.kv_cache = 2 * one.kv_cache;
  two.activations = 2 * one.activations;
  two.comm_buffers = 2 * one.comm_buffers;
  return two;
}

}  // namespace

// HBM use per GPU of the stage holding layers [first, last) with `b` sequences per attention
// group in flight, split into plan.microbatches chunks.
void Evaluator::memory(const Plan& p, std::int64_t first, std::int64_t last, double b,
                       MemoryUse& m) const {
  const double S = static_cast<double>(scenario_.sequence_length);
  const double h = static_cast<double>(model_.hidden);
  const double tp = static_cast<double>(p.tp), cp = static_cast<double>(p.cp);
  const double ep = static_cast<double>(p.ep), adp = static_cast<double>(p.attention_dp());
  const double x = b / static_cast<double>(p.microbatches);
  const double E = static_cast<double>(model_.moe.routed_experts);
  const double slots =
      E > 0 ? std::ceil((E + static_cast<double>(scenario_.routing.redundant_experts)) / ep) : 0;
  const double share = E > 0 ? max_rank_load(p.ep) : 1.0 / ep;
  const double wbytes = model::bytes_per_value(scenario_.dtypes.weights);
  const double tokens_group = x * S / cp;
  // GQA caches K/V per KV head: TP ranks share them out (replicated below one head per rank);
  // MLA's latent is needed whole by every TP rank.
  const double kv_split = model_.attention.kind == model::AttentionKind::mla
                              ? 1.0
                              : std::min(tp, static_cast<double>(model_.attention.kv_heads));
  const double split = cp * tp;
  const double expert_div = p.moe_tp ? split : static_cast<double>(p.edp) / (adp * share);
  // Per layer: its expert weights (MOE=tp: every expert's I / TP columns) and KV cache.
  const double layer_experts = p.moe_tp ? E * expert_params_ * expert_weight_bytes_ / tp
                                        : slots * expert_params_ * expert_weight_bytes_;
  const double layer_kv = b * S / cp * kv_values_ * kv_bytes_ / kv_split;
  m = {};
  // Sums in layer and op order (the figures are reported to the last bit).
  double weights = 0, kv_cache = 0, buffers = 0;
  // Largest activation output per sequence of the stage's ops, by role group (LayerKind).
  double out_replicated = 0, out_split = 0, out_experts = 0;
  bool moe = false;
  for (std::int64_t l = first; l < last; ++l) {
    const LayerKind& kind =
        kinds_[static_cast<std::size_t>(layer_kind_[static_cast<std::size_t>(l)])];
    for (const WeightTerm& w : kind.weights) weights += w.tp_split ? w.bytes / tp : w.bytes;
    out_replicated = std::max(out_replicated, kind.out_replicated);
    out_split = std::max(out_split, kind.out_split);
    out_experts = std::max(out_experts, kind.out_experts);
    if (kind.moe && E > 0) {
      moe = true;
      weights += layer_experts;
    }
    kv_cache += layer_kv;
  }
  m.weights = weights;
  m.kv_cache = kv_cache;
  if (moe && !p.moe_tp) {  // all-to-all send and receive buffers (none under MOE=tp)
    const double k = static_cast<double>(model_.moe.experts_per_token);
    const double tokens_gpu = x * S / (cp * tp);
    buffers = tokens_gpu * k * h * (dispatch_bytes_ + act_bytes_) * std::max(1.0, share * ep) * 2.0;
  }
  // Live activations: input and output of the largest operator plus the residual stream.
  const double peak_out =
      std::max({out_replicated * x / cp, out_split * x / split, out_experts * x / expert_div});
  const double act = first < last ? 2 * peak_out + 2 * tokens_group * h * act_bytes_ : 0.0;
  if (p.cp > 1)  // ring double buffer or Ulysses gather of the latent / K,V
    buffers +=
        2 * tokens_group * kv_values_ * kv_bytes_ *
        (p.cp_algorithm == CpAlgorithm::ring_kv || p.cp_algorithm == CpAlgorithm::ring_q ? 1.0
                                                                                         : cp);
  const std::int64_t layers = static_cast<std::int64_t>(model_.layers.size());
  if (first == 0) m.weights += embedding_params_ * wbytes / tp;
  if (last == layers) m.weights += head_params_ * wbytes / tp;
  m.activations = act;
  m.comm_buffers = buffers;
  m.capacity = topology_.gpu.hbm_capacity.si() * scenario_.hbm_usable_fraction;
}

Result Evaluator::evaluate(const Plan& p) const {
  evaluations_.count.fetch_add(1, std::memory_order_relaxed);
  Result r;
  r.plan = p;
  r.gpus = p.gpus();
  r.tier.fill(-1);
  if (std::string why = validate(p); !why.empty()) {
    r.reason = std::move(why);
    return r;
  }
  LIGHTSIM_CHECK(kinds_.size() <= kMaxKinds, "more than {} layer shapes", kMaxKinds);
  const std::int64_t layers = static_cast<std::int64_t>(model_.layers.size());
  const std::int64_t per_instance = ceil_div(scenario_.requests, p.dp);
  const std::int64_t per_group = ceil_div(per_instance, p.attention_dp());

  // Memory: linear in the sequences in flight per group (b); the fullest stage decides.
  MemoryUse worst1, worst2;
  std::int64_t worst_stage = 0;
  for (std::int64_t s = 0; s < p.pp; ++s) {
    const auto [first, last] = stage_layers(layers, p.pp, s);
    MemoryUse m1;
    memory(p, first, last, 1.0, m1);
    if (s == 0 || m1.total() > worst1.total()) {
      worst1 = m1;
      worst_stage = s;
    }
  }
  worst2 = with_two_requests(worst1);
  if (worst1.total() > worst1.capacity) {
    const std::array<std::pair<const char*, double>, 4> terms = {
        {{"weights", worst1.weights},
         {"kv_cache", worst1.kv_cache},
         {"activations", worst1.activations},
         {"comm_buffers", worst1.comm_buffers}}};
    double sum = 0;
    const char* over = "comm_buffers";
    for (const auto& [name, v] : terms) {
      sum += v;
      if (sum > worst1.capacity) {
        over = name;
        break;
      }
    }
    r.memory = worst1;
    r.reason = fmt::format(
        "HBM overflow ({} overflows) on stage {} with one request per group: weights {:.1f} "
        "GB + kv_cache {:.1f} GB + activations {:.1f} GB + comm_buffers {:.1f} GB = {:.1f} GB > "
        "{:.1f} GB usable",
        over, worst_stage, worst1.weights / 1e9, worst1.kv_cache / 1e9, worst1.activations / 1e9,
        worst1.comm_buffers / 1e9, worst1.total() / 1e9, worst1.capacity / 1e9);
    return r;
  }
  const double slope = worst2.total() - worst1.total();
  std::int64_t b = per_group;
  if (slope > 0)
    b = std::clamp<std::int64_t>(
        1 + static_cast<std::int64_t>(std::floor((worst1.capacity - worst1.total()) / slope)), 1,
        per_group);
  const std::int64_t waves = ceil_div(per_group, b);
  b = ceil_div(per_group, waves);  // even waves
  const double bd = static_cast<double>(b);
  // Requests that do not fill every group of every wave: the fullest group sets the attention
  // time, but the experts (shared by the stage's groups) see only the requests that exist.
  const double occupied =
      static_cast<double>(per_instance) / static_cast<double>(waves * b * p.attention_dp());
  r.sequences_per_group = b;
  r.waves = waves;
  r.memory = worst1;
  r.memory.kv_cache += (bd - 1) * (worst2.kv_cache - worst1.kv_cache);
  r.memory.activations += (bd - 1) * (worst2.activations - worst1.activations);
  r.memory.comm_buffers += (bd - 1) * (worst2.comm_buffers - worst1.comm_buffers);

  // Per micro-batch time of each layer shape, then of each stage.
  const double x = bd / static_cast<double>(p.microbatches);
  std::array<Result, kMaxKinds> per_kind;
  std::array<double, kMaxKinds> kind_time{};
  for (std::size_t k = 0; k < kinds_.size(); ++k) {
    per_kind[k].tier.fill(-1);
    kind_time[k] = layer_time(kinds_[k], p, x, occupied, per_kind[k], 1.0);
  }
  Result edge;
  edge.tier.fill(-1);
  const double embed_time =
      layer_time(embedding_, Plan{p.tp, p.cp, p.tp * p.cp, 1, 1}, x, 1.0, edge, 0.0);
  const double head_time =
      layer_time(head_, Plan{p.tp, p.cp, p.tp * p.cp, 1, 1}, x, 1.0, edge, 0.0);

  double sum_stages = 0, max_stage = -1;
  std::int64_t bottleneck = 0;
  // Exact chunked prefill (pipeline.h): micro-batches that cut sequences have unequal
  // attention; only a pipeline's schedule sees the difference (the totals are unchanged).
  const std::size_t ac = static_cast<std::size_t>(ComputeClass::attention_core);
  std::vector<double> factors, stage_t, stage_a;
  if (p.pp > 1) {
    factors = chunk_attention_factors(bd, p.microbatches);
    const bool equal = std::all_of(factors.begin(), factors.end(),
                                   [](double f) { return std::abs(f - 1) < 1e-12; });
    if (equal || static_cast<double>(waves * p.microbatches * p.pp) > kMaxScheduleSteps)
      factors.clear();
  }
  for (std::int64_t s = 0; s < p.pp; ++s) {
    const auto [first, last] = stage_layers(layers, p.pp, s);
    double t = (first == 0 ? embed_time : 0.0) + (last == layers ? head_time : 0.0);
    double a = 0;
    for (std::int64_t l = first; l < last; ++l) {
      const std::size_t k = static_cast<std::size_t>(layer_kind_[static_cast<std::size_t>(l)]);
      t += kind_time[k];
      a += per_kind[k].compute[ac];
    }
    if (!factors.empty()) {
      stage_t.push_back(t);
      stage_a.push_back(a);
    }
    sum_stages += t;
    if (t > max_stage) {
      max_stage = t;
      bottleneck = s;
    }
  }
  double send = 0;
  fabric::CollectiveResult send_c;
  if (p.pp > 1) {
    const double tokens_group =
        x * static_cast<double>(scenario_.sequence_length) / static_cast<double>(p.cp);
    fabric::Topology scratch;
    send_c = fabric::collective(
        strided_view(p.stage(), scratch), fabric::CollectiveOp::send_recv, 2,
        tokens_group * static_cast<double>(model_.hidden) * act_bytes_ / static_cast<double>(p.tp));
    send = send_c.time;
  }
  const double mb_total = static_cast<double>(waves * p.microbatches);
  const double m = static_cast<double>(p.microbatches);
  // Pipeline: the first micro-batch crosses every stage (and link), the rest follow at the
  // bottleneck stage's pace (GPipe-style schedule; Huang et al. 2019).
  const double fill = sum_stages + static_cast<double>(p.pp - 1) * send;
  if (factors.empty()) {
    r.latency_s = fill + (mb_total - 1) * max_stage;
    r.ttft_s = fill + (m - 1) * max_stage;
  } else {
    const PipelineTimes pt =
        pipeline_makespan(stage_t, stage_a, factors, waves * p.microbatches, send);
    r.latency_s = pt.latency;
    r.ttft_s = pt.first_wave;
  }

  // Breakdown: the bottleneck stage's micro-batches, plus pipeline fill.
  const auto [first, last] = stage_layers(layers, p.pp, bottleneck);
  for (std::int64_t l = first; l < last; ++l) {
    const Result& k = per_kind[static_cast<std::size_t>(layer_kind_[static_cast<std::size_t>(l)])];
    for (std::size_t c = 0; c < kComputeClasses; ++c) r.compute[c] += mb_total * k.compute[c];
    for (std::size_t c = 0; c < kCommKinds; ++c) {
      r.comm[c] += mb_total * k.comm[c];
      r.exposed[c] += mb_total * k.exposed[c];
      if (k.tier[c] >= 0) r.tier[c] = k.tier[c];
    }
  }
  const std::size_t eh = static_cast<std::size_t>(ComputeClass::embedding_head);
  r.compute[eh] +=
      mb_total * ((first == 0 ? embed_time : 0.0) + (last == layers ? head_time : 0.0));
  const std::size_t pps = static_cast<std::size_t>(CommKind::pp_send);
  r.comm[pps] = mb_total * send;
  r.exposed[pps] = static_cast<double>(p.pp - 1) * send;
  if (p.pp > 1) r.tier[pps] = send_c.bounding_tier;
  r.bubble_fraction =
      (r.latency_s - mb_total * max_stage - static_cast<double>(p.pp - 1) * send) / r.latency_s;

  const double n = static_cast<double>(r.gpus);
  const double tokens = static_cast<double>(scenario_.requests * scenario_.sequence_length);
  r.tokens_per_s_per_gpu = tokens / r.latency_s / n;
  r.mfu = flops_per_request_ * static_cast<double>(scenario_.requests) /
          (n * matmul_peak_ * r.latency_s);
  r.expert_skew = model_.moe.routed_experts > 0 && !p.moe_tp
                      ? max_rank_load(p.ep) * static_cast<double>(p.ep)
                      : 1.0;
  r.feasible = true;
  return r;
}

}  // namespace lightsim::prefill

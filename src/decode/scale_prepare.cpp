// StepEvaluator construction (the cost analysis reduced to per-operator coefficients), plan
// validity and the HBM budget (scale.h; docs/decode.md, "Decode at scale").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lightsim/core/as_double.h"
#include "lightsim/decode/scale.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/params.h"

namespace lightsim::decode {
namespace {

using Role = StepEvaluator::Role;

// Role and breakdown part of an operator of model::analyze, by the kind its builder gave it
// (model::OpKind, src/model/layer_ops.cpp).
std::pair<Role, Part> classify(const model::Operator& op) {
  using K = model::OpKind;
  switch (op.kind) {
    case K::embedding_head:
      return {Role::edge, Part::embedding_head};
    case K::routed_expert:
      return {Role::experts, Part::routed_experts};
    case K::shared_expert:
      return {Role::sharded, Part::shared_experts};
    case K::router:
    case K::routing:
      return {Role::replicated, Part::routing};
    case K::dense_ffn:
      return {Role::sharded, Part::dense_ffn};
    case K::attention_score:
    case K::softmax:
      return {Role::core, Part::attention_core};
    // Latent down-projections are not head-sharded: every TP rank computes them.
    case K::latent_projection:
      return {Role::replicated, Part::attention_projections};
    // The decode step runs MLA absorbed (no kv_b_proj); were it present it is head-sharded.
    case K::kv_up_projection:
    case K::head_projection:
      return {Role::sharded, Part::attention_projections};
    case K::other:
      break;
  }
  return {Role::replicated, Part::elementwise};
}

struct Formats {
  double matmul_peak = 0, attention_peak = 0, other_peak = 0;
  std::size_t matmul = 0, attention = 0;
};

// Two-batch-overlap stage of the operators of one layer, in model::analyze's order
// (src/model/layer_ops.cpp): everything before the first attention product is `prepare`; from
// there to the top-k selection `core`; shared experts `shared`; the dispatch permute and the
// routed experts `experts`; the combine and what follows `output` (decode/overlap.h).
class StageTracker {
 public:
  using Stage = StepEvaluator::Stage;
  Stage next(const model::Operator& op) {
    using K = model::OpKind;
    if (op.kind == K::shared_expert) return Stage::shared;
    if (op.kind == K::routed_expert || (op.kind == K::routing && op.name == "dispatch")) {
      after_experts_ = true;
      return Stage::experts;
    }
    if (op.kind == K::routing && op.name == "combine") return Stage::output;
    if (after_experts_) return Stage::output;
    if (op.op_class == model::OpClass::attention) seen_attention_ = true;
    return seen_attention_ ? Stage::core : Stage::prepare;
  }

 private:
  bool seen_attention_ = false, after_experts_ = false;
};

// Coefficients of one layer shape from analyses of one and two sequences.
StepEvaluator::LayerKind kind_of(const model::OpGroup& one, const model::OpGroup& two,
                                 const Formats& f, double experts_touched) {
  StepEvaluator::LayerKind kind;
  StageTracker stages;
  for (std::size_t i = 0; i < one.ops.size(); ++i) {
    const model::Operator &a = one.ops[i], &b = two.ops[i];
    StepEvaluator::OpCoef c;
    std::tie(c.role, c.part) = classify(a);
    c.stage = stages.next(a);
    c.flops_seq = b.flops - a.flops;
    c.flops_fixed = std::max(0.0, a.flops - c.flops_seq);
    c.weight_bytes = a.weight_bytes;
    // Routed experts: the weights of one expert (the analysis touched experts_touched).
    if (c.role == Role::experts) c.weight_bytes = a.weight_bytes / experts_touched;
    c.bytes_seq = (b.bytes_read + b.bytes_written - b.weight_bytes) -
                  (a.bytes_read + a.bytes_written - a.weight_bytes);
    c.peak = a.op_class == model::OpClass::matmul      ? f.matmul_peak
             : a.op_class == model::OpClass::attention ? f.attention_peak
                                                       : f.other_peak;
    if (a.op_class == model::OpClass::matmul) {
      c.tabled = true;
      c.kernel =
          c.role == Role::experts ? fabric::KernelClass::grouped_gemm : fabric::KernelClass::gemm;
      c.format = f.matmul;
      c.m_seq = b.m - a.m;
      c.k_dim = a.k;
      c.k_split = a.row_parallel;
    } else if (a.op_class == model::OpClass::attention) {
      c.tabled = true;
      c.kernel = fabric::KernelClass::attention;
      c.format = f.attention;
      // Softmax runs inside the fused decode attention kernel (FlashMLA / FlashDecoding):
      // its exponentials are counted, its launch is not (op_time).
    }
    kind.ops.push_back(c);
  }
  return kind;
}

model::Workload step_workload(std::int64_t q, std::int64_t sequences, std::int64_t context) {
  // A verify step of q tokens per sequence after context - 1 cached tokens: the first new
  // token attends to `context` keys (context as the single-GPU decode model counts it).
  model::Workload w = model::Workload::prefill(q, sequences, context - 1);
  w.logits_for_all_tokens = true;  // every position's logits (drafts are verified)
  w.mla_form = model::MlaForm::absorbed;
  return w;
}

}  // namespace

StepEvaluator::StepEvaluator(const ScaleSetup& setup)
    : setup_(setup), kernels_(setup.topology.gpu) {
  const ScaleScenario& sc = setup_.scenario;
  const model::Transformer& m = setup_.model;
  const fabric::GpuSpec& gpu = setup_.topology.gpu;
  const model::DTypePolicy& dt = sc.dtypes;
  q_ = 1 + sc.draft_tokens;
  analysis_context_ = std::max<std::int64_t>(sc.context, 2);
  Formats f;
  const std::string act(model::dtype_name(dt.activations));
  const std::string kv(model::dtype_name(dt.kv_cache));
  f.matmul_peak = gpu.peak(act).si();
  f.attention_peak = gpu.peak(kv).si();
  f.other_peak = gpu.peak("bf16").si();
  f.matmul = fabric::format_index(act);
  f.attention = fabric::format_index(kv);
  kv_values_ = as_double(model::kv_values_per_token_per_layer(m));
  kv_bytes_ = model::bytes_per_value(dt.kv_cache);
  weight_bytes_ = model::bytes_per_value(dt.weights);
  // Dispatch scales: DeepEP's FP8 dispatch carries one FP32 scale per 128 values; NVFP4 one
  // E4M3 scale per 16 values (NVIDIA, "Introducing NVFP4", 2025).
  const double a = model::bytes_per_value(dt.activations);
  dispatch_bytes_ = dt.activations == model::DType::fp8   ? a + 4.0 / 128.0
                    : dt.activations == model::DType::fp4 ? a + 1.0 / 16.0
                                                          : a;
  expert_params_ = 3.0 * as_double(m.hidden) * as_double(m.moe.expert_intermediate);
  const model::ParameterCount params = model::count_parameters(m);
  embedding_params_ = params.embedding;
  head_params_ = params.lm_head > 0 ? params.lm_head : params.embedding;

  auto analyses = [&](std::int64_t q, std::vector<LayerKind>& kinds, LayerKind& embedding,
                      LayerKind& head, std::vector<int>* layer_kind) {
    const model::CostReport one = model::analyze(m, dt, step_workload(q, 1, analysis_context_));
    const model::CostReport two = model::analyze(m, dt, step_workload(q, 2, analysis_context_));
    const double touched = std::max(one.expected_experts_touched, 1e-300);
    if (layer_kind) layer_kind->assign(m.layers.size(), -1);
    for (std::size_t g = 0; g < one.groups.size(); ++g) {
      const model::OpGroup& grp = one.groups[g];
      const bool edge = grp.layers.empty();
      LayerKind k = kind_of(grp, two.groups[g], f, touched);
      if (edge) {
        (g == 0 ? embedding : head) = std::move(k);
        continue;
      }
      const model::LayerShape& shape = m.layers[static_cast<std::size_t>(grp.layers.front())];
      k.moe = shape.moe;
      k.window = shape.attention_window;
      k.keys = model::keys_read(analysis_context_ - 1, q, k.window);
      k.pairs = model::causal_pairs(analysis_context_ - 1, q, k.window);
      if (layer_kind)
        for (std::int64_t l : grp.layers)
          (*layer_kind)[static_cast<std::size_t>(l)] = static_cast<int>(kinds.size());
      kinds.push_back(std::move(k));
    }
  };
  analyses(q_, kinds_, embedding_, head_, &layer_kind_);
  if (sc.draft_tokens > 0) {
    std::vector<LayerKind> draft;
    LayerKind unused;
    analyses(1, draft, unused, draft_head_, nullptr);
    draft_layer_ = draft.back();  // the MTP module repeats the last decoder layer's shape
  }
}

DecodePlan StepEvaluator::resolved(const DecodePlan& p) const {
  DecodePlan r = p;
  if (r.ep == 0) r.ep = setup_.model.moe.routed_experts == 0 ? 1 : (r.moe_tp ? r.tp : r.stage());
  return r;
}

std::string StepEvaluator::validate(const DecodePlan& plan) const {
  const DecodePlan p = resolved(plan);
  const model::Transformer& m = setup_.model;
  const std::int64_t layers = static_cast<std::int64_t>(m.layers.size());
  const std::int64_t E = m.moe.routed_experts;
  if (p.tp < 1 || p.dpa < 1 || p.ep < 1 || p.pp < 1) return "every degree must be >= 1";
  if (p.gpus() > setup_.topology.capacity())
    return fmt::format("{} GPUs exceed the fabric's {}", p.gpus(), setup_.topology.capacity());
  if (m.attention.heads % p.tp != 0)
    return fmt::format("TP={} does not divide the {} attention heads", p.tp, m.attention.heads);
  if (p.pp > layers) return fmt::format("PP={} exceeds the {} layers", p.pp, layers);
  if (E == 0 && (p.ep > 1 || p.moe_tp))
    return fmt::format("EP={} / MOE=tp need routed experts; the model is dense (use EP=1)", p.ep);
  if (p.stage() % p.ep != 0)
    return fmt::format("EP={} does not divide the stage's TP x DPA = {} GPUs", p.ep, p.stage());
  if (E > 0 && p.ep > E + setup_.scenario.redundant_experts)
    return fmt::format("EP={} exceeds the {} routed expert slots", p.ep,
                       E + setup_.scenario.redundant_experts);
  if (p.moe_tp && p.ep != p.tp)
    return fmt::format(
        "MOE=tp shards the experts over the TP group: EP must equal TP (EP={}, "
        "TP={})",
        p.ep, p.tp);
  if (p.moe_tp && m.moe.expert_intermediate % p.tp != 0)
    return fmt::format("MOE=tp: TP={} does not divide the expert width {}", p.tp,
                       m.moe.expert_intermediate);
  return "";
}

DecodeMemory StepEvaluator::memory(const DecodePlan& plan, std::int64_t context) const {
  const DecodePlan p = resolved(plan);
  const model::Transformer& m = setup_.model;
  const double tp = as_double(p.tp);
  const std::int64_t L = static_cast<std::int64_t>(m.layers.size());
  const std::int64_t per_stage = (L + p.pp - 1) / p.pp;
  const double E = as_double(m.moe.routed_experts),
               R = as_double(setup_.scenario.redundant_experts);
  const double slots = p.moe_tp ? E / tp : std::ceil((E + R) / as_double(p.ep));
  // KV per sequence on one GPU: GQA heads split over TP (replicated beyond the KV heads);
  // the MLA latent is shared by all heads, so every TP rank holds it whole.
  const double kv_div =
      m.attention.kind == model::AttentionKind::mla
          ? 1.0
          : std::min(tp, as_double(std::max<std::int64_t>(1, m.attention.kv_heads)));
  DecodeMemory mem;
  mem.capacity = setup_.topology.gpu.hbm_capacity.si() * setup_.scenario.hbm_usable_fraction;
  mem.max_batch = -1;
  for (std::int64_t s = 0; s < p.pp; ++s) {
    const std::int64_t first = s * per_stage, last = std::min(L, first + per_stage);
    double weights = 0, kv = 0;
    for (std::int64_t l = first; l < last; ++l) {
      const LayerKind& k =
          kinds_[static_cast<std::size_t>(layer_kind_[static_cast<std::size_t>(l)])];
      for (const OpCoef& op : k.ops)
        if (op.role == Role::replicated)
          weights += op.weight_bytes;
        else if (op.role != Role::experts)
          weights += op.weight_bytes / tp;
      if (k.moe) weights += slots * expert_params_ * weight_bytes_;
      kv += model::keys_read(context - 1, 1, k.window) * kv_values_ * kv_bytes_ / kv_div;
    }
    if (s == 0) weights += embedding_params_ * weight_bytes_ / tp;
    if (s == p.pp - 1 && !(m.tied_embeddings && p.pp == 1))
      weights += head_params_ * weight_bytes_ / tp;
    const double free = mem.capacity - weights;
    const std::int64_t per_group =
        free > 0 && kv > 0 ? static_cast<std::int64_t>(std::floor(free / kv)) : 0;
    const std::int64_t batch = per_group * p.dpa;
    if (mem.max_batch < 0 || batch < mem.max_batch) {
      mem.max_batch = batch;
      mem.weights = weights;
      mem.kv_per_sequence = kv;
    }
  }
  mem.kv_capacity_tokens = as_double(mem.max_batch) * as_double(context);
  return mem;
}

}  // namespace lightsim::decode

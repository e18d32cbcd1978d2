// Evaluator construction: the cost analysis reduced to per-operator coefficients, strided
// topology views and routing skew tables (evaluate.h); plan validity rules.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "lightsim/model/params.h"
#include "lightsim/prefill/evaluate.h"
#include "routing.h"

namespace lightsim::prefill {

std::string_view compute_class_name(ComputeClass c) {
  static constexpr std::array<std::string_view, kComputeClasses> names = {
      "attention_projections", "attention_core", "dense_ffn",   "shared_experts",
      "routed_experts",        "routing",        "elementwise", "embedding_head"};
  return names[static_cast<std::size_t>(c)];
}

std::string_view comm_kind_name(CommKind c) {
  static constexpr std::array<std::string_view, kCommKinds> names = {
      "tp_all_reduce", "cp_ring", "cp_all_to_all", "ep_dispatch", "ep_combine", "pp_send"};
  return names[static_cast<std::size_t>(c)];
}

double Result::compute_total() const {
  double s = 0;
  for (double v : compute) s += v;
  return s;
}
double Result::comm_total() const {
  double s = 0;
  for (double v : comm) s += v;
  return s;
}
double Result::exposed_total() const {
  double s = 0;
  for (double v : exposed) s += v;
  return s;
}

namespace {

using Role = Evaluator::Role;

// Role and breakdown class of an operator of model::analyze, by the kind its builder gave it
// (model::OpKind, src/model/layer_ops.cpp).
std::pair<Role, ComputeClass> classify(const model::Operator& op) {
  using K = model::OpKind;
  switch (op.kind) {
    case K::embedding_head:
      return {Role::sharded, ComputeClass::embedding_head};
    case K::routed_expert:
      return {Role::experts, ComputeClass::routed_experts};
    case K::shared_expert:
      return {Role::sharded, ComputeClass::shared_experts};
    case K::router:
    case K::routing:
      return {Role::sharded, ComputeClass::routing};
    case K::dense_ffn:
      return {Role::sharded, ComputeClass::dense_ffn};
    case K::kv_up_projection:
      return {Role::kv_up, ComputeClass::attention_projections};
    case K::attention_score:
    case K::softmax:
      return {Role::core, ComputeClass::attention_core};
    // Latent down-projections are not head-sharded: every TP rank computes them.
    case K::latent_projection:
      return {Role::replicated, ComputeClass::attention_projections};
    case K::head_projection:
      return {Role::sharded, ComputeClass::attention_projections};
    case K::other:
      break;
  }
  return {Role::replicated, ComputeClass::elementwise};
}

// The memory check's plan-independent inputs of a decoder layer shape (evaluate.h, memory()).
// Ops without weights add nothing to the weight sum (x + 0 = x), so leaving them out keeps it
// bit-identical; the largest output per role group gives each layer's largest output, since
// out x seqs / divisor is monotone in out.
void memory_inputs(Evaluator::LayerKind& kind) {
  kind.weights.clear();
  kind.out_replicated = kind.out_split = kind.out_experts = 0;
  for (const Evaluator::OpCoef& op : kind.ops) {
    switch (op.role) {
      case Role::replicated:
        if (op.weight_bytes != 0) kind.weights.push_back({op.weight_bytes, false});
        kind.out_replicated = std::max(kind.out_replicated, op.out_bytes_seq);
        break;
      case Role::sharded:
      case Role::core:
      case Role::kv_up:
        if (op.weight_bytes != 0) kind.weights.push_back({op.weight_bytes, true});
        kind.out_split = std::max(kind.out_split, op.out_bytes_seq);
        break;
      case Role::experts:  // expert weights are counted per slot, not per op
        kind.out_experts = std::max(kind.out_experts, op.out_bytes_seq);
        break;
    }
  }
}

// The DType named "bf16", "fp8" or "fp4" (the scenario schema admits only those).
model::DType dtype_named(const std::string& name) {
  for (model::DType d : {model::DType::bf16, model::DType::fp8, model::DType::fp4})
    if (model::dtype_name(d) == name) return d;
  LIGHTSIM_CHECK_AS(ConfigError, false, "unknown number format '{}' (bf16, fp8 or fp4)", name);
  return model::DType::bf16;
}

// Kernel formats of an operator's peaks (fabric::format_index of each).
struct Formats {
  double matmul_peak = 0, attention_peak = 0, other_peak = 0, expert_peak = 0;
  std::size_t matmul = 0, attention = 0, expert = 0;
  // Routed-expert weight and activation bytes relative to the model analysis's formats.
  double expert_weight_ratio = 1, expert_act_ratio = 1;
  double act_bytes = 2;  // bytes per value of the matmul activation format
};

std::vector<Evaluator::OpCoef> coefficients(const model::OpGroup& one, const model::OpGroup& two,
                                            bool head_or_embedding, const Formats& f) {
  std::vector<Evaluator::OpCoef> out;
  for (std::size_t i = 0; i < one.ops.size(); ++i) {
    const model::Operator &a = one.ops[i], &b = two.ops[i];
    Evaluator::OpCoef c;
    std::tie(c.role, c.cls) = classify(a);
    c.flops_seq = b.flops - a.flops;
    c.flops_fixed = std::max(0.0, a.flops - c.flops_seq);
    c.weight_bytes = a.weight_bytes;
    c.bytes_seq = (b.bytes_read + b.bytes_written - b.weight_bytes) -
                  (a.bytes_read + a.bytes_written - a.weight_bytes);
    c.out_bytes_seq = b.bytes_written - a.bytes_written;
    c.peak = a.op_class == model::OpClass::matmul      ? f.matmul_peak
             : a.op_class == model::OpClass::attention ? f.attention_peak
                                                       : f.other_peak;
    if (a.op_class == model::OpClass::matmul) {
      c.tabled = true;
      c.kernel =
          c.role == Role::experts ? fabric::KernelClass::grouped_gemm : fabric::KernelClass::gemm;
      c.format = f.matmul;
      if (c.role == Role::experts) {  // per-operator format of the routed experts
        c.peak = f.expert_peak;
        c.format = f.expert;
        c.weight_bytes *= f.expert_weight_ratio;
        c.bytes_seq *= f.expert_act_ratio;
      }
      c.m_seq = b.m - a.m;  // rows per sequence (linear in the sequences, like the FLOPs)
      // Per-token(-group) activation quantization before a low-precision GEMM, a kernel of
      // its own in SGLang's FP8 path (per_token_group_quant_fp8). Not for the router (BF16),
      // kv_a_proj (fused with q_a_proj on the same input) or the routed experts (their input
      // arrives quantized by the dispatch; the down projection's quantization is fused into
      // the activation kernel).
      if (c.format != fabric::format_index("bf16") && c.role != Role::experts &&
          a.kind != model::OpKind::router && !a.shares_input && !head_or_embedding)
        c.quant_bytes_per_value = 2.0 + f.act_bytes;
      c.k_dim = a.k;
      // Row-parallel matmuls split K over TP; the others split N (Megatron-LM layout).
      // (experts: only when sharded over TP, MOE=tp)
      c.k_split = a.row_parallel;
    } else if (a.op_class == model::OpClass::attention) {
      c.tabled = true;
      c.kernel = fabric::KernelClass::attention;
      c.format = f.attention;
      c.fused = a.kind == model::OpKind::softmax;
    }
    out.push_back(c);
  }
  return out;
}

// Divisors of n, ascending.
std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> d;
  for (std::int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

}  // namespace

Evaluator::Evaluator(const ScenarioSpec& scenario, const model::Transformer& model,
                     const fabric::Topology& topology, std::span<const std::int64_t> gpu_counts)
    : scenario_(scenario), model_(model), topology_(topology), kernels_(topology.gpu) {
  for (std::int64_t n : gpu_counts) {
    LIGHTSIM_CHECK_AS(ConfigError, n >= 1, "GPU counts must be >= 1 (got {})", n);
    const std::int64_t step = n / std::gcd(max_gpus_, n);
    if (__builtin_mul_overflow(max_gpus_, step, &max_gpus_))
      max_gpus_ = std::numeric_limits<std::int64_t>::max();
  }
  const fabric::GpuSpec& gpu = topology.gpu;
  const model::DTypePolicy& dt = scenario.dtypes;
  const std::string act(model::dtype_name(dt.activations));
  const std::string attn = scenario.attention_dtype.empty()
                               ? std::string(model::dtype_name(dt.kv_cache))
                               : scenario.attention_dtype;
  matmul_peak_ = gpu.peak(act).si();
  Formats formats;
  formats.matmul_peak = matmul_peak_;
  formats.attention_peak = gpu.peak(attn).si();
  formats.other_peak = gpu.peak("bf16").si();
  formats.matmul = fabric::format_index(act);
  formats.attention = fabric::format_index(attn);
  // Routed experts in their own format (scenario expert_dtype): weights and activations.
  const std::string expert = scenario.expert_dtype.empty() ? act : scenario.expert_dtype;
  formats.expert_peak = gpu.peak(expert).si();
  formats.expert = fabric::format_index(expert);
  if (!scenario.expert_dtype.empty()) {
    const model::DType e = dtype_named(scenario.expert_dtype);
    formats.expert_weight_ratio = model::bytes_per_value(e) / model::bytes_per_value(dt.weights);
    formats.expert_act_ratio = model::bytes_per_value(e) / model::bytes_per_value(dt.activations);
    expert_weight_bytes_ = model::bytes_per_value(e);
  } else {
    expert_weight_bytes_ = model::bytes_per_value(dt.weights);
  }
  formats.act_bytes = model::bytes_per_value(dt.activations);
  act_bytes_ = 2.0;  // TP all-reduce, combine and pipeline sends in BF16 (docs/prefill.md)
  dispatch_bytes_ = model::bytes_per_value(
      scenario.expert_dtype.empty() ? dt.activations : dtype_named(scenario.expert_dtype));
  kv_bytes_ = model::bytes_per_value(dt.kv_cache);
  LIGHTSIM_CHECK_AS(ConfigError, gpu.sm_count == 0 || scenario.ep_comm_sms <= gpu.sm_count,
                    "scenario '{}': ep_comm_sms = {} exceeds the sm_count = {} of gpu '{}'",
                    scenario.name, scenario.ep_comm_sms, gpu.sm_count, gpu.name);
  comm_sm_share_ = gpu.sm_count > 0 ? static_cast<double>(scenario.ep_comm_sms) /
                                          static_cast<double>(gpu.sm_count)
                                    : 0.0;
  kv_values_ = static_cast<double>(model::kv_values_per_token_per_layer(model));
  expert_params_ = 3.0 * static_cast<double>(model.hidden * model.moe.expert_intermediate);
  const model::ParameterCount params = model::count_parameters(model);
  embedding_params_ = params.embedding;
  head_params_ = params.lm_head > 0 ? params.lm_head : params.embedding;

  // Two analyses of one and two requests separate per-launch (weights) from per-sequence
  // terms; every term of model::analyze is linear in the sequence count at fixed length.
  const std::int64_t S = scenario.sequence_length;
  const model::CostReport one = model::analyze(model, dt, model::Workload::prefill(S, 1));
  const model::CostReport two = model::analyze(model, dt, model::Workload::prefill(S, 2));
  flops_per_request_ = one.flops;
  layer_kind_.assign(model.layers.size(), -1);
  for (std::size_t g = 0; g < one.groups.size(); ++g) {
    const model::OpGroup& a = one.groups[g];
    const bool edge = a.layers.empty();
    auto ops = coefficients(a, two.groups[g], edge, formats);
    if (edge) {
      LayerKind& e = g == 0 ? embedding_ : head_;
      e.ops = std::move(ops);
      e.attention = false;
      continue;
    }
    LayerKind kind;
    kind.ops = std::move(ops);
    kind.count = a.count();
    kind.moe = model.layers[static_cast<std::size_t>(a.layers.front())].moe;
    memory_inputs(kind);
    for (std::int64_t l : a.layers)
      layer_kind_[static_cast<std::size_t>(l)] = static_cast<int>(kinds_.size());
    kinds_.push_back(std::move(kind));
  }

  // Tables for the divisors of each GPU count only (a few hundred at most): precomputing every
  // stride up to the counts' least common multiple exhausted memory for counts such as 8192
  // and 8191 (lcm 67,100,672).
  const std::vector<double> loads =
      model.moe.routed_experts > 0
          ? detail::expert_loads(scenario.routing, model.moe.routed_experts)
          : std::vector<double>{};
  for (std::int64_t n : gpu_counts) {
    for (std::int64_t d : divisors(n)) {
      if (!strided_.contains(d)) strided_.emplace(d, strided(d));
      if (!loads.empty() && !max_load_.contains(d))
        max_load_.emplace(d, detail::max_rank_share(loads, scenario.routing.redundant_experts,
                                                    scenario.routing.placement, d));
    }
  }
}

const fabric::Topology& Evaluator::strided_view(std::int64_t s, fabric::Topology& scratch) const {
  if (const auto it = strided_.find(s); it != strided_.end()) return it->second;
  return scratch = strided(s);
}

fabric::Topology Evaluator::strided(std::int64_t s) const {
  fabric::Topology t = topology_;
  for (auto& tier : t.tiers) tier.domain_size = std::max<std::int64_t>(1, tier.domain_size / s);
  return t;
}

double Evaluator::max_rank_load(std::int64_t ep) const {
  if (const auto it = max_load_.find(ep); it != max_load_.end() && it->second > 0)
    return it->second;
  if (model_.moe.routed_experts == 0) return 1.0 / static_cast<double>(ep);
  const auto loads = detail::expert_loads(scenario_.routing, model_.moe.routed_experts);
  return detail::max_rank_share(loads, scenario_.routing.redundant_experts,
                                scenario_.routing.placement, ep);
}

std::string Evaluator::validate(const Plan& p) const {
  const std::int64_t heads = model_.attention.heads;
  const std::int64_t layers = static_cast<std::int64_t>(model_.layers.size());
  const std::int64_t n = p.gpus();
  if (p.tp < 1 || p.cp < 1 || p.ep < 1 || p.edp < 1 || p.pp < 1 || p.dp < 1 || p.microbatches < 1)
    return "every degree and the micro-batch count must be >= 1";
  if (n > topology_.capacity())
    return fmt::format("{} GPUs exceed the fabric's {}", n, topology_.capacity());
  if (n > max_gpus_)
    return fmt::format("{} GPUs exceed the evaluator's bound of {} GPUs", n, max_gpus_);
  if (p.stage() % (p.tp * p.cp) != 0)
    return fmt::format("the stage's EP x EDP = {} GPUs are not a multiple of TP x CP = {}",
                       p.stage(), p.tp * p.cp);
  if (heads % p.tp != 0)
    return fmt::format("TP={} does not divide the {} attention heads", p.tp, heads);
  if (p.cp > 1 && p.cp_algorithm == CpAlgorithm::ulysses && heads % (p.tp * p.cp) != 0)
    return fmt::format(
        "Ulysses degree CP={} with TP={} needs {} head groups; the model has {} heads", p.cp, p.tp,
        p.tp * p.cp, heads);
  if (2 * p.cp > scenario_.sequence_length)
    return fmt::format("CP={} needs >= {} tokens per sequence (two zig-zag chunks per rank)", p.cp,
                       2 * p.cp);
  if (p.pp > layers) return fmt::format("PP={} exceeds the {} layers", p.pp, layers);
  if (p.microbatches < p.pp && p.pp > 1)
    return fmt::format("MB={} leaves pipeline stages idle (needs >= PP={})", p.microbatches, p.pp);
  if (model_.moe.routed_experts > 0 &&
      p.ep > model_.moe.routed_experts + scenario_.routing.redundant_experts)
    return fmt::format("EP={} exceeds the {} routed expert slots", p.ep,
                       model_.moe.routed_experts + scenario_.routing.redundant_experts);
  if (p.moe_tp && p.ep != p.tp)
    return fmt::format(
        "MOE=tp shards the routed experts over the TP group: EP must equal TP (EP={}, TP={})", p.ep,
        p.tp);
  if (p.moe_tp && model_.moe.routed_experts > 0 && model_.moe.expert_intermediate % p.tp != 0)
    return fmt::format("MOE=tp: TP={} does not divide the expert width {}", p.tp,
                       model_.moe.expert_intermediate);
  return "";
}

}  // namespace lightsim::prefill

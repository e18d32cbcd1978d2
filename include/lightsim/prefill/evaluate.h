// Prefill time of one plan: per-layer compute on the achievable roofline, collectives on the
// placed groups, their overlap, pipeline fill, routing skew and the HBM budget
// (docs/prefill.md, "Step time" and "Memory").
//
// An Evaluator is built once per (scenario, fabric): it runs the model's cost analysis,
// reduces it to per-operator coefficients (a part fixed per kernel launch, such as weights,
// and a part proportional to the sequences processed), precomputes the strided views of the
// topology and the most loaded EP rank for every EP degree. evaluate() then allocates nothing
// on the feasible path and runs in microseconds (bench/prefill/).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/fabric/collective.h"
#include "lightsim/fabric/kernels.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/cost.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prefill/plan.h"
#include "lightsim/prefill/scenario.h"

namespace lightsim::prefill {

// Compute classes of the breakdown.
enum class ComputeClass {
  attention_projections,  // q/kv/o projections, latent up-projection
  attention_core,         // score, softmax, value products (the quadratic term)
  dense_ffn,              // FFN of dense layers
  shared_experts,
  routed_experts,  // expert GEMMs on the most loaded EP rank
  routing,         // router, top-k, local permute and combine
  elementwise,     // norms, rope, residuals, KV-cache writes
  embedding_head,
  count
};
// Communication kinds of the breakdown.
enum class CommKind {
  tp_all_reduce,
  cp_ring,
  cp_all_to_all,
  ep_dispatch,
  ep_combine,
  pp_send,
  count
};
std::string_view compute_class_name(ComputeClass c);
std::string_view comm_kind_name(CommKind c);

constexpr std::size_t kComputeClasses = static_cast<std::size_t>(ComputeClass::count);
constexpr std::size_t kCommKinds = static_cast<std::size_t>(CommKind::count);

// HBM use per GPU of the fullest pipeline stage (bytes).
struct MemoryUse {
  double weights = 0, kv_cache = 0, activations = 0, comm_buffers = 0;
  double capacity = 0;  // HBM x hbm_usable_fraction
  double total() const { return weights + kv_cache + activations + comm_buffers; }
};

struct Result {
  bool feasible = false;
  std::string reason;  // why not (invalid plan, or the memory term that overflows)
  Plan plan;
  MemoryUse memory;
  std::int64_t gpus = 0;
  std::int64_t sequences_per_group = 0;  // requests one attention group prefills at once
  std::int64_t waves = 0;                // rounds of that many requests per group
  double ttft_s = 0;     // a request of the first wave: its wave through the pipeline
  double latency_s = 0;  // the whole batch
  double tokens_per_s_per_gpu = 0;
  double mfu = 0;              // model FLOPs / (GPUs x matmul peak x latency)
  double expert_skew = 1;      // most loaded EP rank's routed load / the mean
  double bubble_fraction = 0;  // pipeline fill share of the latency
  // Critical-path seconds over the whole batch (stage with the longest time, all waves).
  std::array<double, kComputeClasses> compute{};
  std::array<double, kCommKinds> comm{};     // time on the network
  std::array<double, kCommKinds> exposed{};  // part not hidden behind compute
  std::array<int, kCommKinds> tier{};        // bounding tier index (-1 = none)
  double compute_total() const;
  double comm_total() const;
  double exposed_total() const;
};

class Evaluator {
 public:
  // `gpu_counts`: the GPU counts plans will use; the tables are precomputed for every divisor
  // of each (a plan's strides divide its GPU count), other strides are computed when asked.
  Evaluator(const ScenarioSpec& scenario, const model::Transformer& model,
            const fabric::Topology& topology, std::span<const std::int64_t> gpu_counts);
  // For plans of `gpus` GPUs (or of a divisor of it).
  Evaluator(const ScenarioSpec& scenario, const model::Transformer& model,
            const fabric::Topology& topology, std::int64_t gpus)
      : Evaluator(scenario, model, topology, std::span<const std::int64_t>(&gpus, 1)) {}

  // Validity first (divisibility, heads, experts, fabric size), then memory, then time.
  Result evaluate(const Plan& plan) const;
  // evaluate() calls on this evaluator so far (tests check that a search evaluates each plan
  // once).
  std::int64_t evaluations() const { return evaluations_.count.load(std::memory_order_relaxed); }
  // "" when the plan is structurally valid for `gpus`, else the reason.
  std::string validate(const Plan& plan) const;

  const ScenarioSpec& scenario() const { return scenario_; }
  const model::Transformer& model() const { return model_; }
  const fabric::Topology& topology() const { return topology_; }
  const fabric::KernelEfficiency& kernels() const { return kernels_; }
  double model_flops_per_request() const { return flops_per_request_; }
  // Most loaded EP rank's share of routed tokens for an EP degree (uniform: 1 / EP).
  double max_rank_load(std::int64_t ep) const;

  // Per-operator coefficients: cost = fixed (per kernel launch) + per_sequence x sequences.
  enum class Role : std::uint8_t {
    replicated,  // per token, not split by TP (norms, residuals, latent projections)
    sharded,     // split by TP and CP (head / column sharded matmuls, FFN, routing)
    core,        // attention products: split by TP and CP
    kv_up,       // MLA latent up-projection over all keys: split by TP x Ulysses degree
    experts,     // routed expert GEMMs: set by the most loaded EP rank
  };
  struct OpCoef {
    Role role = Role::sharded;
    ComputeClass cls = ComputeClass::elementwise;
    double flops_fixed = 0, flops_seq = 0;   // FLOPs
    double weight_bytes = 0, bytes_seq = 0;  // HBM bytes
    double out_bytes_seq = 0;                // activation bytes written per sequence
    double peak = 0;                         // FLOP/s of its number format
    // Kernel-table lookup (fabric/kernels.h): the class and format of a matmul or attention
    // kernel, its rows per sequence (GEMM M; routed experts: every (token, expert) row) and
    // its reduction dimension K (split by TP when `k_split`). `tabled` is false for operators
    // costed on the roofline (elementwise, data movement) and `fused` marks softmax, whose
    // cost a measured attention kernel already includes.
    bool tabled = false, k_split = false, fused = false;
    fabric::KernelClass kernel = fabric::KernelClass::gemm;
    std::size_t format = 0;
    double m_seq = 0, k_dim = 0;
    // Bytes per input value of the separate kernel that quantizes this matmul's BF16 input to
    // its FP8/FP4 format (read 2 B, write the format); 0 when none runs (BF16 matmuls, the
    // router, inputs shared with or quantized by another kernel). docs/prefill.md.
    double quant_bytes_per_value = 0;
  };
  // An operator's weights in the memory check: `bytes` per GPU before the split, split by TP
  // when `tp_split` (sharded, core and kv_up roles), else held whole (replicated).
  struct WeightTerm {
    double bytes = 0;
    bool tp_split = false;
  };
  struct LayerKind {
    std::vector<OpCoef> ops;
    std::int64_t count = 0;
    bool moe = false;
    bool attention = true;  // false for the embedding and the output head
    // The memory check's plan-independent inputs (memory()): the ops holding weights, in op
    // order; the largest activation bytes written per sequence among the replicated ops (split
    // by CP), the TP x CP split ops (sharded, core, kv_up) and the routed-expert ops.
    std::vector<WeightTerm> weights;
    double out_replicated = 0, out_split = 0, out_experts = 0;
  };

 private:
  // `fill` <= 1: the share of the groups' request slots that hold a request (the routed
  // experts and the all-to-all receive side see only those).
  double layer_time(const LayerKind& kind, const Plan& plan, double seqs, double fill, Result& r,
                    double scale) const;
  fabric::CollectiveResult expert_all_to_all(std::int64_t ep, double tokens, double k,
                                             double bytes_per_value) const;
  void memory(const Plan& plan, std::int64_t first, std::int64_t last, double seqs_group,
              MemoryUse& m) const;
  // A relaxed atomic count that copies by value (an Evaluator stays copyable).
  struct Counter {
    mutable std::atomic<std::int64_t> count{0};
    Counter() = default;
    Counter(const Counter& o) : count(o.count.load(std::memory_order_relaxed)) {}
    Counter& operator=(const Counter& o) {
      count.store(o.count.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return *this;
    }
  };
  Counter evaluations_;

  ScenarioSpec scenario_;
  model::Transformer model_;
  fabric::Topology topology_;
  fabric::KernelEfficiency kernels_;  // the GPU's kernel table, compiled once
  // The topology seen by a group of stride s (tier domains of D_j / s members).
  fabric::Topology strided(std::int64_t s) const;
  // strided(s): the precomputed one, or computed into `scratch` for a stride not tabled.
  const fabric::Topology& strided_view(std::int64_t s, fabric::Topology& scratch) const;
  std::map<std::int64_t, fabric::Topology> strided_;  // s -> strided(s), s a divisor of a count
  std::map<std::int64_t, double> max_load_;           // ep -> most loaded rank's share
  std::int64_t max_gpus_ = 1;     // lcm of the GPU counts (saturating): the largest plan allowed
  std::vector<LayerKind> kinds_;  // decoder layer shapes
  std::vector<int> layer_kind_;   // per decoder layer: index into kinds_
  LayerKind embedding_, head_;
  double flops_per_request_ = 0;
  double matmul_peak_ = 0;
  double act_bytes_ = 2, dispatch_bytes_ = 1, kv_bytes_ = 1;
  double expert_weight_bytes_ = 1;  // bytes per routed-expert weight (expert_dtype)
  double comm_sm_share_ = 0;        // share of SMs the expert all-to-all holds (overlap.h)
  double kv_values_ = 0;            // cached values per token per layer
  double expert_params_ = 0;        // parameters of one routed expert
  double embedding_params_ = 0, head_params_ = 0;
};

}  // namespace lightsim::prefill

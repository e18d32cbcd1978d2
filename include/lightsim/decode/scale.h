// Decode at scale: one decode step of a batch on a multi-GPU instance under a DecodePlan
// (docs/decode.md, "Decode at scale"), for any model the model module loads (dense or MoE,
// MLA or GQA attention).
//
// Per step on the critical GPU: every operator of model::analyze timed as max(compute at the
// GPU's measured kernel efficiency, HBM bytes at the achievable bandwidth) (fabric/kernels.h,
// the tables of the prefill model), with weights read per GPU shard and the KV cache of its
// sequences; routed experts on the most loaded EP rank (expert_skew) reading only the experts
// its tokens touch; DeepEP low-latency dispatch and combine per MoE layer (fabric/expert.h);
// TP all-reduces (fabric/collective.h); optional two-batch overlap; pipeline stages; a CUDA
// graph's per-kernel cost; MTP drafts with accepted tokens per step as an input. KV capacity:
// the batch x context that fits in HBM after the weights.
//
//   const ScaleSetup s = prepare(load_scale_scenario("deepseek_v3_h800_ep144", load), load);
//   const StepEvaluator ev(s);
//   StepBreakdown b = ev.step_time(parse_plan("DPA=144,EP=144", 144), 128 * 144, 4096);
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"
#include "lightsim/core/units.h"
#include "lightsim/decode/plan.h"
#include "lightsim/fabric/kernels.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"

namespace lightsim::decode {

// A decode instance to study (kind "decode_scale_scenario", configs/decode_scale/).
struct ScaleScenario {
  static constexpr std::string_view kind = "decode_scale_scenario";
  static constexpr std::string_view preset_dir = "decode_scale";

  std::string name;
  std::string description;
  std::string model;  // configs/models/NAME.json, or a config.json path
  model::DTypePolicy dtypes;
  config::Ref<fabric::FabricSpec> fabric = "hgx_h800";
  std::int64_t gpus = 8;        // GPUs of the instance (plan search)
  std::string plan;             // "" = searched (decode plan); decode step needs one
  std::int64_t batch = 0;       // sequences decoded together on the instance; 0 = searched
  std::int64_t context = 4096;  // keys each sequence attends to at this step
  // Multi-token prediction / speculative decoding: draft tokens verified per step and the
  // mean tokens accepted per step (1 + accepted drafts); 0 drafts = plain decode.
  std::int64_t draft_tokens = 0;
  double accepted_tokens = 1.0;
  double expert_skew = 1.0;            // most loaded EP rank's routed rows / the mean (>= 1)
  std::int64_t redundant_experts = 0;  // extra expert replicas spread over the EP ranks
  bool two_batch_overlap = false;      // two micro-batches: communication behind compute
  // CUDA-graph replay: per-kernel cost inside a graph and the graph launch once per pass.
  Time graph_kernel_gap = Time::si(0.5e-6);
  Time graph_launch = Time::si(2.5e-6);
  double hbm_usable_fraction = 0.9;    // HBM for weights + KV after runtime and workspace
  Time tpot_target = Time::si(50e-3);  // plan search: time per output token at most this
  std::int64_t top = 5;                // plans listed by the search
  static void describe(config::Schema<ScaleScenario>& s);
};

ScaleScenario load_scale_scenario(const std::string& name_or_file,
                                  const config::LoadOptions& options);

// A scenario with its model and fabric loaded and compiled.
struct ScaleSetup {
  ScaleScenario scenario;
  model::Transformer model;
  fabric::Topology topology;
};
ScaleSetup prepare(const ScaleScenario& scenario, const config::LoadOptions& options);

// Compute parts and communication kinds of the breakdown.
enum class Part : std::uint8_t {
  attention_projections,
  attention_core,  // score and value products over the KV cache (the KV read)
  dense_ffn,
  shared_experts,
  routed_experts,  // the most loaded EP rank
  routing,
  elementwise,
  embedding_head,
  count
};
enum class Comm : std::uint8_t { tp_all_reduce, ep_dispatch, ep_combine, pp_send, count };
constexpr std::size_t kParts = static_cast<std::size_t>(Part::count);
constexpr std::size_t kComms = static_cast<std::size_t>(Comm::count);
std::string_view part_name(Part p);
std::string_view comm_name(Comm c);

// HBM per GPU of the fullest stage (bytes).
struct DecodeMemory {
  double weights = 0;             // resident weight shard
  double kv_per_sequence = 0;     // KV of one sequence at the step's context, on one GPU
  double capacity = 0;            // HBM x hbm_usable_fraction
  std::int64_t max_batch = 0;     // sequences the instance holds at this context
  double kv_capacity_tokens = 0;  // max_batch x context
};

struct StepBreakdown {
  bool feasible = false;
  std::string reason;  // invalid plan, or the memory that overflows
  DecodePlan plan;
  std::int64_t gpus = 0, batch = 0, context = 0;
  std::int64_t sequences_per_group = 0;  // per attention group, per micro-batch (the most loaded)
  DecodeMemory memory;
  // Seconds per step on the critical path (stages summed, TBO micro-batches included).
  std::array<double, kParts> compute{};
  std::array<double, kComms> comm{};     // time on the network
  std::array<double, kComms> exposed{};  // part not hidden behind compute
  std::array<int, kComms> tier{};        // bounding tier index (-1 = none)
  double launch = 0;                     // CUDA-graph kernel gaps and graph launches
  double mtp_draft = 0;                  // the MTP module's draft passes
  double pipeline_wait = 0;              // PP: round time beyond one micro-batch's pass
  double step_time = 0;                  // s per decode step
  double tpot = 0;                       // s per output token: step_time / accepted tokens
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0;
  // Per GPU per step (the critical GPU): bytes read and FLOPs.
  double weight_bytes_read = 0, kv_bytes_read = 0, flops = 0;
  double expert_rows = 0;      // routed rows on the most loaded EP rank per micro-batch
  double experts_touched = 0;  // distinct expert slots its rows touch
  std::int64_t kernels = 0;    // kernels per step on one GPU
  double compute_total() const;
  double exposed_total() const;
};

// Built once per scenario (the model's cost analysis reduced to per-operator coefficients);
// step_time then allocates nothing on the feasible path and runs in microseconds.
class StepEvaluator {
 public:
  explicit StepEvaluator(const ScaleSetup& setup);

  // One step of `batch` sequences (instance total) at `context` keys each. An invalid plan or
  // HBM overflow is a result (feasible = false, reason), never an exception.
  StepBreakdown step_time(const DecodePlan& plan, std::int64_t batch, std::int64_t context) const;
  // "" when the plan is structurally valid, else the reason.
  std::string validate(const DecodePlan& plan) const;
  // Memory of a plan at a context (max_batch = 0 when the weights alone overflow).
  DecodeMemory memory(const DecodePlan& plan, std::int64_t context) const;

  const ScaleSetup& setup() const { return setup_; }
  const fabric::KernelEfficiency& kernels() const { return kernels_; }

  enum class Role : std::uint8_t { replicated, sharded, core, experts, edge };
  // Stage of a MoE layer under two-batch overlap (decode/overlap.h): prepare, core, shared,
  // experts, output.
  enum class Stage : std::uint8_t { prepare, core, shared, experts, output };
  struct OpCoef {
    Role role = Role::sharded;
    Part part = Part::elementwise;
    Stage stage = Stage::prepare;
    double flops_fixed = 0, flops_seq = 0;   // FLOPs: per pass, per sequence
    double weight_bytes = 0, bytes_seq = 0;  // HBM bytes: weights (experts: per expert)
    double peak = 0;                         // FLOP/s of its format
    bool tabled = false, k_split = false;
    fabric::KernelClass kernel = fabric::KernelClass::gemm;
    std::size_t format = 0;
    double m_seq = 0, k_dim = 0;  // GEMM rows per sequence, reduction dimension
  };
  struct LayerKind {
    std::vector<OpCoef> ops;
    std::int64_t window = 0;  // attention window of its layers (0 = global)
    bool moe = false;
    double keys = 0, pairs = 0;  // per sequence at the analysis context (scaled per step)
  };

 private:
  struct Pass {  // one micro-batch through some layers on one GPU
    double time = 0, flops = 0, weight_bytes = 0, kv_bytes = 0;
    std::int64_t kernels = 0;
  };
  // Compute time and HBM bytes of one operator, before the roofline's max.
  struct KernelCost {
    double compute = 0, bytes = 0;
  };
  // Kernel time of one operator for `seqs` sequences of an attention group; adds to `pass`;
  // `cost` (if given) receives its compute time and bytes.
  double op_time(const OpCoef& op, const DecodePlan& p, double seqs, double keys_ratio,
                 double pairs_ratio, Pass& pass, KernelCost* cost = nullptr) const;
  // One layer for one micro-batch (x sequences per group, `tokens` tokens per sequence,
  // `stage_seqs` sequences over the stage); adds its parts to `out` (times `scale`).
  double layer_time(const LayerKind& kind, const DecodePlan& p, double x, double stage_seqs,
                    double tokens, std::int64_t context, Pass& pass, StepBreakdown& out,
                    double scale) const;
  double expert_time(const LayerKind& kind, const DecodePlan& p, double x, double stage_seqs,
                     double tokens, Pass& pass, StepBreakdown& out, double scale) const;
  DecodePlan resolved(const DecodePlan& p) const;

  ScaleSetup setup_;
  fabric::KernelEfficiency kernels_;
  std::int64_t q_ = 1;                    // tokens per sequence per step (1 + drafts)
  std::int64_t analysis_context_ = 4096;  // context of the cost analysis
  std::vector<LayerKind> kinds_;          // decoder layer shapes, q tokens per sequence
  std::vector<int> layer_kind_;           // per decoder layer: index into kinds_
  LayerKind embedding_, head_;
  LayerKind draft_layer_, draft_head_;  // one MTP layer and head at 1 token per sequence
  double kv_values_ = 0, kv_bytes_ = 1, dispatch_bytes_ = 1;
  double expert_params_ = 0, weight_bytes_ = 1;
  double embedding_params_ = 0, head_params_ = 0;
};

// Every field, SI units in the key names.
Json to_json(const StepBreakdown& b);

}  // namespace lightsim::decode

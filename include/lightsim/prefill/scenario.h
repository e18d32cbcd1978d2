// A prefill scenario (kind "prefill_scenario", configs/scenarios/): the model and its number
// formats, the request shape, expert routing statistics, the fabrics and GPU counts to study,
// and the fixed plans that force communication-limited placements (docs/prefill.md).
// The seed's published figures for the study live apart (kind "prefill_study_seed",
// configs/references/) and are printed beside computed values, never used as inputs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"

namespace lightsim::prefill {

// How routed tokens spread over experts: uniform, Zipf (p_i ~ 1/i^s over expert rank i) or
// an explicit histogram of relative loads (one value per routed expert).
enum class RoutingDistribution { uniform, zipf, histogram };
// How experts (and replicas) are laid onto the EP ranks: round_robin (expert i on rank
// i mod EP, hottest = id 0), contiguous (E/EP consecutive ids per rank: hot experts share a
// rank, the worst case) or balanced (longest-processing-time greedy, as a load balancer does).
enum class ExpertPlacement { round_robin, contiguous, balanced };

struct RoutingSpec {
  static constexpr std::string_view kind = "prefill_routing";
  RoutingDistribution distribution = RoutingDistribution::uniform;
  double zipf_s = 1.0;            // Zipf exponent; 0 = uniform
  std::vector<double> histogram;  // relative loads, one per routed expert
  ExpertPlacement placement = ExpertPlacement::round_robin;
  std::int64_t redundant_experts = 0;  // extra replicas of the hottest experts (EPLB-style)
  static void describe(config::Schema<RoutingSpec>& s);
};

struct ScenarioSpec {
  static constexpr std::string_view kind = "prefill_scenario";
  static constexpr std::string_view preset_dir = "scenarios";

  std::string name;
  std::string description;
  std::string model;  // configs/models/NAME.json, or a path to a config.json
  model::DTypePolicy dtypes;
  std::string attention_dtype;  // format of the attention products; "" = the KV-cache format
  // Format of the routed experts' weights, activations and dispatch (e.g. NVFP4 experts beside
  // FP8 attention and dense layers); "" = dtypes.weights and dtypes.activations.
  std::string expert_dtype;
  std::int64_t sequence_length = 8192;  // tokens per request (prompt length)
  std::int64_t requests = 1;            // requests prefilled together (the batch)
  RoutingSpec routing;
  bool ring_overlap = true;            // ring CP steps overlap attention compute
  bool two_microbatch_overlap = true;  // expert all-to-all overlaps the other micro-batch
  // SMs the expert all-to-all kernels hold while they run (DeepEP normal mode; its default
  // Buffer.num_sms = 20). Compute beside them runs on the rest (docs/prefill.md).
  std::int64_t ep_comm_sms = 20;
  // Under two-micro-batch overlap, GEMMs run on sm_count - ep_comm_sms SMs for the whole layer
  // (SGLang's configure_deep_gemm_num_sms around the overlapped DeepGEMM calls).
  bool gemm_sm_cap = true;
  double hbm_usable_fraction = 0.9;  // HBM left after runtime, workspace, fragmentation
  // configs/fabrics/ names or files, read and checked with the scenario; the first is the
  // baseline. --set addresses them as fabrics.KEY.
  std::vector<config::Ref<fabric::FabricSpec>> fabrics;
  std::vector<std::int64_t> gpu_counts;  // GPU counts studied
  std::vector<std::string> fixed_plans;  // communication-limited plans, "TP=1,EP=144,CP=1"
  std::string seed_key;                  // figures of configs/references/prefill_study_seed.yaml
  static void describe(config::Schema<ScenarioSpec>& s);
};

// One published figure of the seed's prefill study: a value or a range [low, high].
struct SeedFigure {
  static constexpr std::string_view kind = "prefill_seed_figure";
  std::string scenario;  // seed_key of the scenario it belongs to, or "all"
  std::string figure;    // speedup, speedup_stressed, speedup_comm_limited, speedup_production,
                         // tokens_per_s_per_gpu_baseline, tokens_per_s_per_gpu_photonic
  double low = 0, high = 0;
  std::string text;  // the seed's wording
  static void describe(config::Schema<SeedFigure>& s);
};

struct StudySeedReference {
  static constexpr std::string_view kind = "prefill_study_seed";
  std::string source;
  std::vector<SeedFigure> figures;
  static void describe(config::Schema<StudySeedReference>& s);
};

// A published measurement of a deployed prefill system (not a seed figure): the scenario that
// restates its deployment, the plan it ran and the measured figure. Our copper model is
// validated against it (docs/prefill.md, "Validation against measured prefill").
struct Measurement {
  static constexpr std::string_view kind = "prefill_measurement";
  std::string id;        // unique name of the row (default: the scenario's)
  std::string scenario;  // configs/scenarios/ name restating the deployment
  std::string plan;      // the deployed plan, "TP=1,CP=1,EP=32,DP=1"
  std::int64_t gpus = 0;
  double tokens_per_s_per_gpu = 0;  // computed (not cache-hit) prefill tokens/s per GPU
  std::string source;               // where the figure is published
  std::string text;                 // how the figure is read from the source
  // Used to fit a kernel table or other parameter: excluded from the validation error.
  bool fitted = false;
  const std::string& name() const { return id.empty() ? scenario : id; }
  static void describe(config::Schema<Measurement>& s);
};

struct MeasurementReference {
  static constexpr std::string_view kind = "prefill_measurements";
  std::vector<Measurement> measurements;
  static void describe(config::Schema<MeasurementReference>& s);
};

// Loads configs/scenarios/NAME.yaml (or a file) with the given preset roots.
ScenarioSpec load_scenario(const std::string& name_or_file, const config::LoadOptions& options);
// The model of a scenario: configs/models/NAME.json under the preset roots, or a file.
model::Transformer load_model(const std::string& name_or_file, const config::LoadOptions& options);
StudySeedReference load_study_seed(const config::LoadOptions& options);
// configs/references/prefill_measured.yaml under the preset roots.
MeasurementReference load_measurements(const config::LoadOptions& options);

}  // namespace lightsim::prefill

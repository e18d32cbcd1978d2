// A serving scenario (kind "serve_scenario", configs/serve/): the model and its number formats,
// the traffic (a synthetic arrival process or a trace file), the latency targets, the
// scheduler's limits, the pools of model instances (colocated, or prefill and decode pools
// joined by a fabric tier for the KV transfer) and the step model that times each batch step
// (docs/serving.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/config_ref.h"
#include "lightsim/core/units.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"
#include "lightsim/serve/cost_model.h"
#include "lightsim/serve/host.h"
#include "lightsim/serve/prism_spec.h"

namespace lightsim::serve {

enum class ArrivalProcess { poisson, gamma, trace };
enum class LengthDistribution { fixed, uniform, lognormal };

// Tokens per request of a synthetic workload: fixed (= median), uniform integers in
// [min, max], or lognormal with the given median and log-space sigma, rounded and clipped to
// [min, max].
struct LengthSpec {
  static constexpr std::string_view kind = "serve_lengths";
  LengthDistribution distribution = LengthDistribution::fixed;
  std::int64_t median = 512;  // tokens
  std::int64_t min = 1, max = 1 << 20;
  double sigma = 1.0;  // lognormal: standard deviation of ln(tokens)
  static void describe(config::Schema<LengthSpec>& s);
};

// Where requests come from. poisson: exponential inter-arrival times at `rate`; gamma: gamma
// inter-arrival times of mean 1/rate and coefficient of variation `cv` (cv = 1 is Poisson,
// cv > 1 is bursty); trace: a CSV file (docs/serving.md, "Traces").
struct ArrivalSpec {
  static constexpr std::string_view kind = "serve_arrivals";
  ArrivalProcess process = ArrivalProcess::poisson;
  Frequency rate = Frequency::si(10);  // requests per second (0: no arrivals)
  double cv = 1.0;                     // gamma: std / mean of the inter-arrival time
  std::int64_t requests = 1000;        // synthetic: requests generated
  LengthSpec prompt;                   // synthetic: prompt tokens
  LengthSpec output = {.distribution = LengthDistribution::fixed,
                       .median = 128,
                       .min = 1,
                       .max = 1 << 20,
                       .sigma = 1.0};  // synthetic: output tokens (the first one included)
  std::string trace;  // trace: CSV path (relative to the scenario's folder, then config roots)
  // Trace column names (matched exactly, header required); the Azure LLM inference trace's
  // are TIMESTAMP, ContextTokens, GeneratedTokens.
  std::string time_column = "arrival_s";
  std::string prompt_column = "prompt_tokens";
  std::string output_column = "output_tokens";
  static void describe(config::Schema<ArrivalSpec>& s);
};

// The latency targets a request must meet to count towards goodput.
struct SloSpec {
  static constexpr std::string_view kind = "serve_slo";
  Time ttft = Time::si(1.0);   // arrival -> first output token
  Time tpot = Time::si(0.05);  // mean time per output token after the first
  static void describe(config::Schema<SloSpec>& s);
};

// Per-instance scheduler limits (continuous batching with chunked prefill, Sarathi-Serve).
struct SchedulerSpec {
  static constexpr std::string_view kind = "serve_scheduler";
  std::int64_t max_batch = 256;      // requests resident in one instance's batch
  std::int64_t token_budget = 2048;  // tokens per step: decode tokens + prefill chunk
  std::int64_t block_tokens = 16;    // KV block size (paged KV cache)
  static void describe(config::Schema<SchedulerSpec>& s);
};

// A pool of identical model instances on one fabric. Each instance holds a full copy of the
// model on `gpus_per_instance` GPUs and runs its own batch; arrivals go to the instance with
// the fewest requests (join the shortest queue, lowest index first).
struct PoolSpec {
  static constexpr std::string_view kind = "serve_pool";
  config::Ref<fabric::FabricSpec> fabric = "gb200_nvl72";  // configs/fabrics/ or file
  std::int64_t instances = 1;
  std::int64_t gpus_per_instance = 1;
  std::string plan = "TP=1";  // prefill plan of one instance (prefill/plan.h)
  // Decode plan of one instance (decode/plan.h, "TP=1,DPA=72,EP=72"): decode steps from the
  // decode-at-scale model (decode/scale.h) on gpus_per_instance GPUs. "" = the one-GPU decode
  // step (gpus_per_instance must then be 1 for a pool that decodes).
  std::string decode_plan;
  static void describe(config::Schema<PoolSpec>& s);
};

enum class PoolMode { colocated, disaggregated };
enum class StepModelKind { roofline, fixed };

// A step model of fixed costs (tests, what-ifs): prefill step = prefill_base + prefill_per_token
// x tokens; decode step = decode_base + decode_per_sequence x batch; each instance holds
// kv_capacity tokens of KV cache.
struct FixedStepSpec {
  static constexpr std::string_view kind = "serve_fixed_steps";
  Time prefill_base = Time::si(0.01);
  Time prefill_per_token = Time::si(0);
  Time decode_base = Time::si(0.01);
  Time decode_per_sequence = Time::si(0);
  DataSize kv_bytes_per_token = DataSize::si(131072);
  DataSize kv_capacity = DataSize::si(64e9);  // per instance
  static void describe(config::Schema<FixedStepSpec>& s);
};

// The KV transfer between the pools of a disaggregated scenario: over tier `tier` (0 =
// innermost) of `fabric` (unset: the prefill pool's), each of the prefill instance's GPUs
// sending its share. Transfers from one prefill instance run one after another.
struct KvTransferSpec {
  static constexpr std::string_view kind = "serve_kv_transfer";
  std::optional<config::Ref<fabric::FabricSpec>> fabric;
  std::int64_t tier = 0;
  static void describe(config::Schema<KvTransferSpec>& s);
};

struct ScenarioSpec {
  static constexpr std::string_view kind = "serve_scenario";
  static constexpr std::string_view preset_dir = "serve";

  std::string name;
  std::string description;
  std::string model = "qwen2_5_7b";  // configs/models/NAME.json, or a config.json path
  model::DTypePolicy dtypes;
  double hbm_usable_fraction = 0.9;  // HBM for weights + KV cache (roofline step model)
  ArrivalSpec arrivals;
  SloSpec slo;
  SchedulerSpec scheduler;
  PoolMode mode = PoolMode::colocated;
  PoolSpec colocated;  // mode colocated
  PoolSpec prefill;    // mode disaggregated
  PoolSpec decode;     // mode disaggregated
  KvTransferSpec kv_transfer;
  StepModelKind step_model = StepModelKind::roofline;
  FixedStepSpec fixed_steps;            // step_model fixed
  std::int64_t queue_series_bins = 40;  // bins of the queue-length time series
  ServePrismSpec prism{};               // Prism-selected KV blocks in decode (off by default)
  // Power and cost of the pods (cost.h; configs/cost_models/); unset: not reported.
  std::optional<config::Ref<CostModelSpec>> cost_model;
  // Host (CPU) time of each step (host.h; configs/serve_hosts/); unset: GPU time only.
  std::optional<config::Ref<HostSpec>> host;
  static void describe(config::Schema<ScenarioSpec>& s);
};

// A scenario with the file it was read from (trace paths are relative to its folder).
struct LoadedScenario {
  ScenarioSpec spec;
  std::filesystem::path file;
};
// Loads configs/serve/NAME.yaml (or a file) with the given preset roots and assignments.
LoadedScenario load_scenario(const std::string& name_or_file, const config::LoadOptions& options);

std::string_view to_string(PoolMode m);
std::string_view to_string(ArrivalProcess p);

}  // namespace lightsim::serve

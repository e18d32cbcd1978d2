// One decode step of a batch on one GPU, with full attention or with Prism-selected blocks:
// time (roofline over the model's operators + Prism's selection on the critical path), GPU and
// Prism power, energy and cost per token (docs/decode.md).
//
//   DecodeSetup setup = prepare(load_scenario("qwen2_5_7b", load), load);
//   StepReport r = evaluate_step(setup, setup.scenario.gpus[0], Attention::prism, 1, 131072);
//
// "context" is the number of keys each sequence's attention covers at this step (the tokens
// already cached plus the one being decoded).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/json_fwd.h"
#include "lightsim/decode/scenario.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::decode {

enum class Attention { full, prism };
std::string_view to_string(Attention a);

// A scenario with its model and accelerator loaded (every file read once).
struct DecodeSetup {
  DecodeScenario scenario;
  model::Transformer model;
  prism::AcceleratorSpec accelerator;
};
// Loads the model the scenario names (preset roots of `options`); the accelerator is the one
// its `prism.accelerator` reference was read as.
DecodeSetup prepare(const DecodeScenario& scenario, const config::LoadOptions& options);

// What Prism does for one step at one context (independent of the GPU).
struct PrismSelection {
  std::int64_t blocks = 0;           // ceil(context / block_tokens): rows scored per query
  std::int64_t attended_tokens = 0;  // min(context, sinks + recent + top_k x block_tokens)
  bool used = false;                 // false when the always-read tokens cover the context
  int passes = 0;                    // time-multiplexing passes per query
  double query_latency = 0;          // s, one query (bank reload included)
  double query_interval = 0;         // s between back-to-back queries on one unit
  double dynamic_energy = 0;         // J per query (reload included)
  double static_power = 0;           // W per Prism unit (tuning, TEC, ungated laser)
  bool tec_included = true;          // false: the TEC cannot hold the chip and is left out of
                                     // static_power (prism/cost.h), tec_note says why
  std::string tec_note;
};
PrismSelection prism_selection(const DecodeSetup& setup, std::int64_t context);

struct StepReport {
  std::string gpu;  // display name of the GPU
  Attention attention = Attention::full;
  std::int64_t batch = 0, context = 0;
  bool feasible = true;
  std::string reason;  // why not feasible (weights + KV exceed usable HBM)

  std::int64_t attended_tokens = 0;    // keys read per sequence per layer
  double kv_bytes_read = 0;            // B per step: batch x attended x KV bytes per token
  double weight_bytes = 0;             // B per step
  double hbm_bytes = 0;                // B read + written per step (weights, KV, activations)
  double hbm_footprint = 0;            // B resident: weights + batch x context x KV bytes/token
  double flops = 0;                    // per step
  double gpu_time = 0;                 // s: the operators' roofline times, summed
  double prism_time = 0;               // s: selection on the critical path (0 for full)
  double step_time = 0;                // s: gpu_time + prism_time
  double tokens_per_second = 0;        // batch / step_time
  double memory_utilization = 0;       // HBM bytes / (step_time x peak bandwidth)
  double compute_utilization = 0;      // FLOPs / (step_time x peak matmul rate)
  double gpu_power = 0;                // W, the utilization model (PowerSpec)
  double prism_power = 0;              // W: static + queries x dynamic energy / step_time
  double system_power = 0;             // W
  double energy_per_token = 0;         // J: system_power x step_time / batch
  double cost_per_million_tokens = 0;  // USD: (GPU + Prism price) x step_time / batch x 1e6
  std::int64_t prism_queries = 0;      // per step: batch x layers x KV heads (0 for full)
  PrismSelection selection;            // the Prism figures at this context (prism only)
};

// One step. An HBM overflow is a result (feasible = false, reason), not an exception.
StepReport evaluate_step(const DecodeSetup& setup, const GpuOption& gpu, Attention attention,
                         std::int64_t batch, std::int64_t context);

// Full attention and Prism at the same point.
struct Comparison {
  StepReport full, prism;
  double latency_ratio() const { return full.step_time / prism.step_time; }
  double cost_change() const {  // (prism - full) / full
    return prism.cost_per_million_tokens / full.cost_per_million_tokens - 1.0;
  }
};

// Every GPU x batch x context of the scenario, in that order (contexts innermost).
std::vector<Comparison> evaluate_grid(const DecodeSetup& setup);
// The same over other batches and contexts (a study's own grid; the scenario is unchanged).
std::vector<Comparison> evaluate_grid(const DecodeSetup& setup,
                                      const std::vector<std::int64_t>& batches,
                                      const std::vector<std::int64_t>& contexts);

// Every field, SI units in the key names (e.g. "step_time_s").
Json to_json(const StepReport& r);

}  // namespace lightsim::decode

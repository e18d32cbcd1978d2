// A decode scenario (kind "decode_scenario", configs/decode/): one model with its number
// formats, the GPUs it may run on (with the hourly price of one GPU of a cloud instance), the
// batch sizes and contexts to study, and how Prism selects KV blocks (the accelerator preset,
// the recent window and attention sinks the GPU always reads, the GPU <-> Prism link).
// docs/decode.md gives every formula; the seed's figures live apart (configs/references/).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/units.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prism/accelerator.h"

namespace lightsim::decode {

// One GPU the model runs on (one replica per GPU, no tensor parallelism) and what an hour of
// it costs: the instance's on-demand price divided by its GPUs.
struct GpuOption {
  static constexpr std::string_view kind = "decode_gpu";
  fabric::GpuSpec gpu;            // needs tdp and idle_power for the power model
  std::string instance;           // e.g. "AWS p4d.24xlarge (8 x A100 40GB)"
  double price_per_hour_usd = 0;  // one GPU's share of the instance price, USD per hour
  static void describe(config::Schema<GpuOption>& s);
};

// The GPU's board power: P = idle + (tdp - idle) (s u_mem + (1 - s) u_compute), with u_mem the
// achieved share of peak HBM bandwidth and u_compute the achieved share of peak FLOP/s over
// the step, and s = memory_share the part of the dynamic range that memory traffic drives.
struct PowerSpec {
  static constexpr std::string_view kind = "decode_power";
  double memory_share = 0.5;
  static void describe(config::Schema<PowerSpec>& s);
};

// How Prism serves decode. Every (sequence, layer, KV head) asks one query per step; the
// selected blocks (accelerator top_k x block_tokens) plus the attention sinks and the recent
// window are the keys the GPU reads. The bank holds one cache's signatures at a time, so each
// query reloads it (the accelerator is priced in time-shared mode with logical rows = the
// context's blocks).
struct PrismDecodeSpec {
  static constexpr std::string_view kind = "decode_prism";
  config::Ref<prism::AcceleratorSpec> accelerator = "scaled";  // configs/accelerators/ or file
  int accelerators = 1;                            // independent Prism units serving the GPU
  std::int64_t sink_tokens = 128;                  // first tokens always attended (attention sinks)
  std::int64_t recent_tokens = 1024;               // most recent tokens always attended
  Time link_latency = Time::si(1e-6);              // GPU -> Prism -> GPU round trip per layer
  Bandwidth link_bandwidth = Bandwidth::si(64e9);  // per direction (PCIe 5.0 x16 class)
  double price_per_hour_usd = 0;                   // Prism's hourly cost (0: not priced)
  static void describe(config::Schema<PrismDecodeSpec>& s);
};

struct DecodeScenario {
  static constexpr std::string_view kind = "decode_scenario";
  static constexpr std::string_view preset_dir = "decode";

  std::string name;
  std::string description;
  std::string model;  // configs/models/NAME.json, or a config.json path
  model::DTypePolicy dtypes;
  std::vector<GpuOption> gpus;
  std::vector<std::int64_t> batches = {1, 8, 64};
  std::vector<std::int64_t> contexts = {4096, 32768, 131072};
  double hbm_usable_fraction = 0.9;  // HBM left for weights + KV after runtime and workspace
  PowerSpec power;
  PrismDecodeSpec prism;
  static void describe(config::Schema<DecodeScenario>& s);
};

// Loads configs/decode/NAME.yaml (or a file) with the given preset roots.
DecodeScenario load_scenario(const std::string& name_or_file, const config::LoadOptions& options);
// The scenario's model: configs/models/NAME.json under the preset roots, or a config.json file.
model::Transformer load_model(const std::string& name_or_file, const config::LoadOptions& options);

}  // namespace lightsim::decode

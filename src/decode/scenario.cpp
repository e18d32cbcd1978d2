// Spec fields of decode scenarios (scenario.h).
#include "lightsim/decode/scenario.h"

#include <filesystem>

#include "lightsim/core/config_files.h"

namespace lightsim::decode {

void GpuOption::describe(config::Schema<GpuOption>& s) {
  s.help("A GPU the model runs on (one replica per GPU) and one GPU's share of the hourly price.");
  s.field("gpu", &GpuOption::gpu,
          "the GPU (kind gpu, e.g. {preset: a100}); needs tdp and idle_power")
      .required();
  s.field("instance", &GpuOption::instance, "the cloud instance the price comes from");
  s.field("price_per_hour_usd", &GpuOption::price_per_hour_usd,
          "one GPU's share of the instance's on-demand price, USD per hour")
      .range(0.0, 1000.0)
      .required();
  s.rule([](const GpuOption& g) -> std::optional<std::string> {
    if (!g.gpu.tdp || !g.gpu.idle_power)
      return "gpu '" + g.gpu.name + "' needs 'tdp' and 'idle_power' (W) for the decode power model";
    return std::nullopt;
  });
}

void PowerSpec::describe(config::Schema<PowerSpec>& s) {
  s.help(
      "GPU board power P = idle + (tdp - idle) (s u_mem + (1 - s) u_compute), u = achieved share "
      "of peak HBM bandwidth / FLOP rate over the step (docs/decode.md).");
  s.field("memory_share", &PowerSpec::memory_share,
          "s: share of the dynamic power range driven by HBM traffic (assumption)")
      .range(0.0, 1.0);
}

void PrismDecodeSpec::describe(config::Schema<PrismDecodeSpec>& s) {
  s.help(
      "How Prism serves decode: the accelerator, the tokens the GPU always reads (sinks, recent "
      "window), and the GPU <-> Prism link (docs/decode.md).");
  s.field("accelerator", &PrismDecodeSpec::accelerator,
          "configs/accelerators/ name or YAML file (top_k and block_tokens come from it)")
      .required();
  s.field("accelerators", &PrismDecodeSpec::accelerators,
          "independent Prism units serving one GPU (queries spread over them)")
      .range(1, 1024);
  s.field("sink_tokens", &PrismDecodeSpec::sink_tokens, "first tokens always attended (sinks)")
      .range(std::int64_t{0}, std::int64_t{1} << 24);
  s.field("recent_tokens", &PrismDecodeSpec::recent_tokens, "most recent tokens always attended")
      .range(std::int64_t{0}, std::int64_t{1} << 24);
  s.field("link_latency", &PrismDecodeSpec::link_latency,
          "GPU -> Prism -> GPU round-trip latency per layer")
      .range("0 s", "1 ms");
  s.field("link_bandwidth", &PrismDecodeSpec::link_bandwidth,
          "GPU <-> Prism link bandwidth per direction")
      .positive();
  s.field("price_per_hour_usd", &PrismDecodeSpec::price_per_hour_usd,
          "hourly cost of the Prism units serving one GPU, USD per hour (0: not priced)")
      .range(0.0, 1000.0);
}

void DecodeScenario::describe(config::Schema<DecodeScenario>& s) {
  s.help(
      "A decode scenario: model, number formats, GPUs with hourly prices, batch sizes and "
      "contexts, the power model and how Prism selects KV blocks (docs/decode.md).");
  s.field("name", &DecodeScenario::name, "display name").required();
  s.field("description", &DecodeScenario::description, "one line on what it studies");
  s.field("model", &DecodeScenario::model, "configs/models/NAME.json, or a config.json path")
      .required();
  s.field("dtypes", &DecodeScenario::dtypes, "number formats (dtype_policy, e.g. {preset: bf16})");
  s.field("gpus", &DecodeScenario::gpus, "GPUs to compare, each with its hourly price")
      .min_items(1);
  s.field("batches", &DecodeScenario::batches, "sequences decoded together")
      .min_items(1)
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("contexts", &DecodeScenario::contexts, "keys attended per sequence (tokens)")
      .min_items(1)
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("hbm_usable_fraction", &DecodeScenario::hbm_usable_fraction,
          "share of HBM for weights and KV cache (the rest: runtime, workspace, fragmentation)")
      .range(0.1, 1.0);
  s.field("power", &DecodeScenario::power, "GPU power model");
  s.field("prism", &DecodeScenario::prism, "Prism block selection").required();
}

DecodeScenario load_scenario(const std::string& name_or_file, const config::LoadOptions& options) {
  return config::load_spec<DecodeScenario>(
      config::find_named(name_or_file, DecodeScenario::preset_dir, options, "decode scenario"),
      options);
}

model::Transformer load_model(const std::string& name_or_file, const config::LoadOptions& options) {
  return model::load_hf_config(config::find_named(name_or_file, "models", options, "model"));
}

}  // namespace lightsim::decode

// `lightsim decode run CONFIG`: per-token decode latency, power and cost with full attention
// and with Prism-selected KV blocks, for every GPU x batch x context of a decode scenario
// (docs/decode.md).
#include <iostream>

#include "cli.h"
#include "lightsim/core/json.h"
#include "lightsim/decode/step.h"

namespace lightsim::cli {
namespace {

void print_grid(const decode::DecodeSetup& setup, const std::vector<decode::Comparison>& grid) {
  const decode::DecodeScenario& sc = setup.scenario;
  fmt::print("Decode scenario {}: {}\n", sc.name, sc.description);
  fmt::print(
      "  Prism: accelerator '{}', top-{} blocks of {} tokens + {} sink + {} recent tokens, {} "
      "unit(s)\n",
      sc.prism.accelerator.name(), setup.accelerator.selection.top_k,
      setup.accelerator.programming.block_tokens, sc.prism.sink_tokens, sc.prism.recent_tokens,
      sc.prism.accelerators);
  std::string gpu;
  for (const decode::Comparison& c : grid) {
    if (c.full.gpu != gpu) {
      gpu = c.full.gpu;
      const auto it = std::find_if(sc.gpus.begin(), sc.gpus.end(),
                                   [&](const decode::GpuOption& g) { return g.gpu.name == gpu; });
      fmt::print("\n{} ({}, ${:.2f}/GPU-h)\n", gpu, it->instance, it->price_per_hour_usd);
      fmt::print(
          "  {:>5} {:>7} | {:>9} {:>9} {:>6} | {:>7} {:>7} | {:>8} {:>8} {:>6} | {:>7} {:>7}\n",
          "batch", "context", "full ms", "prism ms", "ratio", "full W", "prism W", "full $/M",
          "prism $/M", "cost", "KV GB", "KV GB");
    }
    if (!c.full.feasible) {
      fmt::print("  {:>5} {:>7} | does not fit: {}\n", c.full.batch, c.full.context, c.full.reason);
      continue;
    }
    fmt::print(
        "  {:>5} {:>7} | {:>9.3f} {:>9.3f} {:>5.2f}x | {:>7.1f} {:>7.1f} | {:>8.3f} {:>9.3f} "
        "{:>+5.0f}% | {:>7.3f} {:>7.3f}\n",
        c.full.batch, c.full.context, c.full.step_time * 1e3, c.prism.step_time * 1e3,
        c.latency_ratio(), c.full.system_power, c.prism.system_power,
        c.full.cost_per_million_tokens, c.prism.cost_per_million_tokens, 100 * c.cost_change(),
        c.full.kv_bytes_read / 1e9, c.prism.kv_bytes_read / 1e9);
  }
  fmt::print(
      "\nms = one decode step (every sequence of the batch gets one token); W = GPU + Prism; "
      "$/M = USD per million tokens; KV GB = KV bytes read per step (full | Prism).\n");
}

}  // namespace

void add_decode_commands(CLI::App& app, const GlobalOptions& options, const Registry&) {
  CLI::App* dec = app.add_subcommand("decode", "Per-token decode latency, power and cost");
  dec->require_subcommand(1);
  auto* run = dec->add_subcommand(
      "run", "Full attention vs Prism-selected blocks for every GPU x batch x context");
  auto name = std::make_shared<std::string>();
  run->add_option("CONFIG", *name, "Decode scenario name (configs/decode/) or YAML file")
      ->required();
  run->callback([name, &options] {
    const auto load = options.load_options();
    const decode::DecodeSetup setup = decode::prepare(decode::load_scenario(*name, load), load);
    options.require_all_used();
    const std::vector<decode::Comparison> grid = decode::evaluate_grid(setup);
    if (options.json) {
      Json points = Json::array();
      for (const decode::Comparison& c : grid) {
        points.push_back(decode::to_json(c.full));
        points.push_back(decode::to_json(c.prism));
      }
      std::cout << dump_json({{"scenario", setup.scenario.name}, {"points", points}});
      return;
    }
    print_grid(setup, grid);
  });
}

}  // namespace lightsim::cli

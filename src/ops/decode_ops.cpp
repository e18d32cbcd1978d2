// Decode end to end (docs/decode.md): decode_run, per-token decode latency, power and cost
// with full attention and with Prism-selected KV blocks, for every GPU x batch x context of a
// decode scenario.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>

#include "lightsim/decode/step.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct DecodeRunRequest {
  static constexpr std::string_view kind = "decode_run_request";
  std::string scenario, model{};
  static void describe(config::Schema<DecodeRunRequest>& s) {
    s.help("Request of decode run: one decode scenario.");
    s.field("scenario", &DecodeRunRequest::scenario,
            "decode scenario name (configs/decode/) or YAML file")
        .required();
    s.field("model", &DecodeRunRequest::model,
            "model instead of the scenario's: configs/models/NAME or a config.json path");
  }
};

namespace {

void print_grid(const decode::DecodeSetup& setup, const std::vector<decode::Comparison>& grid,
                std::ostream& out) {
  const decode::DecodeScenario& sc = setup.scenario;
  fmt::print(out, "Decode scenario {}: {}\n", sc.name, sc.description);
  fmt::print(
      out,
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
      fmt::print(out, "\n{} ({}, ${:.2f}/GPU-h)\n", gpu, it->instance, it->price_per_hour_usd);
      fmt::print(
          out,
          "  {:>5} {:>7} | {:>9} {:>9} {:>6} | {:>7} {:>7} | {:>8} {:>8} {:>6} | {:>7} {:>7}\n",
          "batch", "context", "full ms", "prism ms", "ratio", "full W", "prism W", "full $/M",
          "prism $/M", "cost", "KV GB", "KV GB");
    }
    if (!c.full.feasible) {
      fmt::print(out, "  {:>5} {:>7} | does not fit: {}\n", c.full.batch, c.full.context,
                 c.full.reason);
      continue;
    }
    fmt::print(
        out,
        "  {:>5} {:>7} | {:>9.3f} {:>9.3f} {:>5.2f}x | {:>7.1f} {:>7.1f} | {:>8.3f} {:>9.3f} "
        "{:>+5.0f}% | {:>7.3f} {:>7.3f}\n",
        c.full.batch, c.full.context, c.full.step_time * 1e3, c.prism.step_time * 1e3,
        c.latency_ratio(), c.full.system_power, c.prism.system_power,
        c.full.cost_per_million_tokens, c.prism.cost_per_million_tokens, 100 * c.cost_change(),
        c.full.kv_bytes_read / 1e9, c.prism.kv_bytes_read / 1e9);
  }
  fmt::print(
      out,
      "\nms = one decode step (every sequence of the batch gets one token); W = GPU + Prism; "
      "$/M = USD per million tokens; KV GB = KV bytes read per step (full | Prism).\n");
}

struct DecodeResult {
  decode::DecodeSetup setup{};
  std::vector<decode::Comparison> grid{};
};

DecodeResult evaluate_decode(const DecodeRunRequest& q, Env& env) {
  config::LoadOptions scenario_load = env.load;  // --model sets the scenario's model field
  if (!q.model.empty()) scenario_load.assignments.push_back("model=" + q.model);
  DecodeResult r{.setup =
                     decode::prepare(decode::load_scenario(q.scenario, scenario_load), env.load)};
  env.inputs_read();
  r.grid = decode::evaluate_grid(r.setup);
  return r;
}

Json decode_json(const DecodeResult& r) {
  Json points = Json::array();
  for (const decode::Comparison& c : r.grid) {
    points.push_back(decode::to_json(c.full));
    points.push_back(decode::to_json(c.prism));
  }
  return {{"scenario", r.setup.scenario.name}, {"points", points}};
}

}  // namespace

void register_decode_ops(Registry& registry) {
  add<DecodeRunRequest, DecodeResult>(
      registry,
      {.info = {.name = "decode_run",
                .command = {"decode", "run"},
                .help = "Full attention vs Prism-selected blocks for every GPU x batch x context",
                .positional = {"scenario"}},
       .evaluate = evaluate_decode,
       .to_json = decode_json,
       .print = [](const DecodeResult& r, std::ostream& out) {
         print_grid(r.setup, r.grid, out);
       }});
}

}  // namespace lightsim::ops

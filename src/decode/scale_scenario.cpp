// Spec fields of decode-at-scale scenarios and their setup (scale.h).
#include "lightsim/core/config_files.h"
#include "lightsim/decode/scale.h"
#include "lightsim/decode/scenario.h"

namespace lightsim::decode {

void ScaleScenario::describe(config::Schema<ScaleScenario>& s) {
  s.help(
      "A multi-GPU decode instance: model, number formats, fabric, GPU count, plan, batch, "
      "context, MTP, expert load and CUDA-graph costs (docs/decode.md, 'Decode at scale').");
  s.field("name", &ScaleScenario::name, "display name").required();
  s.field("description", &ScaleScenario::description, "one line on what it studies");
  s.field("model", &ScaleScenario::model, "configs/models/NAME.json, or a config.json path")
      .required();
  s.field("dtypes", &ScaleScenario::dtypes, "number formats (dtype_policy, e.g. {preset: fp8})");
  s.field("fabric", &ScaleScenario::fabric, "fabric (configs/fabrics/ name or YAML file)")
      .required();
  s.field("gpus", &ScaleScenario::gpus, "GPUs of the decode instance")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("plan", &ScaleScenario::plan,
          "plan, e.g. TP=1,DPA=72,EP=72 (keys TP DPA EP PP MOE); empty: searched");
  s.field("batch", &ScaleScenario::batch,
          "sequences decoded together on the instance (all GPUs); 0: searched")
      .range(std::int64_t{0}, std::int64_t{1} << 26);
  s.field("context", &ScaleScenario::context, "keys each sequence attends to (tokens)")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("draft_tokens", &ScaleScenario::draft_tokens,
          "MTP / speculative draft tokens verified per step (0: plain decode)")
      .range(std::int64_t{0}, std::int64_t{16});
  s.field("accepted_tokens", &ScaleScenario::accepted_tokens,
          "mean tokens emitted per sequence per step, 1 + accepted drafts (input, measured)")
      .range(1.0, 17.0);
  s.field("expert_skew", &ScaleScenario::expert_skew,
          "most loaded EP rank's routed rows / the mean, after balancing (>= 1)")
      .range(1.0, 1000.0);
  s.field("redundant_experts", &ScaleScenario::redundant_experts,
          "extra expert replicas (EPLB-style), spread over the EP ranks")
      .range(std::int64_t{0}, std::int64_t{1} << 16);
  s.field("two_batch_overlap", &ScaleScenario::two_batch_overlap,
          "two micro-batches per step: one's communication behind the other's compute");
  s.field("graph_kernel_gap", &ScaleScenario::graph_kernel_gap,
          "cost of each kernel inside a replayed CUDA graph (docs/decode.md)")
      .range("0 s", "1 ms");
  s.field("graph_launch", &ScaleScenario::graph_launch,
          "cost of launching the step's CUDA graph, once per pass")
      .range("0 s", "1 s");
  s.field("hbm_usable_fraction", &ScaleScenario::hbm_usable_fraction,
          "share of HBM for weights and KV cache (the rest: runtime, workspace, fragmentation)")
      .range(0.1, 1.0);
  s.field("tpot_target", &ScaleScenario::tpot_target,
          "plan search: the time per output token a plan must meet")
      .range("1 us", "1000 s");
  s.field("top", &ScaleScenario::top, "plans listed by the plan search")
      .range(std::int64_t{1}, std::int64_t{1} << 10);
  s.rule([](const ScaleScenario& sc) -> std::optional<std::string> {
    if (sc.accepted_tokens > 1.0 + static_cast<double>(sc.draft_tokens))
      return "accepted_tokens must be at most 1 + draft_tokens";
    return std::nullopt;
  });
}

ScaleScenario load_scale_scenario(const std::string& name_or_file,
                                  const config::LoadOptions& options) {
  return config::load_spec<ScaleScenario>(
      config::find_named(name_or_file, ScaleScenario::preset_dir, options,
                         "decode-at-scale scenario"),
      options);
}

ScaleSetup prepare(const ScaleScenario& scenario, const config::LoadOptions& options) {
  ScaleSetup s{scenario, load_model(scenario.model, options.roots_only()),
               fabric::build_topology(*scenario.fabric)};
  if (!scenario.fabric.name().empty()) s.topology.name = scenario.fabric.name();
  return s;
}

}  // namespace lightsim::decode

// lightsim.prefill_evaluate (bindings.h; docs/prefill.md).
#include <string>

#include "bindings.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/report.h"
#include "lightsim/prefill/scenario.h"

namespace lightsim::python {
namespace {

using namespace pybind11::literals;

// A plan string as given, or a dict {"tp": 8, "ep": 64, "cpa": "ring_kv", ...} written as
// "TP=8,EP=64,CPA=ring_kv" for prefill::parse_plan (which names any bad key or value).
std::string plan_text(const py::object& plan) {
  if (py::isinstance<py::str>(plan)) return plan.cast<std::string>();
  LIGHTSIM_CHECK_AS(UsageError, py::isinstance<py::dict>(plan),
                    "plan: expected a string \"TP=8,EP=64\" or a dict {{\"tp\": 8, \"ep\": 64}}");
  std::string text;
  for (const auto& [key, value] : plan.cast<py::dict>()) {
    if (!text.empty()) text += ',';
    text += py::str(key).cast<std::string>() + "=" + py::str(value).cast<std::string>();
  }
  return text;
}

}  // namespace

void bind_prefill(py::module_& m, const RegistryPtr&) {
  m.def(
      "prefill_evaluate",
      [](const std::string& scenario, const py::object& plan, std::optional<std::int64_t> gpus,
         const std::optional<std::string>& fabric_name, const py::object& set,
         const py::object& config_path) {
        const config::LoadOptions load = load_options(set, config_path);
        const prefill::Plan p = prefill::parse_plan(plan_text(plan), gpus.value_or(0));
        LIGHTSIM_CHECK_AS(UsageError, !gpus || p.gpus() == *gpus, "plan {} uses {} GPUs, gpus={}",
                          prefill::format_plan(p), p.gpus(), *gpus);
        const prefill::ScenarioSpec s = prefill::load_scenario(scenario, load);
        const std::string fabric = fabric_name.value_or(s.fabrics.empty() ? "" : s.fabrics[0]);
        LIGHTSIM_CHECK_AS(UsageError, !fabric.empty(),
                          "scenario '{}' names no fabric; give fabric=NAME", s.name);
        config::LoadOptions presets = load;  // `set` overrides the scenario only
        presets.assignments.clear();
        const model::Transformer model = prefill::load_model(s.model, presets);
        fabric::Topology topology = fabric::build_topology(fabric::load_fabric(fabric, presets));
        topology.name = fabric;
        load.assignments.require_all_used();  // a `set` key no config read has: InputError
        Json j;
        {
          py::gil_scoped_release release;
          const prefill::Evaluator evaluator(s, model, topology, p.gpus());
          j = prefill::result_json(evaluator.evaluate(p), topology);
        }
        j["scenario"] = s.name;
        j["fabric"] = fabric;
        return to_python(j);
      },
      "scenario"_a, "plan"_a, "gpus"_a = py::none(), "fabric"_a = py::none(), "set"_a = py::none(),
      "config_path"_a = py::none(),
      R"doc(Prefill time of one parallel plan (as `lightsim prefill run --plan`, docs/prefill.md).
set: {"key.path": value} overrides of the scenario.

scenario: NAME (configs/scenarios/) or file. plan: "TP=8,EP=64,CP=1" or a dict with keys
tp, cp, ep, edp, pp, dp, cpa, mb (case-insensitive; missing ones as in parse_plan; DP fills
`gpus`). fabric: NAME (configs/fabrics/) or file; default the scenario's first. Returns
{feasible, gpus, plan, memory, ttft_s, latency_s, tokens_per_s_per_gpu, mfu, breakdown:
{compute_s: {class: s}, communication: {kind: {time_s, exposed_s, hidden_s, tier}}, ...}};
an infeasible plan is a result with feasible False and the reason, not an exception.)doc");
}

}  // namespace lightsim::python

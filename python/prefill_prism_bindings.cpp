// lightsim.prefill_evaluate (bindings.h; docs/prefill.md): the prefill_run operation with a
// fixed plan, taking the plan also as a dict.
#include <string>

#include "bindings.h"

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

void bind_prefill(py::module_& m, const RegistryPtr& registry) {
  m.def(
      "prefill_evaluate",
      [registry](const std::string& scenario, const py::object& plan, const py::object& gpus,
                 const py::object& fabric, const py::object& set, const py::object& config_path) {
        // The prefill_run operation with a fixed plan (src/ops/prefill_ops.cpp).
        OperationCall call;
        call.field("scenario", py::str(scenario));
        call.field("plan", py::str(plan_text(plan)));
        call.field("gpus", gpus);
        call.field("fabric", fabric);
        call.load = load_options(set, config_path);
        call.threads = 1;
        return to_python(run_operation(*registry, "prefill_run", call));
      },
      "scenario"_a, "plan"_a, "gpus"_a = py::none(), "fabric"_a = py::none(), "set"_a = py::none(),
      "config_path"_a = py::none(),
      R"doc(Prefill time of one parallel plan (as `lightsim prefill run --plan`, docs/prefill.md).
set: {"key.path": value} overrides of the scenario.

scenario: NAME (configs/scenarios/) or file. plan: "TP=8,EP=64,CP=1" or a dict with keys
tp, cp, ep, edp, pp, dp, cpa, mb (case-insensitive; missing ones as in parse_plan; DP fills
`gpus`; default: the GPUs the plan names). fabric: NAME (configs/fabrics/) or file; default
the scenario's first (then the result is that fabric's; with several, a list). Returns
{feasible, gpus, plan, memory, ttft_s, latency_s, tokens_per_s_per_gpu, mfu, breakdown:
{compute_s: {class: s}, communication: {kind: {time_s, exposed_s, hidden_s, tier}}, ...}};
an infeasible plan is a result with feasible False and the reason, not an exception.)doc");
}

}  // namespace lightsim::python

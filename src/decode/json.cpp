// JSON form of a decode step (step.h).
#include "lightsim/core/json.h"
#include "lightsim/decode/step.h"

namespace lightsim::decode {

Json to_json(const StepReport& r) {
  Json j = {{"gpu", r.gpu},
            {"attention", std::string(to_string(r.attention))},
            {"batch", r.batch},
            {"context", r.context},
            {"feasible", r.feasible},
            {"reason", r.reason},
            {"hbm_footprint_b", r.hbm_footprint}};
  if (!r.feasible) return j;
  j.update({{"attended_tokens", r.attended_tokens},
            {"kv_bytes_read_b", r.kv_bytes_read},
            {"weight_bytes_b", r.weight_bytes},
            {"hbm_bytes_b", r.hbm_bytes},
            {"flops", r.flops},
            {"gpu_time_s", r.gpu_time},
            {"prism_time_s", r.prism_time},
            {"step_time_s", r.step_time},
            {"tokens_per_second", r.tokens_per_second},
            {"memory_utilization", r.memory_utilization},
            {"compute_utilization", r.compute_utilization},
            {"gpu_power_w", r.gpu_power},
            {"prism_power_w", r.prism_power},
            {"system_power_w", r.system_power},
            {"energy_per_token_j", r.energy_per_token},
            {"cost_per_million_tokens_usd", r.cost_per_million_tokens},
            {"prism_queries", r.prism_queries}});
  if (r.prism_queries > 0)
    j["prism"] = {{"blocks", r.selection.blocks},
                  {"passes", r.selection.passes},
                  {"query_latency_s", r.selection.query_latency},
                  {"query_interval_s", r.selection.query_interval},
                  {"dynamic_energy_j", r.selection.dynamic_energy},
                  {"static_power_w", r.selection.static_power},
                  {"tec_included", r.selection.tec_included},
                  {"tec_note", r.selection.tec_note}};
  return j;
}

}  // namespace lightsim::decode

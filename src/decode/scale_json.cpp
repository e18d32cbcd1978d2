// JSON form of a decode-at-scale step (scale.h).
#include "lightsim/core/json.h"
#include "lightsim/decode/scale.h"

namespace lightsim::decode {

Json to_json(const StepBreakdown& b) {
  Json j = {{"plan", format_plan(b.plan)}, {"gpus", b.gpus},         {"batch", b.batch},
            {"context", b.context},        {"feasible", b.feasible}, {"reason", b.reason}};
  j["memory"] = {{"weights_per_gpu_b", b.memory.weights},
                 {"kv_per_sequence_per_gpu_b", b.memory.kv_per_sequence},
                 {"capacity_per_gpu_b", b.memory.capacity},
                 {"max_batch", b.memory.max_batch},
                 {"kv_capacity_tokens", b.memory.kv_capacity_tokens}};
  if (!b.feasible) return j;
  Json compute = Json::object(), comm = Json::object(), exposed = Json::object();
  for (std::size_t i = 0; i < kParts; ++i)
    compute[std::string(part_name(static_cast<Part>(i))) + "_s"] = b.compute[i];
  for (std::size_t i = 0; i < kComms; ++i) {
    comm[std::string(comm_name(static_cast<Comm>(i))) + "_s"] = b.comm[i];
    exposed[std::string(comm_name(static_cast<Comm>(i))) + "_s"] = b.exposed[i];
  }
  j.update({{"sequences_per_group", b.sequences_per_group},
            {"compute", compute},
            {"comm", comm},
            {"exposed", exposed},
            {"launch_s", b.launch},
            {"mtp_draft_s", b.mtp_draft},
            {"pipeline_wait_s", b.pipeline_wait},
            {"step_time_s", b.step_time},
            {"tpot_s", b.tpot},
            {"tokens_per_s", b.tokens_per_s},
            {"tokens_per_s_per_gpu", b.tokens_per_s_per_gpu},
            {"weight_bytes_read_per_gpu_b", b.weight_bytes_read},
            {"kv_bytes_read_per_gpu_b", b.kv_bytes_read},
            {"flops_per_gpu", b.flops},
            {"expert_rows_per_rank", b.expert_rows},
            {"experts_touched_per_rank", b.experts_touched},
            {"kernels_per_gpu", b.kernels}});
  return j;
}

}  // namespace lightsim::decode

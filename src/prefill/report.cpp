// JSON form of prefill results (report.h).
#include "lightsim/prefill/report.h"

#include "lightsim/core/json.h"

namespace lightsim::prefill {

Json result_json(const Result& r, const fabric::Topology& t) {
  const Plan& p = r.plan;
  Json plan = {{"text", format_plan(p)},
               {"tp", p.tp},
               {"cp", p.cp},
               {"ep", p.ep},
               {"edp", p.edp},
               {"pp", p.pp},
               {"dp", p.dp},
               {"attention_dp", p.stage() / std::max<std::int64_t>(1, p.tp * p.cp)},
               {"cp_algorithm", std::string(cp_algorithm_name(p.cp_algorithm))},
               {"microbatches", p.microbatches}};
  Json memory = {{"weights_B", r.memory.weights},         {"kv_cache_B", r.memory.kv_cache},
                 {"activations_B", r.memory.activations}, {"comm_buffers_B", r.memory.comm_buffers},
                 {"total_B", r.memory.total()},           {"usable_B", r.memory.capacity}};
  Json j = {{"feasible", r.feasible}, {"gpus", r.gpus}, {"plan", plan}, {"memory", memory}};
  if (!r.feasible) {
    j["reason"] = r.reason;
    return j;
  }
  Json compute = Json::object(), comm = Json::object();
  for (std::size_t c = 0; c < kComputeClasses; ++c)
    compute[std::string(compute_class_name(static_cast<ComputeClass>(c)))] = r.compute[c];
  for (std::size_t c = 0; c < kCommKinds; ++c) {
    if (r.comm[c] <= 0) continue;
    const int tier = r.tier[c];
    comm[std::string(comm_kind_name(static_cast<CommKind>(c)))] = {
        {"time_s", r.comm[c]},
        {"exposed_s", r.exposed[c]},
        {"hidden_s", r.comm[c] - r.exposed[c]},
        {"tier", tier >= 0 ? t.tiers[static_cast<std::size_t>(tier)].name : std::string()}};
  }
  j["kernel_efficiency"] = fabric::KernelEfficiency(t.gpu).describe();
  j["ttft_s"] = r.ttft_s;
  j["latency_s"] = r.latency_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["mfu"] = r.mfu;
  j["sequences_per_group"] = r.sequences_per_group;
  j["waves"] = r.waves;
  j["expert_skew"] = r.expert_skew;
  j["breakdown"] = {{"compute_s", compute},
                    {"compute_total_s", r.compute_total()},
                    {"communication", comm},
                    {"communication_total_s", r.comm_total()},
                    {"exposed_total_s", r.exposed_total()},
                    {"pipeline_fill_s", r.bubble_fraction * r.latency_s},
                    {"bubble_fraction", r.bubble_fraction}};
  return j;
}

Json search_json(const SearchResult& s, const fabric::Topology& t) {
  return {{"gpus", s.gpus},
          {"evaluated", s.evaluated},
          {"feasible", s.feasible},
          {"best", result_json(s.best, t)}};
}

}  // namespace lightsim::prefill

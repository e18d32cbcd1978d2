#include "lightsim/prefill/sensitivity.h"

#include <algorithm>

#include "lightsim/core/error.h"

namespace lightsim::prefill {

namespace {

// DeepSeek's prefill deployment holds 32 redundant experts (deepseek-ai/open-infra-index,
// day 6 "inference system overview"; ../shared/reference/prefill.md).
constexpr std::int64_t kEplbRedundantExperts = 32;

// Every compute efficiency of the GPU scaled by `f`: the roofline ceiling and, when the GPU
// has a kernel table, every measured curve (memory-bound kernels keep theirs).
void scale_compute_efficiency(fabric::GpuSpec& gpu, double f) {
  gpu.gemm_efficiency_max *= f;
  if (!gpu.kernels) return;
  fabric::KernelTableSpec t = gpu.kernels->get();
  for (auto* curves : {&t.gemm, &t.grouped_gemm, &t.attention})
    for (fabric::EfficiencyCurveSpec& c : *curves)
      for (double& e : c.efficiency) e *= f;
  config::Ref<fabric::KernelTableSpec> scaled;
  scaled.bind(gpu.kernels->name(), gpu.kernels->file(), std::move(t));
  gpu.kernels = std::move(scaled);
}

}  // namespace

const std::vector<Assumption>& sensitivity_assumptions() {
  static const std::vector<Assumption> all = {
      {"as_modelled", "the scenarios as written"},
      {"compute_efficiency_half",
       "every compute efficiency halved (roofline ceiling and kernel-table curves)"},
      {"free_overlap",
       "communication kernels hold no SMs (ep_comm_sms 0, no GEMM SM cap): hidden transfers "
       "cost nothing"},
      {"no_two_microbatch_overlap", "the expert all-to-all fully exposed"},
      {"no_ring_overlap", "every context-parallel ring step exposed"},
      {"skewed_routing", "Zipf s = 1 expert loads, round-robin placement, no redundant experts"},
      {"skewed_routing_eplb",
       "Zipf s = 1 expert loads with 32 redundant experts (DeepSeek's prefill count) placed "
       "balanced"},
  };
  return all;
}

void apply_assumption(std::string_view name, ScenarioSpec& s,
                      std::vector<fabric::Topology>& topologies) {
  const auto& all = sensitivity_assumptions();
  const bool known =
      std::any_of(all.begin(), all.end(), [&](const Assumption& a) { return a.name == name; });
  if (!known) {
    std::string names;
    for (const Assumption& a : all) names += (names.empty() ? "" : ", ") + a.name;
    LIGHTSIM_THROW(ConfigError, "unknown sensitivity assumption '{}' (expected one of: {})", name,
                   names);
  }
  if (name == "compute_efficiency_half") {
    for (fabric::Topology& t : topologies) scale_compute_efficiency(t.gpu, 0.5);
  } else if (name == "free_overlap") {
    s.ep_comm_sms = 0;
    s.gemm_sm_cap = false;
  } else if (name == "no_two_microbatch_overlap") {
    s.two_microbatch_overlap = false;
  } else if (name == "no_ring_overlap") {
    s.ring_overlap = false;
  } else if (name == "skewed_routing" || name == "skewed_routing_eplb") {
    s.routing.distribution = RoutingDistribution::zipf;
    s.routing.zipf_s = 1.0;
    const bool eplb = name == "skewed_routing_eplb";
    s.routing.redundant_experts = eplb ? kEplbRedundantExperts : 0;
    s.routing.placement = eplb ? ExpertPlacement::balanced : ExpertPlacement::round_robin;
  }
}

}  // namespace lightsim::prefill

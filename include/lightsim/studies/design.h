// The `prism_design` study: the Prism design-space search (prism/design.h) as a study, so its
// Pareto front is a chart in the report (docs/studies.md, "prism_design").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/registry.h"
#include "lightsim/core/units.h"
#include "lightsim/decode/gpu_selectors.h"
#include "lightsim/kv/scorer_specs.h"
#include "lightsim/prism/design.h"

namespace lightsim::studies {

// The GPU's own selectors the front is compared with at equal recall (decode/gpu_selectors.h;
// docs/prism.md, "GPU baselines at equal recall"). Empty `gpus`: no comparison.
struct DesignBaselinesSpec {
  static constexpr std::string_view kind = "prism_design_baselines";
  std::vector<std::string> gpus = {"h100", "b200"};  // configs/gpus/ names or files
  std::vector<std::int64_t> batches = {1, 8, 64};    // sequences per decode step
  std::vector<std::string> selectors = {"mean_key", "quest", "dsa_indexer", "faiss_ivfpq"};
  std::int64_t hidden = 3584;  // model width h (Qwen2.5-7B config.json hidden_size)
  double memory_share = 0.5;   // s_mem of the board power model (decode power.memory_share)
  decode::DsaIndexerSpec dsa{};
  kv::FaissIvfPqScorerSpec faiss{};
  static void describe(config::Schema<DesignBaselinesSpec>& s);
};

// The robustness of each front design (docs/prism.md, "Robustness of the front"): its recall
// again at a higher drift (per-ring drift added, impairments.drift_local_sigma) and on another
// calibrated workload profile. "" / 0: that check is off.
struct DesignRobustnessSpec {
  static constexpr std::string_view kind = "prism_design_robustness";
  std::string profile = "llama-3-8b-layered";    // configs/kv/ preset; tokens/layers/steps kept
  Length drift_local_sigma = Length::si(2e-12);  // per-ring drift sigma (the seed's +-2 pm lock)
  static void describe(config::Schema<DesignRobustnessSpec>& s);
};

struct DesignStudySpec {
  static constexpr std::string_view kind = "prism_design_study";
  std::string description;
  prism::PrismDesignSpec design;  // `preset: NAME` reads configs/prism_designs/NAME.yaml
  DesignBaselinesSpec baselines{};
  DesignRobustnessSpec robustness{};
  static void describe(config::Schema<DesignStudySpec>& s);
};

// Registers the study `prism_design` (its spec kind and its definition; runner.h).
void add_design_study(Registry& registry);

}  // namespace lightsim::studies

// The prism_design study's robustness of each front design (docs/prism.md, "Robustness of the
// front"): its recall again at a higher per-ring drift and on another calibrated profile.
#pragma once

#include "lightsim/prism/design.h"
#include "lightsim/studies/design.h"
#include "lightsim/studies/runner.h"

namespace lightsim::studies::design_detail {

// The table `robustness` (one row per front design: the metric as searched, at the drift, on
// the other profile with that profile's ideal projection figure, and the drops) and its chart
// beside the front. Nothing when both checks are off or the front is empty.
void add_robustness(RunBase& run, const DesignStudySpec& spec, const prism::DesignResult& r);

// The workload of the other profile (robustness.profile read from `load`'s roots, with the
// search's tokens, layers and steps), generated while the search's cache is held.
kv::KvGeneratorSpec robustness_workload(const DesignStudySpec& spec,
                                        const config::LoadOptions& load);

}  // namespace lightsim::studies::design_detail

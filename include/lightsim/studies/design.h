// The `prism_design` study: the Prism design-space search (prism/design.h) as a study, so its
// Pareto front is a chart in the report (docs/studies.md, "prism_design").
#pragma once

#include <string>
#include <string_view>

#include "lightsim/core/config.h"
#include "lightsim/core/registry.h"
#include "lightsim/prism/design.h"

namespace lightsim::studies {

struct DesignStudySpec {
  static constexpr std::string_view kind = "prism_design_study";
  std::string description;
  prism::PrismDesignSpec design;  // `preset: NAME` reads configs/prism_designs/NAME.yaml
  static void describe(config::Schema<DesignStudySpec>& s);
};

// Registers the study `prism_design` (its spec kind and its definition; runner.h).
void add_design_study(Registry& registry);

}  // namespace lightsim::studies

// The prism module's spec kinds, registered explicitly (docs/architecture.md).
#include "lightsim/prism/register.h"

#include "lightsim/kv/register.h"
#include "lightsim/prism/accelerator.h"
#include "lightsim/prism/calibration.h"
#include "lightsim/prism/cost.h"
#include "lightsim/prism/design.h"
#include "lightsim/prism/qat.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/prism/thermal.h"

namespace lightsim::prism {

void register_all(Registry& registry) {
  registry.add_spec<AcceleratorSpec>();
  registry.add_spec<ProgrammingSpec>();
  registry.add_spec<SelectionSpec>();
  registry.add_spec<ElectronicsSpec>();
  registry.add_spec<InterposerSpec>();
  registry.add_spec<AreaSpec>();
  registry.add_spec<PrismSeedReference>();
  registry.add_spec<PrismScorerSpec>();
  register_scorer(registry.family<kv::ScorerFactory>(
      kv::kScorerFamily, "KV block scorers: rank a head's blocks for a decode query"));
  registry.add_spec<ThermalSpec>();
  registry.add_spec<CalibrationSpec>();
  registry.add_spec<ThermalSeedReference>();
  registry.add_spec<PrismDesignSpec>();
  registry.add_spec<DesignSpaceSpec>();
  registry.add_spec<DesignTargetSpec>();
  // "qat": 4-bit weights, 8-bit queries, no score noise (QatOptions defaults; qat.h).
  register_qat_projection(registry.family<kv::ProjectionFitter>(
                              kv::kProjectionFamily, "d-dimensional block signature projections"),
                          QatOptions{});
}

}  // namespace lightsim::prism

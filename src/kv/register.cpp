#include "lightsim/kv/register.h"

#include "lightsim/kv/calibration.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/projection.h"
#include "lightsim/kv/scorer.h"
#include "lightsim/kv/scorer_specs.h"

namespace lightsim::kv {

void register_all(Registry& registry) {
  registry.add_spec<KvGeneratorSpec>();
  registry.add_spec<KvMeasurements>();
  register_scorer_specs(registry);
  register_scorers(registry.family<ScorerFactory>(
      kScorerFamily, "KV block scorers: rank a head's blocks for a decode query"));
  register_projections(registry.family<ProjectionFitter>(
      kProjectionFamily, "d-dimensional block signature projections"));
}

}  // namespace lightsim::kv

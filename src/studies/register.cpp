// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/compensation.h"
#include "lightsim/studies/context.h"
#include "lightsim/studies/decode.h"
#include "lightsim/studies/design.h"
#include "lightsim/studies/energy.h"
#include "lightsim/studies/impairments.h"
#include "lightsim/studies/needle.h"
#include "lightsim/studies/rejudge.h"
#include "lightsim/studies/serve_prism.h"
#include "lightsim/studies/serving.h"
#include "lightsim/studies/study.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind and its definition (add_X_study: studies::add_study, which
  // also lets `config check` read every size), one line each; reference kinds beside them.
  study_family(registry);  // the family exists even before the first study
  add_impairments_study(registry);
  registry.add_spec<ImpairmentAxesSpec>();
  registry.add_spec<ImpairmentPointSpec>();
  registry.add_spec<ImpairmentsSeedReference>();
  add_context_study(registry);
  registry.add_spec<ContextSeedRow>();
  registry.add_spec<ContextSeedReference>();
  add_needle_study(registry);
  registry.add_spec<NeedleSeedReference>();
  registry.add_spec<CompensationSeedReference>();
  registry.add_spec<QatStudySpec>();
  registry.add_spec<DesignBaselinesSpec>();
  registry.add_spec<DesignRobustnessSpec>();
  add_enhancement_study(registry);
  add_balanced_study(registry);
  add_decode_study(registry);
  add_prefill_study(registry);
  add_prism_study(registry);
  add_thermal_study(registry);
  add_design_study(registry);
  registry.add_spec<EnergyFaissSpec>();
  registry.add_spec<EnergySeedReference>();
  add_energy_study(registry);
  add_serve_prism_study(registry);
  add_serving_study(registry);
  add_rejudge_study(registry);  // runs the retrieval studies above on each KV profile
}

}  // namespace lightsim::studies

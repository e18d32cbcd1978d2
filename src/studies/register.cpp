// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/compensation.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind (registry.add_spec<XStudySpec>()) and its function
  // (study_family(registry).add("x", "help", run_x_study)) here, one line each.
  (void)study_family(registry);
  registry.add_spec<CompensationSeedReference>();
  registry.add_spec<QatStudySpec>();
  registry.add_spec<EnhancementStudySpec>();
  study_family(registry).add("enhancement",
                             "Monte-Carlo voting and QAT at 4-bit weights (SPEC 1.5)",
                             run_enhancement_study);
  registry.add_spec<BalancedStudySpec>();
  study_family(registry).add("balanced",
                             "balanced vs single-ended detection at equal optical power (SPEC 1.3)",
                             run_balanced_study);
}

}  // namespace lightsim::studies

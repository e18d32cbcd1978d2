// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/study.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind (registry.add_spec<XStudySpec>()) and its function
  // (study_family(registry).add("x", "help", run_x_study)) here, one line each.
  (void)study_family(registry);
}

}  // namespace lightsim::studies

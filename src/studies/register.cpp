// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/decode.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind (registry.add_spec<XStudySpec>()) and its function
  // (study_family(registry).add("x", "help", run_x_study)) here, one line each.
  registry.add_spec<DecodeStudySpec>();
  study_family(registry).add("decode", "decode end to end: full attention vs Prism (SPEC 1.7)",
                             run_decode_study);
}

}  // namespace lightsim::studies

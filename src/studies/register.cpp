// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/study.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind (add_study_spec<XStudySpec>(registry): `config check` reads
  // every size) and its function
  // (study_family(registry).add("x", "help", run_x_study)) here, one line each.
  StudyFamily& family = study_family(registry);
  add_study_spec<PrefillStudySpec>(registry);
  family.add("prefill", "the seed's prefill scenarios on the electrical and photonic fabrics",
             run_prefill_study);
  add_study_spec<PrismStudySpec>(registry);
  family.add("prism", "Prism accelerator: energy, latency and area per preset beside the seed",
             run_prism_study);
  add_study_spec<ThermalStudySpec>(registry);
  family.add("thermal", "Prism thermal run: drift, TEC action, recalibrations, weight error",
             run_thermal_study);
}

}  // namespace lightsim::studies

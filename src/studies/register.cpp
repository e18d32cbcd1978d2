// Spec kinds and studies of the studies module, registered explicitly.
#include "lightsim/studies/register.h"

#include "lightsim/studies/compensation.h"
#include "lightsim/studies/context.h"
#include "lightsim/studies/decode.h"
#include "lightsim/studies/energy.h"
#include "lightsim/studies/impairments.h"
#include "lightsim/studies/needle.h"
#include "lightsim/studies/study.h"
#include "lightsim/studies/system.h"

namespace lightsim::studies {

void register_all(Registry& registry) {
  // Each study adds its spec kind (add_study_spec<XStudySpec>(registry): `config check` reads
  // every size) and its function
  // (study_family(registry).add("x", "help", run_x_study)) here, one line each.
  StudyFamily& studies = study_family(registry);
  add_study_spec<ImpairmentsStudySpec>(registry);
  registry.add_spec<ImpairmentAxesSpec>();
  registry.add_spec<ImpairmentPointSpec>();
  registry.add_spec<ImpairmentsSeedReference>();
  studies.add("impairments",
              "Prism recall vs weight bits, drift, crosstalk, NEP, splitter loss (seed table 3.1)",
              run_impairments_study);
  add_study_spec<ContextStudySpec>(registry);
  registry.add_spec<ContextSeedRow>();
  registry.add_spec<ContextSeedReference>();
  studies.add("context", "Prism retrieval at 4K-128K contexts, blocks of 128 and 256 (seed 4.1)",
              run_context_study);
  add_study_spec<NeedleStudySpec>(registry);
  registry.add_spec<NeedleSeedReference>();
  studies.add("needle", "Prism needle hit rate per head and union, 4-bit + 30 pm (seed 4.1)",
              run_needle_study);
  registry.add_spec<CompensationSeedReference>();
  registry.add_spec<QatStudySpec>();
  add_study_spec<EnhancementStudySpec>(registry);
  studies.add("enhancement", "Monte-Carlo voting and QAT at 4-bit weights (SPEC 1.5)",
              run_enhancement_study);
  add_study_spec<BalancedStudySpec>(registry);
  studies.add("balanced", "balanced vs single-ended detection at equal optical power (SPEC 1.3)",
              run_balanced_study);
  add_study_spec<DecodeStudySpec>(registry);
  studies.add("decode", "decode end to end: full attention vs Prism (SPEC 1.7)", run_decode_study);
  add_study_spec<PrefillStudySpec>(registry);
  studies.add("prefill", "the seed's prefill scenarios on the electrical and photonic fabrics",
              run_prefill_study);
  add_study_spec<PrismStudySpec>(registry);
  studies.add("prism", "Prism accelerator: energy, latency and area per preset beside the seed",
              run_prism_study);
  add_study_spec<ThermalStudySpec>(registry);
  studies.add("thermal", "Prism thermal run: drift, TEC action, recalibrations, weight error",
              run_thermal_study);
  registry.add_spec<EnergyFaissSpec>();
  registry.add_spec<EnergySeedReference>();
  add_study_spec<EnergyStudySpec>(registry);
  studies.add("energy", "energy and latency per query: Prism vs GPU scan, FAISS, LPDDR5 (SPEC 1.6)",
              run_energy_study);
}

}  // namespace lightsim::studies

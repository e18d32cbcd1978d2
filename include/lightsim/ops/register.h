// The operations of every module (src/ops/*_ops.cpp), registered in the "operation" family.
#pragma once

#include <ostream>

#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"

namespace lightsim::ops {

void register_all(Registry& registry);

// One registration function per file of src/ops/.
void register_photonics_ops(Registry& registry);
void register_prism_ops(Registry& registry);
void register_fabric_ops(Registry& registry);
void register_decode_ops(Registry& registry);
void register_model_ops(Registry& registry);
void register_prefill_ops(Registry& registry);
void register_study_ops(Registry& registry);

// A study's claims as a table: seed figure, ours, deviation, unit, verdict (study run and
// reproduce print it).
void print_claims(const report::StudyResult& result, std::ostream& out);

}  // namespace lightsim::ops

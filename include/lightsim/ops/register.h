// The operations of every module (src/ops/*_ops.cpp), registered in the "operation" family.
#pragma once

#include "lightsim/core/registry.h"

namespace lightsim::ops {

void register_all(Registry& registry);

// One registration function per file of src/ops/.
void register_photonics_ops(Registry& registry);
void register_prism_ops(Registry& registry);
void register_prism_thermal_ops(Registry& registry);
void register_prism_design_ops(Registry& registry);
void register_fabric_ops(Registry& registry);
void register_fabric_design_ops(Registry& registry);
void register_decode_ops(Registry& registry);
void register_serve_ops(Registry& registry);
void register_model_ops(Registry& registry);
void register_prefill_ops(Registry& registry);
void register_study_ops(Registry& registry);
void register_kv_ops(Registry& registry);
void register_kv_select_ops(Registry& registry);

}  // namespace lightsim::ops

#include "lightsim/ops/register.h"

namespace lightsim::ops {

void register_all(Registry& registry) {
  register_photonics_ops(registry);
  register_prism_ops(registry);
  register_prism_thermal_ops(registry);
  register_prism_design_ops(registry);
  register_fabric_ops(registry);
  register_fabric_design_ops(registry);
  register_decode_ops(registry);
  register_serve_ops(registry);
  register_model_ops(registry);
  register_prefill_ops(registry);
  register_study_ops(registry);
  register_kv_ops(registry);
  register_kv_select_ops(registry);
}

}  // namespace lightsim::ops

// The step model of a pool from lightsim's own models (docs/serving.md, "Roofline step model"):
// prefill steps from the prefill Evaluator (prefill/evaluate.h) with the pool's plan on its
// fabric, decode steps from the decode module's one-GPU step (decode/step.h, full attention) or,
// when the pool has a decode_plan, from the decode-at-scale model (decode/scale.h) on its
// gpus_per_instance GPUs.
//
// Prefill of a chunk of c tokens over p cached tokens: T(c) + max(0, T(c + p) - T(c) - T(p)),
// with T(n) the Evaluator's latency of one n-token prompt. For T(n) = b n + k n^2 (linear
// operators plus causal attention) the second term is 2 k c p, the chunk's attention over the
// cached keys; where T is weight-bound (small n) it is clipped to 0.
#pragma once

#include <memory>

#include "lightsim/core/config.h"
#include "lightsim/model/transformer.h"
#include "lightsim/serve/scenario.h"
#include "lightsim/serve/step_model.h"

namespace lightsim::serve {

struct PoolModel {
  std::shared_ptr<const StepModel> steps;  // uncached
  InstanceMemory memory;
  std::int64_t gpus_per_instance = 1;
};

// The roofline model of `pool` for the scenario's model and number formats. KV capacity per
// instance: gpus x HBM x hbm_usable_fraction - the weights (one copy per instance; with a
// decode_plan, the plan's per-GPU weights on each GPU). A model that does not fit, a plan that
// does not match gpus_per_instance or the model, or gpus_per_instance > 1 without a
// decode_plan where decode steps are needed is a ConfigError naming the pool.
PoolModel roofline_pool(const ScenarioSpec& scenario, const model::Transformer& model,
                        const PoolSpec& pool, std::string_view pool_name, bool needs_decode);

// The fixed step model of the scenario (FixedStepSpec).
PoolModel fixed_pool(const ScenarioSpec& scenario, const PoolSpec& pool);

}  // namespace lightsim::serve

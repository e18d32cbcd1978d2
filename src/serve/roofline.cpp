// The roofline step model over the prefill and decode modules (roofline.h).
#include "lightsim/serve/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "lightsim/core/error.h"
#include "lightsim/decode/scale.h"
#include "lightsim/decode/step.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/params.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/plan.h"
#include "lightsim/serve/pool_plans.h"

namespace lightsim::serve {

namespace {

class RooflineStepModel final : public StepModel {
 public:
  RooflineStepModel(const ScenarioSpec& scenario, const model::Transformer& model,
                    const PoolSpec& pool, std::string pool_name)
      : model_(model),
        topology_(fabric::build_topology(pool.fabric.get())),
        gpus_(pool.gpus_per_instance),
        pool_name_(std::move(pool_name)) {
    // The Evaluator times whole prompts of c + p tokens; its HBM check (weights + the whole
    // prompt's activations) does not apply to a chunked step, whose activations the token
    // budget bounds and whose KV the scheduler's admission has already reserved. Timing does
    // not depend on the capacity (prefill/evaluate.cpp uses it only for the memory check).
    timing_topology_ = topology_;
    timing_topology_.gpu.hbm_capacity = DataSize::si(1e18);
    prefill_ = prefill_scenario_of(scenario);
    plan_ = prefill::parse_plan(pool.plan, gpus_);
    LIGHTSIM_CHECK_AS(ConfigError, plan_.gpus() == gpus_,
                      "{}.plan: '{}' uses {} GPUs, the pool's gpus_per_instance is {}", pool_name_,
                      pool.plan, plan_.gpus(), gpus_);
    decode_.scenario.name = scenario.name;
    decode_.scenario.model = scenario.model;
    decode_.scenario.dtypes = scenario.dtypes;
    decode_.scenario.hbm_usable_fraction = scenario.hbm_usable_fraction;
    decode_.model = model;
    gpu_.gpu = topology_.gpu;
    if (scenario.prism.enabled) {
      // Prism selects the blocks each decode step reads (decode/step.h, Attention::prism).
      LIGHTSIM_CHECK_AS(ConfigError, pool.decode_plan.empty(),
                        "prism.enabled: Prism selection is modelled on the one-GPU decode step; "
                        "{}.decode_plan '{}' decodes at scale (leave it empty or turn Prism off)",
                        pool_name_, pool.decode_plan);
      decode_.scenario.prism = scenario.prism.selector;
      decode_.accelerator = scenario.prism.selector.accelerator.get();
      attention_ = decode::Attention::prism;
    }
    if (!pool.decode_plan.empty()) {
      scale_.emplace(scale_setup_of(scenario, model, pool.fabric, gpus_));
      try {
        scale_plan_ = decode::parse_plan(pool.decode_plan, gpus_);
      } catch (const InputError& e) {
        LIGHTSIM_THROW(ConfigError, "{}.decode_plan: {}", pool_name_, e.what());
      }
      const std::string why = scale_->validate(scale_plan_);
      LIGHTSIM_CHECK_AS(ConfigError, why.empty(), "{}.decode_plan: '{}': {}", pool_name_,
                        pool.decode_plan, why);
    }
  }

  // Decode memory of the decode-at-scale plan (nullopt for the one-GPU decode step): KV bytes
  // the instance holds beside its weights (the fullest stage's GPU, x gpus).
  std::optional<double> scale_kv_capacity() const {
    if (!scale_) return std::nullopt;
    const decode::DecodeMemory m = scale_->memory(scale_plan_, 4096);
    return std::max(0.0, m.capacity - m.weights) * static_cast<double>(gpus_);
  }

  // T(c) + max(0, T(c + p) - T(c) - T(p)) (roofline.h).
  double prefill(std::int64_t tokens, double prior) const override {
    const double c = static_cast<double>(tokens);
    const double tc = prompt_time(c);
    if (prior < 1) return tc;
    return tc + std::max(0.0, prompt_time(c + prior) - tc - prompt_time(prior));
  }

  double decode(std::int64_t batch, double context) const override {
    const auto ctx = static_cast<std::int64_t>(std::max(1.0, std::round(context)));
    if (scale_) return scale_decode(batch, ctx);
    decode::StepReport r = decode::evaluate_step(decode_, gpu_, attention_, batch, ctx);
    if (!r.feasible) {
      // Beyond HBM only between grid points the scheduler's KV admission keeps it under: time
      // the largest context that fits (the step is bound by the same weights and KV reads).
      const double kv = model::kv_bytes_per_token(model_, decode_.scenario.dtypes);
      const double weights = model::count_parameters(model_).total *
                             model::bytes_per_value(decode_.scenario.dtypes.weights);
      const double room =
          gpu_.gpu.hbm_capacity.si() * decode_.scenario.hbm_usable_fraction - weights;
      const auto fit =
          static_cast<std::int64_t>(std::floor(room / (kv * static_cast<double>(batch))));
      LIGHTSIM_CHECK_AS(ConfigError, fit >= 1,
                        "{}: a decode batch of {} does not fit on one {}: {}", pool_name_, batch,
                        gpu_.gpu.name, r.reason);
      r = decode::evaluate_step(decode_, gpu_, attention_, batch, std::min(ctx, fit));
    }
    return r.step_time;
  }

 private:
  // The decode-at-scale step. Beyond HBM only between grid points, as above: the largest
  // context that fits is timed.
  double scale_decode(std::int64_t batch, std::int64_t ctx) const {
    decode::StepBreakdown b = scale_->step_time(scale_plan_, batch, ctx);
    if (!b.feasible && b.memory.kv_per_sequence > 0) {
      const double room = b.memory.capacity - b.memory.weights;
      const double per_key = b.memory.kv_per_sequence / static_cast<double>(ctx);
      const double per_group =
          static_cast<double>(std::max<std::int64_t>(1, b.sequences_per_group));
      const auto fit = static_cast<std::int64_t>(std::floor(room / (per_key * per_group)));
      if (fit >= 1 && fit < ctx) b = scale_->step_time(scale_plan_, batch, fit);
    }
    LIGHTSIM_CHECK_AS(ConfigError, b.feasible,
                      "{}: a decode step of {} sequences at {} keys on "
                      "plan {}: {}",
                      pool_name_, batch, ctx, decode::format_plan(scale_plan_), b.reason);
    return b.step_time;
  }

  // Latency of one prompt of n tokens on the pool's plan, on a grid of 8 points per octave
  // (integers below 16) with linear interpolation; one prefill Evaluator per grid point. The
  // Evaluator needs >= 2 tokens per sequence (two zig-zag chunks), so T(n < 2) = T(2) n / 2.
  double prompt_time(double n) const {
    const int i = std::max(grid_index(static_cast<double>(kSmallestPrompt)), grid_index(n));
    const double x0 = grid_value(i), x1 = grid_value(i + 1);
    const double a = grid_time(i);
    if (n <= x0) return a * n / x0;
    return a + (n - x0) / (x1 - x0) * (grid_time(i + 1) - a);
  }

  double grid_time(int i) const {
    const auto it = times_.find(i);
    if (it != times_.end()) return it->second;
    prefill::ScenarioSpec sc = prefill_;
    sc.sequence_length = static_cast<std::int64_t>(grid_value(i));
    const prefill::Evaluator ev(sc, model_, timing_topology_, gpus_);
    const prefill::Result r = ev.evaluate(plan_);
    LIGHTSIM_CHECK_AS(ConfigError, r.feasible,
                      "{}: prefill plan {} cannot prefill {} tokens on {}: {}", pool_name_,
                      prefill::format_plan(plan_), sc.sequence_length, topology_.name, r.reason);
    times_.emplace(i, r.latency_s);
    return r.latency_s;
  }

  model::Transformer model_;
  fabric::Topology topology_;
  fabric::Topology timing_topology_;  // topology_ with unbounded HBM (prefill timing only)
  std::int64_t gpus_;
  std::string pool_name_;
  prefill::ScenarioSpec prefill_;
  prefill::Plan plan_;
  decode::DecodeSetup decode_;
  decode::GpuOption gpu_;
  decode::Attention attention_ = decode::Attention::full;  // prism when prism.enabled
  std::optional<decode::StepEvaluator> scale_;             // decode_plan given: decode at scale
  decode::DecodePlan scale_plan_;
  mutable std::map<int, double> times_;
};

}  // namespace

PoolModel roofline_pool(const ScenarioSpec& scenario, const model::Transformer& model,
                        const PoolSpec& pool, std::string_view pool_name, bool needs_decode) {
  LIGHTSIM_CHECK_AS(ConfigError,
                    !needs_decode || pool.gpus_per_instance == 1 || !pool.decode_plan.empty(),
                    "{}.gpus_per_instance: {} (the one-GPU decode step runs one replica per GPU; "
                    "give {}.decode_plan, e.g. \"DPA={},EP={}\", to decode on {} GPUs, or use 1)",
                    pool_name, pool.gpus_per_instance, pool_name, pool.gpus_per_instance,
                    pool.gpus_per_instance, pool.gpus_per_instance);
  const fabric::GpuSpec& gpu = pool.fabric.get().gpu;
  const double weights =
      model::count_parameters(model).total * model::bytes_per_value(scenario.dtypes.weights);
  const double hbm = static_cast<double>(pool.gpus_per_instance) * gpu.hbm_capacity.si() *
                     scenario.hbm_usable_fraction;
  LIGHTSIM_CHECK_AS(ConfigError, weights < hbm,
                    "{}: the weights of {} ({:.1f} GB) do not fit in {:.0f}% of the HBM of {} x {} "
                    "({:.1f} GB)",
                    pool_name, model.name, weights / 1e9, 100 * scenario.hbm_usable_fraction,
                    pool.gpus_per_instance, gpu.name, hbm / 1e9);
  PoolModel out;
  auto steps = std::make_shared<RooflineStepModel>(scenario, model, pool, std::string(pool_name));
  out.memory.kv_bytes_per_token = model::kv_bytes_per_token(model, scenario.dtypes);
  // One weight copy per instance, or, decoding at scale, the plan's per-GPU weights (attention
  // replicated over DPA, experts sharded over EP).
  out.memory.kv_capacity =
      needs_decode ? steps->scale_kv_capacity().value_or(hbm - weights) : hbm - weights;
  out.steps = std::move(steps);
  out.gpus_per_instance = pool.gpus_per_instance;
  return out;
}

PoolModel fixed_pool(const ScenarioSpec& scenario, const PoolSpec& pool) {
  PoolModel out;
  out.steps = std::make_shared<FixedStepModel>(scenario.fixed_steps);
  out.memory.kv_bytes_per_token = scenario.fixed_steps.kv_bytes_per_token.si();
  out.memory.kv_capacity = scenario.fixed_steps.kv_capacity.si();
  out.gpus_per_instance = pool.gpus_per_instance;
  return out;
}

}  // namespace lightsim::serve

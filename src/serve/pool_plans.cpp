// The plans of a serving pool (pool_plans.h).
#include "lightsim/serve/pool_plans.h"

#include "lightsim/core/error.h"
#include "lightsim/decode/plan.h"
#include "lightsim/decode/plan_search.h"
#include "lightsim/prefill/evaluate.h"
#include "lightsim/prefill/plan.h"
#include "lightsim/prefill/search.h"

namespace lightsim::serve {
namespace {

// Feasible prefill candidates kept from a search (an 8-GPU search has ~10^2).
constexpr std::size_t kMaxPrefillCandidates = 1 << 16;

}  // namespace

prefill::ScenarioSpec prefill_scenario_of(const ScenarioSpec& scenario) {
  prefill::ScenarioSpec p;
  p.model = scenario.model;
  p.name = scenario.name;
  p.dtypes = scenario.dtypes;
  p.hbm_usable_fraction = scenario.hbm_usable_fraction;
  p.requests = 1;
  return p;
}

decode::ScaleSetup scale_setup_of(const ScenarioSpec& scenario, const model::Transformer& model,
                                  const config::Ref<fabric::FabricSpec>& fabric,
                                  std::int64_t gpus) {
  decode::ScaleSetup setup;
  setup.scenario.name = scenario.name;
  setup.scenario.model = scenario.model;
  setup.scenario.dtypes = scenario.dtypes;
  setup.scenario.fabric = fabric;
  setup.scenario.gpus = gpus;
  setup.scenario.hbm_usable_fraction = scenario.hbm_usable_fraction;
  setup.scenario.tpot_target = scenario.slo.tpot;
  setup.model = model;
  setup.topology = fabric::build_topology(fabric.get());
  return setup;
}

PrefillPlanChoice choose_prefill_plan(const ScenarioSpec& scenario, const model::Transformer& model,
                                      const config::Ref<fabric::FabricSpec>& fabric,
                                      std::int64_t gpus, std::int64_t prompt,
                                      std::string_view where, const std::atomic<bool>* cancel) {
  prefill::ScenarioSpec sc = prefill_scenario_of(scenario);
  sc.sequence_length = prompt;
  // The real HBM: a plan whose weights and one prompt's activations overflow is not chosen.
  const fabric::Topology topology = fabric::build_topology(fabric.get());
  const prefill::Evaluator ev(sc, model, topology, gpus);
  const prefill::SearchResult r = prefill::search(ev, gpus, kMaxPrefillCandidates, cancel);
  LIGHTSIM_CHECK_AS(ConfigError, r.best.feasible,
                    "{}: no prefill plan of {} GPUs prefills a {}-token prompt on {}: {}", where,
                    gpus, prompt, fabric.get().name, r.best.reason);
  // The step model asks the plan for every chunk the scheduler forms, down to its smallest
  // grid point (roofline.cpp, kSmallestPrompt tokens): a plan that cannot prefill that many
  // (context parallelism needs two tokens per rank chunk) cannot run the pool.
  sc.sequence_length = kSmallestPrompt;
  const prefill::Evaluator small(sc, model, topology, gpus);
  PrefillPlanChoice out{.plan = "", .evaluated = r.evaluated, .feasible = 0, .latency = 0};
  for (const prefill::Result& c : r.top) {
    if (!small.evaluate(c.plan).feasible) continue;
    if (out.feasible++ == 0) {
      out.plan = prefill::format_plan(c.plan);
      out.latency = c.latency_s;
    }
  }
  LIGHTSIM_CHECK_AS(ConfigError, out.feasible > 0,
                    "{}: no prefill plan of {} GPUs prefills both a {}-token prompt and a "
                    "{}-token chunk on {}",
                    where, gpus, prompt, kSmallestPrompt, fabric.get().name);
  return out;
}

DecodePlanChoice choose_decode_plan(const ScenarioSpec& scenario, const model::Transformer& model,
                                    const config::Ref<fabric::FabricSpec>& fabric,
                                    std::int64_t gpus, std::int64_t context,
                                    std::string_view where) {
  const decode::StepEvaluator ev(scale_setup_of(scenario, model, fabric, gpus));
  const decode::DecodeSearchResult r =
      decode::search(ev, gpus, context, scenario.slo.tpot.si(), 0, 1);
  LIGHTSIM_CHECK_AS(ConfigError, r.best.feasible,
                    "{}: no decode plan of {} GPUs meets TPOT <= {:g} ms at {} keys on {}: {}",
                    where, gpus, 1e3 * scenario.slo.tpot.si(), context, fabric.get().name,
                    r.best.reason);
  return {.plan = decode::format_plan(r.best.plan),
          .batch = r.best.batch,
          .plans = r.plans,
          .evaluated = r.evaluated,
          .feasible = r.feasible,
          .tpot = r.best.tpot,
          .tokens_per_s_per_gpu = r.best.tokens_per_s_per_gpu};
}

}  // namespace lightsim::serve

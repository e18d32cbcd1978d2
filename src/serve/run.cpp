// A serving scenario end to end (run.h).
#include "lightsim/serve/run.h"

#include <cmath>

#include <fmt/format.h>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "lightsim/core/memory_budget.h"
#include "lightsim/fabric/topology.h"
#include "lightsim/model/transformer.h"
#include "lightsim/serve/roofline.h"

namespace lightsim::serve {

namespace {

PoolModel pool_model(const ScenarioSpec& sc, const model::Transformer* model, const PoolSpec& pool,
                     std::string_view name, bool decodes) {
  if (sc.step_model == StepModelKind::fixed) return fixed_pool(sc, pool);
  return roofline_pool(sc, *model, pool, name, decodes);
}

SimPool sim_pool(const PoolModel& m, const PoolSpec& spec) {
  return {.steps = std::make_shared<CachedStepModel>(m.steps),
          .memory = m.memory,
          .instances = spec.instances,
          .gpus_per_instance = spec.gpus_per_instance};
}

// The pools' GPUs, sizes, utilisation and scale-up bandwidth (the innermost tier's line rate).
std::vector<PoolLoad> pool_loads(const ScenarioSpec& sc, const SimResult& sim) {
  const auto load = [](const PoolSpec& pool, const PoolUsage& usage) {
    const fabric::FabricSpec& f = pool.fabric.get();
    return PoolLoad{.gpu = &f.gpu,
                    .gpus = usage.gpus,
                    .utilization = usage.utilization,
                    .fabric_bandwidth = fabric::build_topology(f).tiers.front().line_bandwidth};
  };
  if (sc.mode == PoolMode::colocated) return {load(sc.colocated, sim.colocated)};
  return {load(sc.prefill, sim.prefill), load(sc.decode, sim.decode)};
}

}  // namespace

ServeSetup prepare(const std::string& scenario, const config::LoadOptions& load, std::uint64_t seed,
                   std::uint64_t memory_budget) {
  return prepare(load_scenario(scenario, load), load, seed, memory_budget);
}

ServeSetup prepare(LoadedScenario scenario, const config::LoadOptions& load, std::uint64_t seed,
                   std::uint64_t memory_budget) {
  ServeSetup s;
  s.scenario = std::move(scenario);
  s.seed = seed;
  const ScenarioSpec& sc = s.scenario.spec;
  std::optional<model::Transformer> model;
  if (sc.step_model == StepModelKind::roofline)
    model =
        model::load_hf_config(config::find_named(sc.model, "models", load.roots_only(), "model"));
  SimConfig& c = s.config;
  c.max_batch = sc.scheduler.max_batch;
  c.token_budget = sc.scheduler.token_budget;
  c.block_tokens = sc.scheduler.block_tokens;
  c.slo_ttft = sc.slo.ttft.si();
  c.slo_tpot = sc.slo.tpot.si();
  c.queue_series_bins = sc.queue_series_bins;
  if (sc.host) c.host = sc.host->get();
  const model::Transformer* m = model ? &*model : nullptr;
  if (sc.mode == PoolMode::colocated) {
    c.colocated = sim_pool(pool_model(sc, m, sc.colocated, "colocated", true), sc.colocated);
  } else {
    c.disaggregated = true;
    c.prefill = sim_pool(pool_model(sc, m, sc.prefill, "prefill", false), sc.prefill);
    c.decode = sim_pool(pool_model(sc, m, sc.decode, "decode", true), sc.decode);
    const fabric::Topology topo = fabric::build_topology(
        sc.kv_transfer.fabric ? sc.kv_transfer.fabric->get() : sc.prefill.fabric.get());
    LIGHTSIM_CHECK_AS(ConfigError,
                      sc.kv_transfer.tier < static_cast<std::int64_t>(topo.tiers.size()),
                      "kv_transfer.tier: {} but fabric '{}' has {} tier(s) (0 = innermost)",
                      sc.kv_transfer.tier, topo.name, topo.tiers.size());
    const fabric::Tier& tier = topo.tiers[static_cast<std::size_t>(sc.kv_transfer.tier)];
    c.kv_bandwidth =
        tier.bandwidth * tier.efficiency * static_cast<double>(sc.prefill.gpus_per_instance);
    c.kv_latency = tier.alpha;
    s.kv_tier = topo.name + " " + tier.name;
  }
  if (sc.cost_model) {  // a GPU without board power is a ConfigError before any work
    if (sc.mode == PoolMode::colocated) {
      sc.colocated.fabric.get().gpu.board_power(0);
    } else {
      sc.prefill.fabric.get().gpu.board_power(0);
      sc.decode.fabric.get().gpu.board_power(0);
    }
  }
  const auto check_memory = [&](std::uint64_t requests) {
    if (memory_budget > 0)
      require_memory(bytes_of(requests, kSimulationBytesPerRequest), memory_budget,
                     fmt::format("a serving simulation of {} requests", requests));
  };
  if (sc.arrivals.process != ArrivalProcess::trace)
    check_memory(static_cast<std::uint64_t>(sc.arrivals.requests));
  s.requests = scenario_requests(s.scenario, load, seed);
  check_memory(s.requests.size());
  return s;
}

ServeReport run(const ServeSetup& setup) {
  const ScenarioSpec& sc = setup.scenario.spec;
  ServeReport r;
  r.scenario = sc.name;
  r.description = sc.description;
  r.model = sc.step_model == StepModelKind::roofline ? sc.model : "";
  r.mode = std::string(to_string(sc.mode));
  r.arrivals = std::string(to_string(sc.arrivals.process));
  r.step_model = sc.step_model == StepModelKind::roofline ? "roofline" : "fixed";
  r.seed = setup.seed;
  r.slo_ttft = setup.config.slo_ttft;
  r.slo_tpot = setup.config.slo_tpot;
  r.kv_bandwidth = setup.config.kv_bandwidth;
  r.kv_latency = setup.config.kv_latency;
  r.kv_tier = setup.kv_tier;
  if (sc.host) r.host = sc.host->get();
  if (sc.mode == PoolMode::colocated)
    r.pool_fabrics = {sc.colocated.fabric.get().name};
  else
    r.pool_fabrics = {sc.prefill.fabric.get().name, sc.decode.fabric.get().name};
  r.sim = simulate(setup.requests, setup.config);
  if (sc.cost_model) r.power = power_and_cost(sc.cost_model->get(), pool_loads(sc, r.sim), r.sim);
  for (const SimPool* p : {&setup.config.colocated, &setup.config.prefill, &setup.config.decode})
    if (const auto* cached = dynamic_cast<const CachedStepModel*>(p->steps.get()))
      r.step_model_calls += static_cast<std::int64_t>(cached->inner_calls());
  return r;
}

namespace {

Json dist_json(const Distribution& d) {
  return {{"count", d.count}, {"mean_s", d.mean}, {"p50_s", d.p50},
          {"p90_s", d.p90},   {"p99_s", d.p99},   {"max_s", d.max}};
}

Json pool_json(const PoolUsage& u) {
  return {{"instances", u.instances},
          {"gpus", u.gpus},
          {"steps", u.steps},
          {"decode_steps", u.decode_steps},
          {"busy_s", u.busy},
          {"utilization", u.utilization},
          {"prefill_tokens", u.prefill_tokens},
          {"decode_tokens", u.decode_tokens},
          {"mean_decode_batch", u.mean_decode_batch}};
}

}  // namespace

Json to_json(const ServeReport& r) {
  const SimResult& s = r.sim;
  Json pools = Json::object();
  if (r.mode == "colocated") {
    pools["colocated"] = pool_json(s.colocated);
  } else {
    pools["prefill"] = pool_json(s.prefill);
    pools["decode"] = pool_json(s.decode);
  }
  Json series = Json::array();
  for (const QueuePoint& p : s.queue_series)
    series.push_back({{"t_s", p.t}, {"queued", p.queued}, {"in_system", p.in_system}});
  Json j = {{"scenario", r.scenario},
            {"model", r.model},
            {"mode", r.mode},
            {"arrivals", r.arrivals},
            {"step_model", r.step_model},
            {"seed", r.seed},
            {"fabrics", r.pool_fabrics},
            {"slo", {{"ttft_s", r.slo_ttft}, {"tpot_s", r.slo_tpot}}},
            {"requests", s.requests},
            {"completed", s.completed},
            {"rejected", s.rejected},
            {"gpus", s.gpus},
            {"makespan_s", s.makespan},
            {"offered_rate_per_s", s.offered_rate},
            {"ttft", dist_json(s.ttft)},
            {"tpot", dist_json(s.tpot)},
            {"e2e", dist_json(s.e2e)},
            {"queue_wait", dist_json(s.queue_wait)},
            {"slo_met", s.slo_met},
            {"slo_attainment", s.slo_attainment},
            {"goodput_per_s", s.goodput},
            {"throughput_per_s", s.throughput},
            {"output_tokens_per_s", s.output_tokens_per_s},
            {"tokens_per_s_per_gpu", s.tokens_per_s_per_gpu},
            {"pools", pools},
            {"little",
             {{"l", s.little.l},
              {"lambda_per_s", s.little.lambda},
              {"w_s", s.little.w},
              {"relative_error", s.little.relative_error},
              {"lq", s.little.lq},
              {"wq_s", s.little.wq},
              {"queue_relative_error", s.little.queue_relative_error}}},
            {"queue_series", series},
            {"step_model_calls", r.step_model_calls}};
  if (r.mode == "disaggregated")
    j["kv_transfer"] = {
        {"tier", r.kv_tier},
        {"bandwidth_b_per_s", std::isfinite(r.kv_bandwidth) ? Json(r.kv_bandwidth) : Json(nullptr)},
        {"latency_s", r.kv_latency},
        {"mean_time_s", s.kv_transfer_time}};
  if (r.power) j["power"] = to_json(*r.power);
  if (r.host) {  // absent when off: such runs are byte-identical to runs without the key
    double busy = 0;
    for (const PoolUsage* u : {&s.colocated, &s.prefill, &s.decode}) busy += u->busy;
    j["host"] = {{"engine", r.host->engine},
                 {"overlap", std::string(to_string(r.host->overlap))},
                 {"step_base_s", r.host->step_base.si()},
                 {"per_sequence_s", r.host->per_sequence.si()},
                 {"per_prefill_token_s", r.host->per_prefill_token.si()},
                 {"host_s", s.host_work},
                 {"exposed_s", s.host_exposed},
                 {"exposed_share", busy > 0 ? s.host_exposed / busy : 0.0}};
  }
  return j;
}

}  // namespace lightsim::serve

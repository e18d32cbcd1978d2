// The `serving` study (serving.h; docs/studies.md "serving"): copper racks vs the photonic pod
// served end to end by the request-level simulator, with power and cost.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/model/transformer.h"
#include "lightsim/serve/pool_plans.h"
#include "lightsim/serve/run.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/serving.h"

namespace lightsim::studies {
namespace {

using ServingRun = Run<ServingStudySpec, NoReference>;

// One serving run of the grid: which model, arm, split, traffic and offered load.
struct Point {
  std::size_t model = 0, arm = 0, split = 0;
  std::string traffic{};  // traffic name, or "context" for part b
  serve::LengthSpec prompt{}, output{};
  double load = 0;        // 1/s per GPU
  double token_load = 0;  // part b: prompt tokens/s per GPU offered (load x prompt)
};

struct Outcome {
  std::string skipped{};  // why the split does not set up for the model ("" = it ran)
  serve::SimResult sim{};
  serve::PowerCost power{};
  double ttft_p99 = 0;
  std::vector<double> ttft{}, tpot{};  // sorted, completed requests (tpot: >= 2 tokens)
};

std::int64_t split_gpus(const ServingSplitSpec& s) {
  return s.prefill_instances * s.prefill_gpus_per_instance +
         s.decode_instances * s.decode_gpus_per_instance;
}

// The base scenario with the model, the arm's fabric and cost model, the split's pools and the
// traffic.
serve::LoadedScenario scenario_of(const ServingStudySpec& spec, const std::string& model,
                                  const Point& p) {
  const ServingArmSpec& arm = spec.arms[p.arm];
  const ServingSplitSpec& split = arm.splits[p.split];
  serve::LoadedScenario sc{.spec = spec.scenario.get(), .file = spec.scenario.file()};
  serve::ScenarioSpec& s = sc.spec;
  s.model = model;
  s.mode = serve::PoolMode::disaggregated;
  s.prefill = {.fabric = arm.fabric,
               .instances = split.prefill_instances,
               .gpus_per_instance = split.prefill_gpus_per_instance,
               .plan = split.prefill_plan,
               .decode_plan = ""};
  s.decode = {.fabric = arm.fabric,
              .instances = split.decode_instances,
              .gpus_per_instance = split.decode_gpus_per_instance,
              .plan = "TP=1",
              .decode_plan = split.decode_plan};
  s.kv_transfer = {.fabric = std::nullopt, .tier = arm.kv_tier};
  s.scheduler.max_batch = split.max_batch;
  s.cost_model = arm.cost_model;
  s.arrivals.process = s.arrivals.process == serve::ArrivalProcess::trace
                           ? serve::ArrivalProcess::poisson
                           : s.arrivals.process;
  s.arrivals.prompt = p.prompt;
  s.arrivals.output = p.output;
  s.arrivals.rate = Frequency::si(p.load * static_cast<double>(split_gpus(split)));
  if (spec.requests > 0) s.arrivals.requests = spec.requests;
  return sc;
}

// One point's serving run. A split whose pools do not set up for the model (serve::prepare's
// ConfigError: a plan that does not fit it, weights over HBM) is an outcome with the reason,
// not a run: the same split may fit the study's other models.
Outcome run_point(const ServingStudySpec& spec, const std::string& model, const Point& p,
                  const config::LoadOptions& load, std::uint64_t seed,
                  const std::atomic<bool>* cancel) {
  Outcome o;
  serve::ServeSetup setup;
  try {
    setup = serve::prepare(scenario_of(spec, model, p), load, seed);
  } catch (const ConfigError& e) {
    o.skipped = e.what();
    return o;
  }
  setup.config.cancel = cancel;  // a point's simulation stops within 4096 events
  serve::ServeReport r = serve::run(setup);
  o.power = *r.power;
  for (std::size_t i = 0; i < setup.requests.size(); ++i) {
    const serve::RequestTimes& t = r.sim.times[i];
    if (t.finished <= 0 && t.first_token <= 0) continue;  // rejected
    o.ttft.push_back(t.first_token - t.arrival);
    if (setup.requests[i].output >= 2)
      o.tpot.push_back((t.finished - t.first_token) /
                       static_cast<double>(setup.requests[i].output - 1));
  }
  std::sort(o.ttft.begin(), o.ttft.end());
  std::sort(o.tpot.begin(), o.tpot.end());
  r.sim.times.clear();
  o.sim = std::move(r.sim);
  return o;
}

double per_gpu(double v, std::int64_t gpus) {
  return gpus > 0 ? v / static_cast<double>(gpus) : 0;
}

std::vector<Column> run_columns(bool with_traffic) {
  std::vector<Column> c = {{"model", ""}, {"arm", ""}, {"split", ""}};
  if (with_traffic) c.push_back({"traffic", ""});
  for (Column k : std::vector<Column>{{"prompt_median", "tokens"},
                                      {"load_per_gpu", "1/s"},
                                      {"gpus", ""},
                                      {"goodput_per_gpu", "1/s"},
                                      {"slo_attainment", ""},
                                      {"ttft_p50", "s"},
                                      {"ttft_p99", "s"},
                                      {"tpot_p50", "ms"},
                                      {"tpot_p99", "ms"},
                                      {"tokens_per_s_per_gpu", "1/s"},
                                      {"prefill_utilization", ""},
                                      {"decode_utilization", ""},
                                      {"facility_power_per_gpu", "W"},
                                      {"fabric_power_per_gpu", "W"},
                                      {"goodput_per_kw", "1/s"},
                                      {"requests_per_usd", ""},
                                      {"energy_per_token", "J"},
                                      {"usd_per_mtok", "USD"},
                                      {"rejected", ""}})
    c.push_back(k);
  return c;
}

// One row of `table` ("runs" with its traffic column, or "context" without one).
void add_run_row(ServingRun& run, const ServingStudySpec& spec, const std::string& model,
                 const std::string& table, bool with_traffic, const Point& p, const Outcome& o) {
  const ServingArmSpec& arm = spec.arms[p.arm];
  const serve::SimResult& s = o.sim;
  const auto row = [&](auto&&... traffic) {
    run.add_row(table, {{"model", model},
                        {"arm", arm.name},
                        {"split", arm.splits[p.split].name},
                        traffic...,
                        {"prompt_median", p.prompt.median},
                        {"load_per_gpu", p.load},
                        {"gpus", s.gpus},
                        {"goodput_per_gpu", o.power.goodput_per_s_per_gpu},
                        {"slo_attainment", s.slo_attainment},
                        {"ttft_p50", s.ttft.p50},
                        {"ttft_p99", s.ttft.p99},
                        {"tpot_p50", 1e3 * s.tpot.p50},
                        {"tpot_p99", 1e3 * s.tpot.p99},
                        {"tokens_per_s_per_gpu", s.tokens_per_s_per_gpu},
                        {"prefill_utilization", s.prefill.utilization},
                        {"decode_utilization", s.decode.utilization},
                        {"facility_power_per_gpu", per_gpu(o.power.facility_power, s.gpus)},
                        {"fabric_power_per_gpu", per_gpu(o.power.fabric_power, s.gpus)},
                        {"goodput_per_kw", o.power.goodput_per_s_per_kw},
                        {"requests_per_usd", o.power.goodput_per_usd},
                        {"energy_per_token", o.power.energy_per_token},
                        {"usd_per_mtok", o.power.cost_per_million_tokens},
                        {"rejected", s.rejected}});
  };
  if (with_traffic)
    row(report::NamedCell{"traffic", p.traffic});
  else
    row();
}

// The q-quantile (type 7) of sorted values; 0 when empty.
double quantile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double h = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

void add_charts(ServingRun& run) {
  Chart load{
      .title = "Goodput per GPU against offered load", .table = "runs", .mark = Mark::line_points};
  load.x =
      Channel{.field = "load_per_gpu", .type = "quantitative", .title = "offered req/s per GPU"};
  load.y = Channel{
      .field = "goodput_per_gpu", .type = "quantitative", .title = "SLO-meeting req/s per GPU"};
  load.color = Channel{.field = "arm", .type = "nominal"};
  load.stroke_dash = Channel{.field = "split", .type = "nominal"};
  load.column = Channel{.field = "traffic", .type = "nominal"};
  load.row = Channel{.field = "model", .type = "nominal"};
  load.independent = {"x", "y"};
  run.chart(load);

  Chart splits{
      .title = "Best goodput per GPU of each pool split", .table = "splits", .mark = Mark::bar};
  splits.x = Channel{.field = "split", .type = "nominal"};
  splits.y = Channel{
      .field = "goodput_per_gpu", .type = "quantitative", .title = "SLO-meeting req/s per GPU"};
  splits.color = Channel{.field = "arm", .type = "nominal"};
  splits.column = Channel{.field = "traffic", .type = "nominal"};
  splits.row = Channel{.field = "model", .type = "nominal"};
  splits.independent = {"x", "y"};
  run.chart(splits);

  for (const char* metric : {"ttft", "tpot"}) {
    Chart cdf{.title = fmt::format("{} CDF at the best split and load",
                                   std::string(metric) == "ttft" ? "TTFT" : "TPOT"),
              .table = "latency_cdf",
              .mark = Mark::line};
    cdf.filters = {fmt::format("datum.metric == '{}'", metric)};
    cdf.x = Channel{.field = "latency", .type = "quantitative", .title = "latency (s)"};
    cdf.y = Channel{.field = "quantile", .type = "quantitative", .title = "share of requests"};
    cdf.color = Channel{.field = "arm", .type = "nominal"};
    cdf.column = Channel{.field = "traffic", .type = "nominal"};
    cdf.row = Channel{.field = "model", .type = "nominal"};
    cdf.independent = {"x"};
    run.chart(cdf);
  }

  Chart ratio{.title = "Goodput ratio photonic / copper against context length",
              .table = "context_ratio",
              .mark = Mark::line_points};
  ratio.x = Channel{.field = "context",
                    .type = "quantitative",
                    .title = "prompt tokens",
                    .scale = {.type = "log", .base = 2}};
  ratio.y = Channel{.field = "goodput_ratio", .type = "quantitative", .title = "goodput ratio"};
  ratio.color = Channel{
      .field = "prompt_tokens_per_gpu", .type = "ordinal", .title = "prompt tokens/s per GPU"};
  ratio.column = Channel{.field = "model", .type = "nominal"};
  run.chart(ratio);
}

// A plan chosen by a plan search (serve/pool_plans.h), for the `plans` table.
struct PlanRow {
  std::string model, arm, split, pool, plan;
  std::int64_t gpus = 0, at = 0;  // GPUs of the instance; prompt tokens or decode keys
  std::int64_t candidates = 0, evaluated = 0, feasible = 0, batch = 0;
  double time = 0;  // s: one prompt's latency (prefill) or the TPOT (decode)
  double tokens_per_s_per_gpu = 0;
};

struct SearchedSpec {
  std::string model;  // configs/models/ name or config.json path
  ServingStudySpec spec;
  std::vector<PlanRow> plans;
};

// The models served: the study's `models`, or the scenario's model when none are given.
std::vector<std::string> models_of(const ServingStudySpec& spec) {
  if (!spec.models.empty()) return spec.models;
  return {spec.scenario.get().model};
}

// The study's spec for one model with each arm's searched splits after its stated ones; with
// search_plans, their plans from the plan searches for that model (one prefill search per arm:
// its instances are the same for every split; one decode search per decode pool size).
SearchedSpec with_searched_splits(const ServingRun& run, const std::string& model_name) {
  SearchedSpec out{.model = model_name, .spec = run.spec, .plans = {}};
  serve::ScenarioSpec base = run.spec.scenario.get();
  base.model = model_name;
  std::optional<model::Transformer> model;
  for (ServingArmSpec& arm : out.spec.arms) {
    const ServingSplitSearchSpec& x = arm.split_search;
    std::vector<ServingSplitSpec> found = searched_splits(x);
    if (x.search_plans && !found.empty()) {
      if (!model)
        model = model::load_hf_config(
            config::find_named(base.model, "models", run.presets.roots_only(), "model"));
      const std::string where =
          fmt::format("arms '{}'.split_search (model '{}')", arm.name, model_name);
      const serve::PrefillPlanChoice pre =
          serve::choose_prefill_plan(base, *model, arm.fabric, x.prefill_gpus_per_instance,
                                     x.plan_prompt, where, run.ctx.cancel_flag());
      for (ServingSplitSpec& s : found) {
        const serve::DecodePlanChoice dec = serve::choose_decode_plan(
            base, *model, arm.fabric, s.decode_gpus_per_instance, x.plan_context, where);
        s.prefill_plan = pre.plan;
        s.decode_plan = dec.plan;
        s.max_batch = dec.batch;
        out.plans.push_back(
            {.model = model_name,
             .arm = arm.name,
             .split = s.name,
             .pool = "prefill",
             .plan = pre.plan,
             .gpus = x.prefill_gpus_per_instance,
             .at = x.plan_prompt,
             .candidates = pre.evaluated,
             .evaluated = pre.evaluated,
             .feasible = pre.feasible,
             .batch = 1,
             .time = pre.latency,
             .tokens_per_s_per_gpu = static_cast<double>(x.plan_prompt) / pre.latency /
                                     static_cast<double>(x.prefill_gpus_per_instance)});
        out.plans.push_back({.model = model_name,
                             .arm = arm.name,
                             .split = s.name,
                             .pool = "decode",
                             .plan = dec.plan,
                             .gpus = s.decode_gpus_per_instance,
                             .at = x.plan_context,
                             .candidates = dec.plans,
                             .evaluated = dec.evaluated,
                             .feasible = dec.feasible,
                             .batch = dec.batch,
                             .time = dec.tpot,
                             .tokens_per_s_per_gpu = dec.tokens_per_s_per_gpu});
      }
    }
    for (ServingSplitSpec& s : found) arm.splits.push_back(std::move(s));
  }
  return out;
}

void add_plans_table(ServingRun& run, const std::vector<PlanRow>& plans) {
  run.table("plans",
            "Plans chosen by the plan searches of each searched split (prefill: lowest latency "
            "of one prompt; decode: most tokens/s per GPU under the TPOT target)",
            {{"model", ""},
             {"arm", ""},
             {"split", ""},
             {"pool", ""},
             {"plan", ""},
             {"gpus", ""},
             {"at_tokens", "tokens"},
             {"candidates", ""},
             {"evaluated", ""},
             {"feasible", ""},
             {"batch", ""},
             {"time", "ms"},
             {"tokens_per_s_per_gpu", "1/s"}});
  for (const PlanRow& p : plans)
    run.add_row("plans", {{"model", p.model},
                          {"arm", p.arm},
                          {"split", p.split},
                          {"pool", p.pool},
                          {"plan", p.plan},
                          {"gpus", p.gpus},
                          {"at_tokens", p.at},
                          {"candidates", p.candidates},
                          {"evaluated", p.evaluated},
                          {"feasible", p.feasible},
                          {"batch", p.batch},
                          {"time", 1e3 * p.time},
                          {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu}});
}

void evaluate(ServingRun& run) {
  std::vector<SearchedSpec> models;  // per model: the arms' stated and searched splits
  for (const std::string& m : models_of(run.spec)) models.push_back(with_searched_splits(run, m));
  // Part a: every model x arm x traffic x split x load.
  std::vector<Point> grid;
  for (std::size_t m = 0; m < models.size(); ++m) {
    const ServingStudySpec& spec = models[m].spec;
    for (std::size_t a = 0; a < spec.arms.size(); ++a)
      for (const ServingTrafficSpec& t : spec.traffics)
        for (std::size_t s = 0; s < spec.arms[a].splits.size(); ++s)
          for (double l : t.loads)
            grid.push_back({.model = m,
                            .arm = a,
                            .split = s,
                            .traffic = t.name,
                            .prompt = t.prompt,
                            .output = t.output,
                            .load = l});
  }
  // Part b: every model x arm x context x split x load, fixed prompt lengths.
  const std::size_t part_b = grid.size();
  for (std::size_t m = 0; m < models.size(); ++m) {
    const ServingStudySpec& spec = models[m].spec;
    for (std::size_t a = 0; a < spec.arms.size(); ++a)
      for (std::int64_t c : spec.contexts)
        for (std::size_t s = 0; s < spec.arms[a].splits.size(); ++s)
          for (double l : spec.context_loads)
            grid.push_back({.model = m,
                            .arm = a,
                            .split = s,
                            .traffic = "context",
                            .prompt = {.distribution = serve::LengthDistribution::fixed,
                                       .median = c,
                                       .min = c,
                                       .max = c,
                                       .sigma = 0},
                            .output = spec.context_output,
                            .load = l / static_cast<double>(c),
                            .token_load = l});
  }
  const std::uint64_t seed = run.ctx.seed();
  const std::vector<Outcome> out = run.map(grid, [&](const Point& p) {
    const SearchedSpec& m = models[p.model];
    return run_point(m.spec, m.model, p, run.presets, seed, run.ctx.cancel_flag());
  });
  const auto spec_of = [&](const Point& p) -> const ServingStudySpec& {
    return models[p.model].spec;
  };
  const auto model_of = [&](const Point& p) -> const std::string& { return models[p.model].model; };

  run.table("runs", "Every model x arm x traffic x pool split x offered load (run points only)",
            run_columns(true));
  for (std::size_t i = 0; i < part_b; ++i)
    if (out[i].skipped.empty())
      add_run_row(run, spec_of(grid[i]), model_of(grid[i]), "runs", true, grid[i], out[i]);

  // Best load of each (model, arm, traffic, split): the highest goodput per GPU; best split of
  // each (model, arm, traffic): the highest of those. Splits that do not set up are left out.
  run.table("splits",
            "Each pool split at its best offered load; `skipped`: why it does not run for the "
            "model (its figures are then 0)",
            {{"model", ""},
             {"arm", ""},
             {"traffic", ""},
             {"split", ""},
             {"prefill_plan", ""},
             {"decode_plan", ""},
             {"max_batch", ""},
             {"load_per_gpu", "1/s"},
             {"goodput_per_gpu", "1/s"},
             {"goodput_per_kw", "1/s"},
             {"requests_per_usd", ""},
             {"slo_attainment", ""},
             {"best", ""},
             {"skipped", ""}});
  // Point i is better than j: it meets the attainment floor and j does not, or both or
  // neither do and its goodput per GPU is higher (ties: the first stays).
  const double floor = run.spec.attainment_floor;
  const auto meets = [&](std::size_t i) { return out[i].sim.slo_attainment >= floor; };
  const auto better = [&](std::size_t i, std::size_t j) {
    if (meets(i) != meets(j)) return meets(i);
    return out[i].power.goodput_per_s_per_gpu > out[j].power.goodput_per_s_per_gpu;
  };
  using SplitKey = std::tuple<std::size_t, std::size_t, std::string, std::size_t>;
  using TrafficKey = std::tuple<std::size_t, std::size_t, std::string>;
  std::map<SplitKey, std::size_t> best_load, first_point;
  std::map<TrafficKey, std::size_t> best_split;
  for (std::size_t i = 0; i < part_b; ++i) {
    const Point& p = grid[i];
    const SplitKey key{p.model, p.arm, p.traffic, p.split};
    first_point.emplace(key, i);
    if (!out[i].skipped.empty()) continue;
    auto it = best_load.find(key);
    if (it == best_load.end() || better(i, it->second)) best_load[key] = i;
  }
  for (const auto& [key, i] : best_load) {
    const TrafficKey k{std::get<0>(key), std::get<1>(key), std::get<2>(key)};
    auto it = best_split.find(k);
    if (it == best_split.end() || better(i, it->second)) best_split[k] = i;
  }
  for (std::size_t m = 0; m < models.size(); ++m) {
    const ServingStudySpec& spec = models[m].spec;
    for (std::size_t a = 0; a < spec.arms.size(); ++a)
      for (const ServingTrafficSpec& t : spec.traffics) {
        LIGHTSIM_CHECK_AS(ConfigError, best_split.count({m, a, t.name}) == 1,
                          "model '{}', arms '{}': no split sets up for this model (the "
                          "first: {})",
                          models[m].model, spec.arms[a].name,
                          out[first_point.at({m, a, t.name, 0})].skipped);
        for (std::size_t s = 0; s < spec.arms[a].splits.size(); ++s) {
          const auto found = best_load.find({m, a, t.name, s});
          const std::size_t i =
              found != best_load.end() ? found->second : first_point.at({m, a, t.name, s});
          const bool ran = found != best_load.end();
          const Outcome& o = out[i];
          const ServingSplitSpec& split = spec.arms[a].splits[s];
          run.add_row("splits",
                      {{"model", models[m].model},
                       {"arm", spec.arms[a].name},
                       {"traffic", t.name},
                       {"split", split.name},
                       {"prefill_plan", split.prefill_plan},
                       {"decode_plan", split.decode_plan},
                       {"max_batch", split.max_batch},
                       {"load_per_gpu", ran ? grid[i].load : 0.0},
                       {"goodput_per_gpu", o.power.goodput_per_s_per_gpu},
                       {"goodput_per_kw", o.power.goodput_per_s_per_kw},
                       {"requests_per_usd", o.power.goodput_per_usd},
                       {"slo_attainment", o.sim.slo_attainment},
                       {"best", std::string(best_split.at({m, a, t.name}) == i ? "yes" : "")},
                       {"skipped", o.skipped}});
        }
      }
  }
  std::vector<PlanRow> plans;
  for (const SearchedSpec& m : models) plans.insert(plans.end(), m.plans.begin(), m.plans.end());
  add_plans_table(run, plans);

  run.table("latency_cdf", "TTFT and TPOT quantiles at each model's and arm's best split and load",
            {{"model", ""},
             {"arm", ""},
             {"traffic", ""},
             {"metric", ""},
             {"quantile", ""},
             {"latency", "s"}});
  for (std::size_t m = 0; m < models.size(); ++m)
    for (std::size_t a = 0; a < models[m].spec.arms.size(); ++a)
      for (const ServingTrafficSpec& t : models[m].spec.traffics) {
        const Outcome& o = out[best_split.at({m, a, t.name})];
        for (const auto& [metric, values] :
             {std::pair<std::string, const std::vector<double>*>{"ttft", &o.ttft},
              std::pair<std::string, const std::vector<double>*>{"tpot", &o.tpot}})
          for (std::int64_t k = 0; k <= run.spec.cdf_points; ++k) {
            const double q = static_cast<double>(k) / static_cast<double>(run.spec.cdf_points);
            run.add_row("latency_cdf", {{"model", models[m].model},
                                        {"arm", models[m].spec.arms[a].name},
                                        {"traffic", t.name},
                                        {"metric", metric},
                                        {"quantile", q},
                                        {"latency", quantile(*values, q)}});
          }
      }

  // Part b: each model's and arm's best split at each (context, load); the ratio to the first
  // arm of the same model.
  run.table("context", "Fixed prompt lengths: every model x arm x split x load (run points only)",
            run_columns(false));
  std::map<std::tuple<std::size_t, std::size_t, std::int64_t, double>, double> best;
  for (std::size_t i = part_b; i < grid.size(); ++i) {
    if (!out[i].skipped.empty()) continue;
    add_run_row(run, spec_of(grid[i]), model_of(grid[i]), "context", false, grid[i], out[i]);
    double& b = best[{grid[i].model, grid[i].arm, grid[i].prompt.median, grid[i].token_load}];
    b = std::max(b, out[i].power.goodput_per_s_per_gpu);
  }
  run.table("context_ratio",
            "Best-split goodput per GPU of each arm over the first arm's, per model",
            {{"model", ""},
             {"arm", ""},
             {"context", "tokens"},
             {"prompt_tokens_per_gpu", "1/s"},
             {"load_per_gpu", "1/s"},
             {"goodput_per_gpu", "1/s"},
             {"baseline_goodput_per_gpu", "1/s"},
             {"goodput_ratio", "x"}});
  for (std::size_t m = 0; m < models.size(); ++m)
    for (std::size_t a = 1; a < run.spec.arms.size(); ++a)
      for (std::int64_t c : run.spec.contexts)
        for (double l : run.spec.context_loads) {
          const auto ours_it = best.find({m, a, c, l}), base_it = best.find({m, 0, c, l});
          if (ours_it == best.end() || base_it == best.end()) continue;  // no split ran
          const double ours = ours_it->second, base = base_it->second;
          run.add_row("context_ratio", {{"model", models[m].model},
                                        {"arm", run.spec.arms[a].name},
                                        {"context", c},
                                        {"prompt_tokens_per_gpu", l},
                                        {"load_per_gpu", l / static_cast<double>(c)},
                                        {"goodput_per_gpu", ours},
                                        {"baseline_goodput_per_gpu", base},
                                        {"goodput_ratio", base > 0 ? ours / base : 0.0}});
        }
  add_charts(run);
}

}  // namespace

void ServingSplitSpec::describe(config::Schema<ServingSplitSpec>& s) {
  s.help("One disaggregated pool split: prefill and decode instances, sizes and plans.");
  s.field("name", &ServingSplitSpec::name, "label in the tables").required();
  s.field("prefill_instances", &ServingSplitSpec::prefill_instances, "prefill instances")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("prefill_gpus_per_instance", &ServingSplitSpec::prefill_gpus_per_instance,
          "GPUs of one prefill instance")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("prefill_plan", &ServingSplitSpec::prefill_plan,
          "prefill plan of one instance (prefill/plan.h)");
  s.field("decode_instances", &ServingSplitSpec::decode_instances, "decode instances")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("decode_gpus_per_instance", &ServingSplitSpec::decode_gpus_per_instance,
          "GPUs of one decode instance")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("decode_plan", &ServingSplitSpec::decode_plan,
          "decode plan of one instance (decode/plan.h; \"\": the one-GPU decode step)");
  s.field("max_batch", &ServingSplitSpec::max_batch,
          "requests resident per instance (the scenario's scheduler.max_batch)")
      .range(std::int64_t{1}, std::int64_t{1} << 24);
}

void ServingArmSpec::describe(config::Schema<ServingArmSpec>& s) {
  s.help("One fabric under test: fabric, KV tier, cost model and the pool splits tried.");
  s.field("name", &ServingArmSpec::name, "label in the tables").required();
  s.field("fabric", &ServingArmSpec::fabric, "configs/fabrics/ name or file of both pools")
      .required();
  s.field("kv_tier", &ServingArmSpec::kv_tier,
          "tier of the fabric the KV crosses from prefill to decode (0 = innermost)")
      .range(std::int64_t{0}, std::int64_t{16});
  s.field("cost_model", &ServingArmSpec::cost_model, "configs/cost_models/ name or file")
      .required();
  s.field("splits", &ServingArmSpec::splits, "pool splits tried (stated)");
  s.field("split_search", &ServingArmSpec::split_search,
          "pool splits searched over a GPU budget (decode pool sizes; plans from the sizes)");
  s.rule([](const ServingArmSpec& a) -> std::optional<std::string> {
    if (a.splits.empty() && a.split_search.decode_gpus.empty())
      return "give at least one split: 'splits' or 'split_search.decode_gpus'";
    std::set<std::string> names;
    for (const ServingSplitSpec& stated : a.splits) names.insert(stated.name);
    for (const ServingSplitSpec& searched : searched_splits(a.split_search))
      if (!names.insert(searched.name).second)
        return std::string("split '").append(searched.name).append("' is both stated and searched");
    return std::nullopt;
  });
}

void ServingSplitSearchSpec::describe(config::Schema<ServingSplitSearchSpec>& s) {
  s.help(
      "Pool splits of a GPU budget: for each decode pool size n, one decode instance of n GPUs "
      "(plan DPA=n,EP=n, max_batch batch_per_decode_gpu x n) and the remaining GPUs as prefill "
      "instances of prefill_plan.");
  s.field("total_gpus", &ServingSplitSearchSpec::total_gpus, "GPUs of both pools together")
      .range(std::int64_t{0}, std::int64_t{1} << 20);
  s.field("prefill_gpus_per_instance", &ServingSplitSearchSpec::prefill_gpus_per_instance,
          "GPUs per prefill instance")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("prefill_plan", &ServingSplitSearchSpec::prefill_plan,
          "prefill plan of every prefill instance (prefill/plan.h)");
  s.field("decode_gpus", &ServingSplitSearchSpec::decode_gpus,
          "decode pool sizes tried (GPUs of the one decode instance; empty: no search)");
  s.field("batch_per_decode_gpu", &ServingSplitSearchSpec::batch_per_decode_gpu,
          "requests resident per decode GPU (the decode instance's max_batch / n; ignored with "
          "search_plans)")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("search_plans", &ServingSplitSearchSpec::search_plans,
          "choose each pool's plan by the plan searches (prefill: lowest latency of one "
          "plan_prompt prompt; decode: most tokens/s per GPU at plan_context under the "
          "scenario's TPOT target, its batch the max_batch) instead of prefill_plan and "
          "DPA=n,EP=n");
  s.field("plan_prompt", &ServingSplitSearchSpec::plan_prompt,
          "search_plans: prompt tokens the prefill plan is chosen for")
      .range(std::int64_t{2}, std::int64_t{1} << 22);
  s.field("plan_context", &ServingSplitSearchSpec::plan_context,
          "search_plans: keys per sequence the decode plan is chosen at")
      .range(std::int64_t{1}, std::int64_t{1} << 22);
  s.rule([](const ServingSplitSearchSpec& x) -> std::optional<std::string> {
    for (const std::int64_t n : x.decode_gpus) {
      const std::int64_t rest = x.total_gpus - n;
      if (n < 1 || rest < x.prefill_gpus_per_instance || rest % x.prefill_gpus_per_instance != 0)
        return fmt::format(
            "decode_gpus: {} leaves {} of total_gpus {} for prefill, not a positive multiple of "
            "prefill_gpus_per_instance {}",
            n, rest, x.total_gpus, x.prefill_gpus_per_instance);
    }
    return std::nullopt;
  });
}

std::vector<ServingSplitSpec> searched_splits(const ServingSplitSearchSpec& x) {
  std::vector<ServingSplitSpec> out;
  for (const std::int64_t n : x.decode_gpus) {
    const std::int64_t prefill = x.total_gpus - n;
    out.push_back({.name = fmt::format("P{}+D{}{}", prefill, n, x.search_plans ? " searched" : ""),
                   .prefill_instances = prefill / x.prefill_gpus_per_instance,
                   .prefill_gpus_per_instance = x.prefill_gpus_per_instance,
                   .prefill_plan = x.prefill_plan,
                   .decode_instances = 1,
                   .decode_gpus_per_instance = n,
                   .decode_plan = fmt::format("DPA={},EP={}", n, n),
                   .max_batch = x.batch_per_decode_gpu * n});
  }
  return out;
}

void ServingTrafficSpec::describe(config::Schema<ServingTrafficSpec>& s) {
  s.help("One traffic shape: prompt and output lengths and the offered loads per GPU.");
  s.field("name", &ServingTrafficSpec::name, "label in the tables").required();
  s.field("prompt", &ServingTrafficSpec::prompt, "prompt tokens per request").required();
  s.field("output", &ServingTrafficSpec::output, "output tokens per request").required();
  s.field("loads", &ServingTrafficSpec::loads, "offered requests/s per GPU (1/s)").required();
  s.rule([](const ServingTrafficSpec& t) -> std::optional<std::string> {
    if (t.loads.empty()) return "'loads' needs at least one load";
    for (double l : t.loads)
      if (!(l > 0 && l < 1e6)) return "'loads' must be in (0, 1e6) requests/s per GPU";
    return std::nullopt;
  });
}

void ServingStudySpec::describe(config::Schema<ServingStudySpec>& s) {
  s.help(
      "Copper racks vs the photonic pod served end to end: goodput per GPU, kW and dollar, "
      "the best pool split, and the goodput ratio against context and load (docs/studies.md "
      "\"serving\").");
  s.field("scenario", &ServingStudySpec::scenario,
          "base serving scenario (configs/serve/): model, formats, SLOs, scheduler, arrival "
          "process and request count")
      .required();
  s.field("models", &ServingStudySpec::models,
          "models served, each on every arm, traffic and split (configs/models/ names or "
          "config.json paths; empty: the scenario's model)");
  s.field("arms", &ServingStudySpec::arms, "fabrics under test; the first is the baseline")
      .required();
  s.field("traffics", &ServingStudySpec::traffics, "traffic shapes of part a").required();
  s.field("contexts", &ServingStudySpec::contexts, "part b: fixed prompt lengths (tokens)");
  s.field("context_loads", &ServingStudySpec::context_loads,
          "part b: offered prompt tokens/s per GPU (requests/s = this / context)");
  s.field("context_output", &ServingStudySpec::context_output, "part b: output tokens");
  s.field("requests", &ServingStudySpec::requests,
          "requests per run (0: the base scenario's arrivals.requests)")
      .range(std::int64_t{0}, std::int64_t{1} << 24);
  s.field("cdf_points", &ServingStudySpec::cdf_points, "quantile steps of the latency CDFs")
      .range(std::int64_t{2}, std::int64_t{1000});
  s.field("attainment_floor", &ServingStudySpec::attainment_floor,
          "best load and split: points with SLO attainment >= this win over points below it "
          "(0: the highest goodput per GPU wins)")
      .range(0.0, 1.0);
  s.rule([](const ServingStudySpec& st) -> std::optional<std::string> {
    if (st.arms.size() < 2) return "'arms' needs at least two fabrics to compare";
    if (st.traffics.empty()) return "'traffics' needs at least one traffic";
    for (std::size_t i = 0; i < st.models.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (st.models[i] == st.models[j])
          return "models[" + std::to_string(i) + "]: '" + st.models[i] + "' is listed twice";
    for (std::size_t i = 0; i < st.arms.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (st.arms[i].name == st.arms[j].name)
          return "arms[" + std::to_string(i) + "]: name '" + st.arms[i].name + "' is taken";
    for (std::size_t i = 0; i < st.traffics.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (st.traffics[i].name == st.traffics[j].name)
          return "traffics[" + std::to_string(i) + "]: name '" + st.traffics[i].name + "' is taken";
    for (double l : st.context_loads)
      if (!(l > 0 && l < 1e9)) return "'context_loads' must be in (0, 1e9) prompt tokens/s per GPU";
    return std::nullopt;
  });
}

void add_serving_study(Registry& registry) {
  add_study(registry,
            Definition<ServingStudySpec>{
                .name = "serving",
                .help = "copper NVL72 racks vs the photonic pod served end to end (issue 21)",
                .title = "Serving on copper racks vs the photonic pod: goodput, power and cost",
                .spec_section = "",
                .evaluate = evaluate});
}

}  // namespace lightsim::studies

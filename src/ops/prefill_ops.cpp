// MoE prefill (docs/prefill.md): prefill_run (one plan, or the best plan per fabric and GPU
// count beside the seed's figures), prefill_plan (the plan search: top plans and the Pareto
// front), prefill_crossover (where attention FLOPs overtake the feed-forward layers),
// prefill_mixed (static partitions vs dynamic DP/CP switching) and prefill_study (the seed's
// prefill study). Request options that change the scenario (gpus) are assignments applied
// before it is read, never edits of a read spec.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <numeric>
#include <ostream>

#include "lightsim/model/params.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/prefill/questions.h"
#include "lightsim/prefill/report.h"
#include "lightsim/prefill/search.h"
#include "lightsim/prefill/setup.h"
#include "lightsim/prefill/study.h"

namespace lightsim::ops {

struct PrefillRunRequest {
  static constexpr std::string_view kind = "prefill_run_request";
  std::string scenario, fabric, plan, model{};
  std::optional<std::int64_t> gpus;
  static void describe(config::Schema<PrefillRunRequest>& s) {
    s.help("Request of prefill run: a scenario, optionally one fabric, GPU count and plan.");
    s.field("scenario", &PrefillRunRequest::scenario,
            "scenario name (configs/scenarios/) or YAML file")
        .required();
    s.field("model", &PrefillRunRequest::model,
            "model instead of the scenario's: configs/models/NAME or a config.json path");
    s.field("fabric", &PrefillRunRequest::fabric, "one fabric (default: the scenario's fabrics)");
    s.field("gpus", &PrefillRunRequest::gpus,
            "GPU count (default: the GPUs the plan names, else the scenario's counts)")
        .range(std::int64_t{1}, std::int64_t{1} << 20);
    s.field("plan", &PrefillRunRequest::plan,
            "fixed plan, e.g. TP=1,EP=64,CP=1 (keys TP CP EP PP DP CPA MB)");
  }
};

struct PrefillPlanRequest {
  static constexpr std::string_view kind = "prefill_plan_request";
  std::string scenario, fabric, model{};
  std::vector<std::int64_t> gpus;
  std::int64_t top = 5;
  static void describe(config::Schema<PrefillPlanRequest>& s) {
    s.help("Request of prefill plan: the plan search of a scenario on one fabric.");
    s.field("scenario", &PrefillPlanRequest::scenario, "scenario name or YAML file").required();
    s.field("model", &PrefillPlanRequest::model,
            "model instead of the scenario's: configs/models/NAME or a config.json path");
    s.field("fabric", &PrefillPlanRequest::fabric, "fabric (default: the scenario's first)");
    s.field("gpus", &PrefillPlanRequest::gpus, "GPU counts (default: the scenario's)")
        .range(std::int64_t{1}, std::int64_t{1} << 20);
    s.field("top", &PrefillPlanRequest::top, "plans listed per GPU count")
        .range(std::int64_t{1}, std::int64_t{1} << 10);
  }
};

struct CrossoverRequest {
  static constexpr std::string_view kind = "prefill_crossover_request";
  std::vector<std::string> models{};
  static void describe(config::Schema<CrossoverRequest>& s) {
    s.help("Request of prefill crossover: models.");
    s.field("models", &CrossoverRequest::models,
            "models (configs/models/; default: the seed's study model)");
  }
};

struct MixedRequest {
  static constexpr std::string_view kind = "prefill_mixed_request";
  std::vector<std::string> scenarios{};
  std::string fabric{};
  std::int64_t gpus = 0;
  static void describe(config::Schema<MixedRequest>& s) {
    s.help("Request of prefill mixed: a short-request and a long-request scenario.");
    s.field("scenarios", &MixedRequest::scenarios, "short-request and long-request scenarios")
        .required();
    s.field("fabric", &MixedRequest::fabric, "fabric (default: the short scenario's first)");
    s.field("gpus", &MixedRequest::gpus, "GPU count")
        .range(std::int64_t{1}, std::int64_t{1} << 20)
        .required();
    s.rule([](const MixedRequest& r) -> std::optional<std::string> {
      if (r.scenarios.size() != 2)
        return fmt::format("scenarios: expected 2 (short, long), got {}", r.scenarios.size());
      return std::nullopt;
    });
  }
};

struct PrefillStudyRequest {
  static constexpr std::string_view kind = "prefill_study_request";
  std::vector<std::string> scenarios{};
  std::string fabric{};
  static void describe(config::Schema<PrefillStudyRequest>& s) {
    s.help("Request of prefill study: scenarios, optionally another photonic fabric.");
    s.field("scenarios", &PrefillStudyRequest::scenarios,
            "scenarios (default: seed_8k seed_128k seed_1m)");
    s.field("fabric", &PrefillStudyRequest::fabric,
            "replace the photonic fabric (keeps the baseline)");
  }
};

namespace {

std::string ms(double s) {
  return fmt::format("{:.1f}", s * 1e3);
}

void print_result(const prefill::Result& r, const fabric::Topology& t, std::ostream& out) {
  if (!r.feasible) {
    fmt::print(out, "  {}: infeasible: {}\n", prefill::format_plan(r.plan), r.reason);
    return;
  }
  fmt::print(
      out,
      "  plan {} on {} GPUs: latency {} ms, TTFT {} ms, {:.0f} tokens/s/GPU, MFU {:.1f}%\n"
      "  {} request(s) per attention group per wave, {} wave(s); expert skew {:.2f}; HBM "
      "{:.1f} of {:.1f} GB (weights {:.1f}, KV {:.1f}, activations {:.1f}, buffers {:.1f})\n",
      prefill::format_plan(r.plan), r.gpus, ms(r.latency_s), ms(r.ttft_s), r.tokens_per_s_per_gpu,
      100 * r.mfu, r.sequences_per_group, r.waves, r.expert_skew, r.memory.total() / 1e9,
      r.memory.capacity / 1e9, r.memory.weights / 1e9, r.memory.kv_cache / 1e9,
      r.memory.activations / 1e9, r.memory.comm_buffers / 1e9);
  fmt::print(out, "  compute (ms):");
  for (std::size_t c = 0; c < prefill::kComputeClasses; ++c)
    if (r.compute[c] > 0)
      fmt::print(out, " {} {}", prefill::compute_class_name(static_cast<prefill::ComputeClass>(c)),
                 ms(r.compute[c]));
  fmt::print(out, "\n  communication (ms, exposed/total, tier):");
  for (std::size_t c = 0; c < prefill::kCommKinds; ++c)
    if (r.comm[c] > 0)
      fmt::print(out, " {} {}/{} {}", prefill::comm_kind_name(static_cast<prefill::CommKind>(c)),
                 ms(r.exposed[c]), ms(r.comm[c]),
                 r.tier[c] >= 0 ? t.tiers[static_cast<std::size_t>(r.tier[c])].name : "");
  fmt::print(out, "\n  pipeline fill {} ms\n", ms(r.bubble_fraction * r.latency_s));
}

Json study_json(const prefill::ScenarioStudy& s) {
  Json points = Json::array(), fixed = Json::array();
  for (const auto& p : s.points)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      Json j = prefill::search_json(p.per_fabric[f], s.topologies[f]);
      j["fabric"] = s.topologies[f].name;
      j["speedup"] = p.speedup[f];
      points.push_back(j);
    }
  for (const auto& p : s.fixed)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      Json j = prefill::result_json(p.per_fabric[f], s.topologies[f]);
      j["fabric"] = s.topologies[f].name;
      j["speedup"] = p.speedup[f];
      fixed.push_back(j);
    }
  return {{"scenario", s.scenario.name},
          {"seed_key", s.scenario.seed_key},
          {"points", points},
          {"fixed_plans", fixed}};
}

void print_study(const prefill::ScenarioStudy& s, std::ostream& out) {
  fmt::print(out, "{}: {} x {} tokens, model {}\n", s.scenario.name, s.scenario.requests,
             s.scenario.sequence_length, s.scenario.model);
  fmt::print(out, "{:>6} {:<20} {:<44} {:>11} {:>10} {:>10} {:>6} {:>9} {:>8}\n", "GPUs", "fabric",
             "best plan", "latency ms", "TTFT ms", "tok/s/GPU", "MFU%", "exposed%", "speedup");
  for (const auto& p : s.points)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      const prefill::Result& r = p.per_fabric[f].best;
      if (!r.feasible) {
        fmt::print(out, "{:>6} {:<20} infeasible: {}\n", p.gpus, s.topologies[f].name, r.reason);
        continue;
      }
      fmt::print(out, "{:>6} {:<20} {:<44} {:>11} {:>10} {:>10.0f} {:>6.1f} {:>9.1f} {:>7.2f}x\n",
                 p.gpus, s.topologies[f].name, prefill::format_plan(r.plan), ms(r.latency_s),
                 ms(r.ttft_s), r.tokens_per_s_per_gpu, 100 * r.mfu,
                 100 * r.exposed_total() / r.latency_s, p.speedup[f]);
    }
  if (!s.fixed.empty()) fmt::print(out, "fixed communication-limited plans:\n");
  for (const auto& p : s.fixed)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      const prefill::Result& r = p.per_fabric[f];
      if (!r.feasible) {
        fmt::print(out, "{:>6} {:<20} {:<44} infeasible: {}\n", p.gpus, s.topologies[f].name,
                   p.plan, r.reason);
        continue;
      }
      fmt::print(out, "{:>6} {:<20} {:<44} {:>11} {:>10} {:>10.0f} {:>6.1f} {:>9.1f} {:>7.2f}x\n",
                 p.gpus, s.topologies[f].name, p.plan, ms(r.latency_s), ms(r.ttft_s),
                 r.tokens_per_s_per_gpu, 100 * r.mfu, 100 * r.exposed_total() / r.latency_s,
                 p.speedup[f]);
    }
}

Json comparison_json(const std::vector<prefill::FigureComparison>& cmp) {
  Json out = Json::array();
  for (const auto& c : cmp) {
    if (!c.available) continue;
    out.push_back({{"figure", c.seed.figure},
                   {"scenario", c.seed.scenario},
                   {"fabric", c.fabric},
                   {"seed_low", c.seed.low},
                   {"seed_high", c.seed.high},
                   {"seed_text", c.seed.text},
                   {"ours_low", c.ours_low},
                   {"ours_high", c.ours_high},
                   {"how", c.how},
                   {"deviation", c.deviation()}});
  }
  return out;
}

void print_comparison(const std::vector<prefill::FigureComparison>& cmp, std::ostream& out) {
  fmt::print(out, "\nbeside the seed's figures (ours | seed, deviation of the high end):\n");
  auto fmt_range = [](double lo, double hi) {
    return lo == hi ? fmt::format("{:.3g}", hi) : fmt::format("{:.3g}-{:.3g}", lo, hi);
  };
  for (const auto& c : cmp) {
    if (!c.available) continue;
    fmt::print(out, "  {:<5} {:<30} {:<18} ours {:>11} | seed {:>9} ({:+.0f}%)  [{}]\n",
               c.seed.scenario, c.seed.figure, c.fabric, fmt_range(c.ours_low, c.ours_high),
               fmt_range(c.seed.low, c.seed.high), 100 * c.deviation(), c.how);
  }
}

// `load` with assignments that set scenario fields from request options, after --set.
config::LoadOptions with(config::LoadOptions load, std::vector<std::string> assignments) {
  for (auto& a : assignments) load.assignments.push_back(std::move(a));
  return load;
}

// `fabric`, or the first fabric `scenario` lists.
std::string first_fabric(const std::string& scenario, const std::string& fabric,
                         const config::LoadOptions& load) {
  return fabric.empty() ? prefill::load_scenario(scenario, load).fabrics.front().name() : fabric;
}

// --- prefill run ------------------------------------------------------------------------

struct RunResult {
  std::string scenario{};
  bool fixed_plan = false;
  std::vector<fabric::Topology> topologies{};
  std::vector<prefill::Result> plan_results{};  // fixed_plan: one per fabric
  std::optional<prefill::ScenarioStudy> study{};
  std::vector<prefill::FigureComparison> comparison{};
};

RunResult evaluate_run(const PrefillRunRequest& request, Env& env) {
  PrefillRunRequest q = request;
  // A plan without gpus runs on the GPUs it names (DP = 1 unless given).
  if (!q.gpus && !q.plan.empty()) q.gpus = prefill::parse_plan(q.plan).gpus();
  std::vector<std::string> set;
  if (q.gpus) set.push_back(fmt::format("gpu_counts=[{}]", *q.gpus));
  if (q.gpus && q.plan.empty()) set.push_back("fixed_plans=[]");
  if (!q.model.empty()) set.push_back("model=" + q.model);
  prefill::PrefillSetup s = prefill::load_setup(q.scenario, with(env.load, set), q.fabric);
  const auto seed = prefill::load_study_seed(env.load.roots_only());
  std::optional<prefill::Plan> plan;
  const std::int64_t n = s.scenario.gpu_counts.front();
  if (!q.plan.empty()) {
    plan = prefill::parse_plan(q.plan, n);
    LIGHTSIM_CHECK_AS(UsageError, plan->gpus() == n, "plan {} uses {} GPUs, gpus says {}", q.plan,
                      plan->gpus(), n);
  }
  env.inputs_read();
  RunResult r{
      .scenario = s.scenario.name, .fixed_plan = plan.has_value(), .topologies = s.topologies};
  if (r.fixed_plan) {
    for (const auto& t : s.topologies)
      r.plan_results.push_back(prefill::Evaluator(s.scenario, s.model, t, n).evaluate(*plan));
    return r;
  }
  r.study = prefill::run_study(s.scenario, s.model, s.topologies);
  r.comparison = prefill::compare_with_seed({*r.study}, seed);
  return r;
}

Json run_result_json(const RunResult& r) {
  if (r.fixed_plan) {
    Json all = Json::array();
    for (std::size_t i = 0; i < r.topologies.size(); ++i) {
      Json j = prefill::result_json(r.plan_results[i], r.topologies[i]);
      j["fabric"] = r.topologies[i].name;
      all.push_back(j);
    }
    return all.size() == 1 ? all[0] : all;
  }
  Json j = study_json(*r.study);
  j["seed_comparison"] = comparison_json(r.comparison);
  return j;
}

void print_run(const RunResult& r, std::ostream& out) {
  if (r.fixed_plan) {
    for (std::size_t i = 0; i < r.topologies.size(); ++i) {
      fmt::print(out, "{} on {}:\n", r.scenario, r.topologies[i].name);
      print_result(r.plan_results[i], r.topologies[i], out);
    }
    return;
  }
  print_study(*r.study, out);
  if (r.topologies.size() > 1) print_comparison(r.comparison, out);
}

// --- prefill plan -----------------------------------------------------------------------

struct PlanSearch {
  std::int64_t gpus = 0;
  prefill::SearchResult search{};  // with its top plans
};

struct PlanResult {
  std::string scenario{};
  fabric::Topology topology{};
  std::vector<PlanSearch> searches{};
  std::vector<std::size_t> front{};  // indices into searches
};

PlanResult evaluate_plan(const PrefillPlanRequest& q, Env& env) {
  std::vector<std::string> set;
  if (!q.gpus.empty()) set.push_back(fmt::format("gpu_counts=[{}]", fmt::join(q.gpus, ",")));
  if (!q.model.empty()) set.push_back("model=" + q.model);
  const config::LoadOptions load = with(env.load, set);
  prefill::PrefillSetup s =
      prefill::load_setup(q.scenario, load, first_fabric(q.scenario, q.fabric, load));
  env.inputs_read();
  PlanResult r{.scenario = s.scenario.name, .topology = s.topologies.front()};
  const prefill::Evaluator ev(s.scenario, s.model, r.topology,
                              std::span<const std::int64_t>(s.scenario.gpu_counts));
  std::vector<prefill::SearchResult> results;
  for (std::int64_t n : s.scenario.gpu_counts) {
    env.ctx.throw_if_cancelled("prefill plan");
    results.push_back(
        prefill::search(ev, n, static_cast<std::size_t>(q.top), env.ctx.cancel_flag()));
    r.searches.push_back({n, results.back()});
  }
  r.front = prefill::pareto_front(results);
  return r;
}

Json plan_json(const PlanResult& r) {
  Json counts = Json::array();
  for (const PlanSearch& p : r.searches) {
    Json j = prefill::search_json(p.search, r.topology);
    Json top = Json::array();
    for (const auto& t : p.search.top) top.push_back(prefill::result_json(t, r.topology));
    j["top"] = top;
    counts.push_back(j);
  }
  Json front = Json::array();
  for (std::size_t i : r.front)
    front.push_back({{"gpus", r.searches[i].search.gpus},
                     {"latency_s", r.searches[i].search.best.latency_s},
                     {"plan", prefill::format_plan(r.searches[i].search.best.plan)}});
  return {{"scenario", r.scenario},
          {"fabric", r.topology.name},
          {"searches", counts},
          {"pareto_front", front}};
}

void print_plan(const PlanResult& r, std::ostream& out) {
  for (const PlanSearch& p : r.searches) {
    const auto& sr = p.search;
    fmt::print(out, "{} GPUs on {}: {} plans evaluated ({} feasible) in {:.3f} s\n", p.gpus,
               r.topology.name, sr.evaluated, sr.feasible, sr.seconds);
    for (const auto& t : sr.top)
      fmt::print(out,
                 "  {:<44} latency {:>9} ms  TTFT {:>9} ms  {:>7.0f} tok/s/GPU  exposed comm "
                 "{:.1f}%\n",
                 prefill::format_plan(t.plan), ms(t.latency_s), ms(t.ttft_s),
                 t.tokens_per_s_per_gpu, 100 * t.exposed_total() / t.latency_s);
    if (sr.top.empty()) fmt::print(out, "  no feasible plan: {}\n", sr.best.reason);
  }
  fmt::print(out, "Pareto front (latency vs GPUs):");
  for (std::size_t i : r.front)
    fmt::print(out, " {} GPUs {} ms;", r.searches[i].search.gpus,
               ms(r.searches[i].search.best.latency_s));
  fmt::print(out, "\n");
}

// --- prefill crossover ------------------------------------------------------------------

Json evaluate_crossover(const CrossoverRequest& q, Env& env) {
  std::vector<std::string> list = q.models;
  if (list.empty()) list = {"seed_r1_840b_a42b"};
  const model::DTypePolicy dtypes;  // FLOPs do not depend on the number formats
  model::DTypePolicy fp8_kv;
  fp8_kv.kv_cache = model::DType::fp8;
  Json out = Json::array();
  std::vector<model::Transformer> models;
  for (const auto& name : list) models.push_back(prefill::load_model(name, env.load));
  env.inputs_read();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string& name = list[i];
    const model::Transformer& m = models[i];
    const std::int64_t s = prefill::attention_crossover(m, dtypes);
    const double kv = model::kv_bytes_per_token(m, fp8_kv) * static_cast<double>(1 << 20);
    out.push_back({{"model", name},
                   {"crossover_tokens", s},
                   {"kv_cache_1m_tokens_fp8_B", kv},
                   {"kv_cache_64x1m_tokens_fp8_B", 64 * kv}});
  }
  return out;
}

void print_crossover(const Json& j, std::ostream& out) {
  for (const Json& m : j) {
    const auto s = m["crossover_tokens"].get<std::int64_t>();
    const double kv = m["kv_cache_1m_tokens_fp8_B"].get<double>();
    fmt::print(out,
               "{}: attention FLOPs exceed the feed-forward layers' from {} tokens{}; FP8 KV "
               "cache of one 1M-token (2^20) sequence {:.1f} GB, of 64 {:.1f} GB\n",
               m["model"].get<std::string>(), s, s < 0 ? " (never below 2^26)" : "", kv / 1e9,
               64 * kv / 1e9);
  }
}

// --- prefill mixed ----------------------------------------------------------------------

struct MixedResult {
  std::string short_name, long_name, fabric{};
  std::int64_t gpus = 0;
  prefill::MixedResult m{};
};

MixedResult evaluate_mixed(const MixedRequest& q, Env& env) {
  const prefill::PrefillSetup a = prefill::load_setup(
      q.scenarios[0], env.load, first_fabric(q.scenarios[0], q.fabric, env.load));
  // The long requests run on the short scenario's fabric: only their scenario and model.
  const prefill::ScenarioSpec b = prefill::load_scenario(q.scenarios[1], env.load);
  const model::Transformer long_model = prefill::load_model(b.model, env.load.roots_only());
  env.inputs_read();
  const fabric::Topology& t = a.topologies.front();
  const prefill::Evaluator ea(a.scenario, a.model, t, q.gpus);
  const prefill::Evaluator eb(b, long_model, t, q.gpus);
  return {a.scenario.name, b.name, t.name, q.gpus,
          prefill::static_vs_dynamic(ea, eb, q.gpus, prefill::partition_step(q.gpus))};
}

Json mixed_json(const MixedResult& r) {
  const prefill::MixedResult& m = r.m;
  return {{"fabric", r.fabric},
          {"gpus", r.gpus},
          {"feasible", m.feasible},
          {"static_short_gpus", m.static_short_gpus},
          {"static_long_gpus", m.static_long_gpus},
          {"static_makespan_s", m.static_makespan_s},
          {"static_long_ttft_s", m.static_long_ttft_s},
          {"dynamic_makespan_s", m.dynamic_makespan_s},
          {"dynamic_long_ttft_s", m.dynamic_long_ttft_s},
          {"searches", m.searches}};
}

void print_mixed(const MixedResult& r, std::ostream& out) {
  const prefill::MixedResult& m = r.m;
  if (!m.feasible) {
    fmt::print(out, "{} + {} on {} GPUs of {}: infeasible: {}\n", r.short_name, r.long_name, r.gpus,
               r.fabric, m.reason);
    return;
  }
  fmt::print(out,
             "{} + {} on {} GPUs of {}:\n  static: {} GPUs short, {} GPUs long, makespan {} ms, "
             "long TTFT {} ms\n  dynamic DP/CP switching: makespan {} ms, long TTFT {} ms ({} "
             "searches)\n",
             r.short_name, r.long_name, r.gpus, r.fabric, m.static_short_gpus, m.static_long_gpus,
             ms(m.static_makespan_s), ms(m.static_long_ttft_s), ms(m.dynamic_makespan_s),
             ms(m.dynamic_long_ttft_s), m.searches);
}

// --- prefill study ----------------------------------------------------------------------

struct StudyResult {
  std::vector<prefill::ScenarioStudy> studies{};
  std::vector<prefill::FigureComparison> comparison{};
};

StudyResult evaluate_study(const PrefillStudyRequest& q, Env& env) {
  std::vector<std::string> list = q.scenarios;
  if (list.empty()) list = {"seed_8k", "seed_128k", "seed_1m"};
  std::vector<prefill::PrefillSetup> setups;
  for (const auto& name : list) {
    std::vector<std::string> set;
    if (!q.fabric.empty()) {
      // The baseline (first) fabric stays; the photonic one is replaced.
      const prefill::ScenarioSpec s = prefill::load_scenario(name, env.load);
      set.push_back(fmt::format("fabrics=[{}, {}]", s.fabrics.front().name(), q.fabric));
    }
    setups.push_back(prefill::load_setup(name, with(env.load, set)));
  }
  const auto seed = prefill::load_study_seed(env.load.roots_only());
  env.inputs_read();
  StudyResult r;
  for (const prefill::PrefillSetup& s : setups) {
    env.ctx.throw_if_cancelled("prefill study");
    r.studies.push_back(prefill::run_study(s.scenario, s.model, s.topologies));
  }
  r.comparison = prefill::compare_with_seed(r.studies, seed);
  return r;
}

Json study_result_json(const StudyResult& r) {
  Json js = Json::array();
  for (const auto& s : r.studies) js.push_back(study_json(s));
  return {{"studies", js}, {"seed_comparison", comparison_json(r.comparison)}};
}

void print_study_result(const StudyResult& r, std::ostream& out) {
  for (const auto& s : r.studies) {
    print_study(s, out);
    fmt::print(out, "\n");
  }
  print_comparison(r.comparison, out);
}

}  // namespace

void register_prefill_ops(Registry& registry) {
  add<PrefillRunRequest, RunResult>(
      registry,
      {.info = {.name = "prefill_run",
                .command = {"prefill", "run"},
                .help = "Prefill time of a scenario: one plan, or the best plan per fabric and "
                        "GPU count beside the seed's figures",
                .positional = {"scenario"}},
       .evaluate = evaluate_run,
       .to_json = run_result_json,
       .print = print_run});
  add<PrefillPlanRequest, PlanResult>(
      registry,
      {.info = {.name = "prefill_plan",
                .command = {"prefill", "plan"},
                .help = "Search every valid plan: the best by latency, the top plans, and the "
                        "Pareto front of latency vs GPUs",
                .positional = {"scenario"}},
       .evaluate = evaluate_plan,
       .to_json = plan_json,
       .print = print_plan});
  add<CrossoverRequest, Json>(
      registry,
      {.info = {.name = "prefill_crossover",
                .command = {"prefill", "crossover"},
                .help = "Prompt length where attention FLOPs overtake the feed-forward layers",
                .positional = {"models"}},
       .evaluate = evaluate_crossover,
       .to_json = [](const Json& j) { return j; },
       .print = print_crossover});
  add<MixedRequest, MixedResult>(
      registry,
      {.info = {.name = "prefill_mixed",
                .command = {"prefill", "mixed"},
                .help = "Static partitions vs dynamic DP/CP switching for two request shapes",
                .positional = {"scenarios"}},
       .evaluate = evaluate_mixed,
       .to_json = mixed_json,
       .print = print_mixed});
  add<PrefillStudyRequest, StudyResult>(
      registry,
      {.info = {.name = "prefill_study",
                .command = {"prefill", "study"},
                .help = "The seed's prefill study: every scenario on every fabric and the seed's "
                        "figures beside ours",
                .positional = {"scenarios"}},
       .evaluate = evaluate_study,
       .to_json = study_result_json,
       .print = print_study_result});
}

}  // namespace lightsim::ops

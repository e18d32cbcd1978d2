// `lightsim prefill run SCENARIO [--fabric NAME] [--gpus N] [--plan TP=..,EP=..,CP=..]`,
// `lightsim prefill plan SCENARIO [--fabric NAME] [--gpus N]...` and
// `lightsim prefill study [SCENARIO...]` and `lightsim prefill crossover [MODEL...]`
// (docs/prefill.md).
#include <iostream>

#include "cli.h"
#include "lightsim/core/json.h"
#include "lightsim/model/params.h"
#include "lightsim/prefill/questions.h"
#include "lightsim/prefill/report.h"
#include "lightsim/prefill/study.h"

namespace lightsim::cli {
namespace {

struct PrefillOptions {
  std::vector<std::string> scenarios;
  std::string fabric, plan;
  std::vector<std::int64_t> gpus;
  int top = 5;
};

// --fabric NAME is addressed by --set as fabric.KEY, the scenario's fabrics as fabrics.KEY.
std::vector<fabric::Topology> topologies(const prefill::ScenarioSpec& s, const std::string& fabric,
                                         const config::LoadOptions& load) {
  std::vector<fabric::Topology> out;
  if (!fabric.empty()) {
    out.push_back(fabric::build_topology(fabric::load_fabric(fabric, load.scoped("fabric"))));
    return out;
  }
  for (const auto& name : s.fabrics) {
    out.push_back(fabric::build_topology(fabric::load_fabric(name, load.scoped("fabrics"))));
    out.back().name = name;
  }
  return out;
}

std::string ms(double s) {
  return fmt::format("{:.1f}", s * 1e3);
}

void print_result(const prefill::Result& r, const fabric::Topology& t) {
  if (!r.feasible) {
    fmt::print("  {}: infeasible: {}\n", prefill::format_plan(r.plan), r.reason);
    return;
  }
  fmt::print(
      "  plan {} on {} GPUs: latency {} ms, TTFT {} ms, {:.0f} tokens/s/GPU, MFU {:.1f}%\n"
      "  {} request(s) per attention group per wave, {} wave(s); expert skew {:.2f}; HBM "
      "{:.1f} of {:.1f} GB (weights {:.1f}, KV {:.1f}, activations {:.1f}, buffers {:.1f})\n",
      prefill::format_plan(r.plan), r.gpus, ms(r.latency_s), ms(r.ttft_s), r.tokens_per_s_per_gpu,
      100 * r.mfu, r.sequences_per_group, r.waves, r.expert_skew, r.memory.total() / 1e9,
      r.memory.capacity / 1e9, r.memory.weights / 1e9, r.memory.kv_cache / 1e9,
      r.memory.activations / 1e9, r.memory.comm_buffers / 1e9);
  fmt::print("  compute (ms):");
  for (std::size_t c = 0; c < prefill::kComputeClasses; ++c)
    if (r.compute[c] > 0)
      fmt::print(" {} {}", prefill::compute_class_name(static_cast<prefill::ComputeClass>(c)),
                 ms(r.compute[c]));
  fmt::print("\n  communication (ms, exposed/total, tier):");
  for (std::size_t c = 0; c < prefill::kCommKinds; ++c)
    if (r.comm[c] > 0)
      fmt::print(" {} {}/{} {}", prefill::comm_kind_name(static_cast<prefill::CommKind>(c)),
                 ms(r.exposed[c]), ms(r.comm[c]),
                 r.tier[c] >= 0 ? t.tiers[static_cast<std::size_t>(r.tier[c])].name : "");
  fmt::print("\n  pipeline fill {} ms\n", ms(r.bubble_fraction * r.latency_s));
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

void print_study(const prefill::ScenarioStudy& s) {
  fmt::print("{}: {} x {} tokens, model {}\n", s.scenario.name, s.scenario.requests,
             s.scenario.sequence_length, s.scenario.model);
  fmt::print("{:>6} {:<20} {:<44} {:>11} {:>10} {:>10} {:>6} {:>9} {:>8}\n", "GPUs", "fabric",
             "best plan", "latency ms", "TTFT ms", "tok/s/GPU", "MFU%", "exposed%", "speedup");
  for (const auto& p : s.points)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      const prefill::Result& r = p.per_fabric[f].best;
      if (!r.feasible) {
        fmt::print("{:>6} {:<20} infeasible: {}\n", p.gpus, s.topologies[f].name, r.reason);
        continue;
      }
      fmt::print("{:>6} {:<20} {:<44} {:>11} {:>10} {:>10.0f} {:>6.1f} {:>9.1f} {:>7.2f}x\n",
                 p.gpus, s.topologies[f].name, prefill::format_plan(r.plan), ms(r.latency_s),
                 ms(r.ttft_s), r.tokens_per_s_per_gpu, 100 * r.mfu,
                 100 * r.exposed_total() / r.latency_s, p.speedup[f]);
    }
  if (!s.fixed.empty()) fmt::print("fixed communication-limited plans:\n");
  for (const auto& p : s.fixed)
    for (std::size_t f = 0; f < p.per_fabric.size(); ++f) {
      const prefill::Result& r = p.per_fabric[f];
      if (!r.feasible) {
        fmt::print("{:>6} {:<20} {:<44} infeasible: {}\n", p.gpus, s.topologies[f].name, p.plan,
                   r.reason);
        continue;
      }
      fmt::print("{:>6} {:<20} {:<44} {:>11} {:>10} {:>10.0f} {:>6.1f} {:>9.1f} {:>7.2f}x\n",
                 p.gpus, s.topologies[f].name, p.plan, ms(r.latency_s), ms(r.ttft_s),
                 r.tokens_per_s_per_gpu, 100 * r.mfu, 100 * r.exposed_total() / r.latency_s,
                 p.speedup[f]);
    }
}

Json print_comparison(const std::vector<prefill::FigureComparison>& cmp, bool json) {
  Json out = Json::array();
  if (!json) fmt::print("\nbeside the seed's figures (ours | seed, deviation of the high end):\n");
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
    if (json) continue;
    auto fmt_range = [](double lo, double hi) {
      return lo == hi ? fmt::format("{:.3g}", hi) : fmt::format("{:.3g}-{:.3g}", lo, hi);
    };
    fmt::print("  {:<5} {:<30} {:<18} ours {:>11} | seed {:>9} ({:+.0f}%)  [{}]\n", c.seed.scenario,
               c.seed.figure, c.fabric, fmt_range(c.ours_low, c.ours_high),
               fmt_range(c.seed.low, c.seed.high), 100 * c.deviation(), c.how);
  }
  return out;
}

}  // namespace

void add_prefill_commands(CLI::App& app, const GlobalOptions& options, const Registry&) {
  CLI::App* pre = app.add_subcommand("prefill", "MoE prefill performance: plans, search, study");
  pre->require_subcommand(1);
  auto o = std::make_shared<PrefillOptions>();

  auto* run = pre->add_subcommand(
      "run",
      "Prefill time of a scenario: one plan, or the best plan per fabric and GPU count "
      "beside the seed's figures");
  run->add_option("SCENARIO", o->scenarios, "Scenario name (configs/scenarios/) or YAML file")
      ->required()
      ->expected(1);
  run->add_option("--fabric", o->fabric, "One fabric (default: the scenario's fabrics)");
  run->add_option("--gpus", o->gpus, "GPU count (default: the scenario's counts)")
      ->expected(1)
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  run->add_option("--plan", o->plan,
                  "Fixed plan, e.g. TP=1,EP=64,CP=1 (keys TP CP EP PP DP CPA MB)");
  run->callback([o, &options] {
    const auto load = options.load_options();
    prefill::ScenarioSpec s = prefill::load_scenario(o->scenarios.front(), load);
    const model::Transformer m = prefill::load_model(s.model, load);
    const auto tops = topologies(s, o->fabric, load);
    const auto seed = prefill::load_study_seed(load);
    options.require_all_used();
    if (!o->gpus.empty()) s.gpu_counts = o->gpus;
    if (!o->plan.empty()) {
      LIGHTSIM_CHECK_AS(UsageError, s.gpu_counts.size() == 1 || !o->gpus.empty(),
                        "--plan needs --gpus N (the scenario studies {} GPU counts)",
                        s.gpu_counts.size());
      const std::int64_t n = s.gpu_counts.front();
      const prefill::Plan plan = prefill::parse_plan(o->plan, n);
      LIGHTSIM_CHECK_AS(UsageError, plan.gpus() == n, "--plan {} uses {} GPUs, --gpus says {}",
                        o->plan, plan.gpus(), n);
      Json all = Json::array();
      for (const auto& t : tops) {
        const prefill::Evaluator ev(s, m, t, n);
        const prefill::Result r = ev.evaluate(plan);
        Json j = prefill::result_json(r, t);
        j["fabric"] = t.name;
        all.push_back(j);
        if (!options.json) {
          fmt::print("{} on {}:\n", s.name, t.name);
          print_result(r, t);
        }
      }
      if (options.json) std::cout << dump_json(all.size() == 1 ? all[0] : all);
      return;
    }
    if (!o->gpus.empty()) s.fixed_plans.clear();
    const prefill::ScenarioStudy study = prefill::run_study(s, m, tops);
    if (options.json) {
      Json j = study_json(study);
      j["seed_comparison"] = print_comparison(prefill::compare_with_seed({study}, seed), true);
      std::cout << dump_json(j);
      return;
    }
    print_study(study);
    if (tops.size() > 1) print_comparison(prefill::compare_with_seed({study}, seed), false);
  });

  auto* plan = pre->add_subcommand(
      "plan",
      "Search every valid plan: the best by latency, the top plans, and the Pareto front "
      "of latency vs GPUs");
  plan->add_option("SCENARIO", o->scenarios, "Scenario name or YAML file")->required()->expected(1);
  plan->add_option("--fabric", o->fabric, "Fabric (default: the scenario's first)");
  plan->add_option("--gpus", o->gpus, "GPU counts (default: the scenario's)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  plan->add_option("--top", o->top, "Plans listed per GPU count")->capture_default_str();
  plan->callback([o, &options] {
    const auto load = options.load_options();
    prefill::ScenarioSpec s = prefill::load_scenario(o->scenarios.front(), load);
    const model::Transformer m = prefill::load_model(s.model, load);
    const fabric::Topology t =
        topologies(s, o->fabric.empty() ? s.fabrics.front() : o->fabric, load).front();
    options.require_all_used();
    if (!o->gpus.empty()) s.gpu_counts = o->gpus;
    std::int64_t max_gpus = 1;
    for (std::int64_t n : s.gpu_counts) max_gpus = std::lcm(max_gpus, n);
    const prefill::Evaluator ev(s, m, t, max_gpus);
    std::vector<prefill::SearchResult> results;
    Json counts = Json::array();
    for (std::int64_t n : s.gpu_counts) {
      results.push_back(prefill::search(ev, n));
      // Top plans by latency.
      std::vector<prefill::Result> all;
      for (const auto& p : prefill::enumerate_plans(ev, n))
        if (auto r = ev.evaluate(p); r.feasible) all.push_back(std::move(r));
      std::sort(all.begin(), all.end(),
                [](const auto& a, const auto& b) { return a.latency_s < b.latency_s; });
      if (all.size() > static_cast<std::size_t>(o->top))
        all.resize(static_cast<std::size_t>(o->top));
      Json j = prefill::search_json(results.back(), t);
      Json top = Json::array();
      for (const auto& r : all) top.push_back(prefill::result_json(r, t));
      j["top"] = top;
      counts.push_back(j);
      if (options.json) continue;
      const auto& sr = results.back();
      fmt::print("{} GPUs on {}: {} plans evaluated ({} feasible) in {:.3f} s\n", n, t.name,
                 sr.evaluated, sr.feasible, sr.seconds);
      for (const auto& r : all)
        fmt::print(
            "  {:<44} latency {:>9} ms  TTFT {:>9} ms  {:>7.0f} tok/s/GPU  exposed comm "
            "{:.1f}%\n",
            prefill::format_plan(r.plan), ms(r.latency_s), ms(r.ttft_s), r.tokens_per_s_per_gpu,
            100 * r.exposed_total() / r.latency_s);
      if (all.empty()) fmt::print("  no feasible plan: {}\n", sr.best.reason);
    }
    Json front = Json::array();
    for (std::size_t i : prefill::pareto_front(results))
      front.push_back({{"gpus", results[i].gpus},
                       {"latency_s", results[i].best.latency_s},
                       {"plan", prefill::format_plan(results[i].best.plan)}});
    if (options.json) {
      std::cout << dump_json({{"scenario", s.name},
                              {"fabric", t.name},
                              {"searches", counts},
                              {"pareto_front", front}});
      return;
    }
    fmt::print("Pareto front (latency vs GPUs):");
    for (const Json& f : front)
      fmt::print(" {} GPUs {} ms;", f["gpus"].get<std::int64_t>(),
                 ms(f["latency_s"].get<double>()));
    fmt::print("\n");
  });

  auto* cross = pre->add_subcommand(
      "crossover", "Prompt length where attention FLOPs overtake the feed-forward layers");
  auto models = std::make_shared<std::vector<std::string>>();
  cross->add_option("MODELS", *models, "Models (configs/models/; default: the seed's study model)");
  cross->callback([models, &options] {
    const auto load = options.load_options();
    options.require_all_used();  // models are HF config.json files: --set has nothing to address
    std::vector<std::string> list = *models;
    if (list.empty()) list = {"seed_r1_840b_a42b"};
    const model::DTypePolicy dtypes;  // FLOPs do not depend on the number formats
    Json out = Json::array();
    model::DTypePolicy fp8_kv;
    fp8_kv.kv_cache = model::DType::fp8;
    for (const auto& name : list) {
      const model::Transformer m = prefill::load_model(name, load);
      const std::int64_t s = prefill::attention_crossover(m, dtypes);
      const double kv = model::kv_bytes_per_token(m, fp8_kv) * static_cast<double>(1 << 20);
      out.push_back({{"model", name},
                     {"crossover_tokens", s},
                     {"kv_cache_1m_tokens_fp8_B", kv},
                     {"kv_cache_64x1m_tokens_fp8_B", 64 * kv}});
      if (!options.json)
        fmt::print(
            "{}: attention FLOPs exceed the feed-forward layers' from {} tokens{}; FP8 KV cache "
            "of one 1M-token (2^20) sequence {:.1f} GB, of 64 {:.1f} GB\n",
            name, s, s < 0 ? " (never below 2^26)" : "", kv / 1e9, 64 * kv / 1e9);
    }
    if (options.json) std::cout << dump_json(out);
  });

  auto* mixed = pre->add_subcommand(
      "mixed", "Static partitions vs dynamic DP/CP switching for two request shapes");
  auto pair = std::make_shared<std::vector<std::string>>();
  mixed->add_option("SCENARIOS", *pair, "Short-request and long-request scenarios")
      ->required()
      ->expected(2);
  mixed->add_option("--fabric", o->fabric, "Fabric (default: the short scenario's first)");
  mixed->add_option("--gpus", o->gpus, "GPU count")->required()->expected(1);
  mixed->callback([pair, o, &options] {
    const auto load = options.load_options();
    const prefill::ScenarioSpec a = prefill::load_scenario((*pair)[0], load);
    const prefill::ScenarioSpec b = prefill::load_scenario((*pair)[1], load);
    const fabric::Topology t =
        topologies(a, o->fabric.empty() ? a.fabrics.front() : o->fabric, load).front();
    const std::int64_t n = o->gpus.front();
    const prefill::Evaluator ea(a, prefill::load_model(a.model, load), t, n);
    const prefill::Evaluator eb(b, prefill::load_model(b.model, load), t, n);
    options.require_all_used();
    // Partitions in sixteenths of the machine (72 GPUs = one copper rack at 1152).
    const std::int64_t step = n % 16 == 0 ? n / 16 : 1;
    const prefill::MixedResult m = prefill::static_vs_dynamic(ea, eb, n, step);
    if (options.json) {
      std::cout << dump_json({{"fabric", t.name},
                              {"gpus", n},
                              {"feasible", m.feasible},
                              {"static_short_gpus", m.static_short_gpus},
                              {"static_long_gpus", m.static_long_gpus},
                              {"static_makespan_s", m.static_makespan_s},
                              {"static_long_ttft_s", m.static_long_ttft_s},
                              {"dynamic_makespan_s", m.dynamic_makespan_s},
                              {"dynamic_long_ttft_s", m.dynamic_long_ttft_s},
                              {"searches", m.searches}});
      return;
    }
    LIGHTSIM_CHECK_AS(InputError, m.feasible, "{}", m.reason);
    fmt::print(
        "{} + {} on {} GPUs of {}:\n  static: {} GPUs short, {} GPUs long, makespan {} ms, long "
        "TTFT {} ms\n  dynamic DP/CP switching: makespan {} ms, long TTFT {} ms ({} searches)\n",
        a.name, b.name, n, t.name, m.static_short_gpus, m.static_long_gpus, ms(m.static_makespan_s),
        ms(m.static_long_ttft_s), ms(m.dynamic_makespan_s), ms(m.dynamic_long_ttft_s), m.searches);
  });

  auto* study = pre->add_subcommand(
      "study",
      "The seed's prefill study: every scenario on every fabric and the seed's figures "
      "beside ours");
  auto names = std::make_shared<std::vector<std::string>>();
  study->add_option("SCENARIOS", *names, "Scenarios (default: seed_8k seed_128k seed_1m)");
  study->add_option("--fabric", o->fabric, "Replace the photonic fabric (keeps the baseline)");
  study->callback([names, o, &options] {
    const auto load = options.load_options();
    std::vector<std::string> list = *names;
    if (list.empty()) list = {"seed_8k", "seed_128k", "seed_1m"};
    struct Loaded {
      prefill::ScenarioSpec scenario;
      model::Transformer model;
      std::vector<fabric::Topology> fabrics;
    };
    std::vector<Loaded> loaded;
    for (const auto& name : list) {
      prefill::ScenarioSpec s = prefill::load_scenario(name, load);
      if (!o->fabric.empty()) s.fabrics = {s.fabrics.front(), o->fabric};
      const auto tops = topologies(s, "", load);
      loaded.push_back({s, prefill::load_model(s.model, load), tops});
    }
    const auto seed = prefill::load_study_seed(load);
    options.require_all_used();
    std::vector<prefill::ScenarioStudy> studies;
    Json js = Json::array();
    for (const auto& [s, m, tops] : loaded) {
      studies.push_back(prefill::run_study(s, m, tops));
      if (options.json)
        js.push_back(study_json(studies.back()));
      else
        print_study(studies.back()), fmt::print("\n");
    }
    const auto cmp = prefill::compare_with_seed(studies, seed);
    if (options.json) {
      std::cout << dump_json({{"studies", js}, {"seed_comparison", print_comparison(cmp, true)}});
      return;
    }
    print_comparison(cmp, false);
  });
}

}  // namespace lightsim::cli

// The prism_design study's GPU baselines at equal recall (design_baselines.h).
#include "design_baselines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "lightsim/core/as_double.h"
#include "lightsim/core/error.h"
#include "lightsim/decode/gpu_selectors.h"
#include "lightsim/fabric/gpu.h"
#include "lightsim/kv/generator.h"
#include "lightsim/kv/metrics.h"

namespace lightsim::studies {

void DesignBaselinesSpec::describe(config::Schema<DesignBaselinesSpec>& s) {
  using S = DesignBaselinesSpec;
  s.help(
      "The GPU's own KV-block selectors the Prism front is compared with at equal recall "
      "(docs/prism.md, \"GPU baselines at equal recall\"); empty gpus: no comparison.");
  s.field("gpus", &S::gpus,
          "GPUs (configs/gpus/ names or files; each needs tdp, idle_power "
          "and hbm_energy_per_byte)");
  s.field("batches", &S::batches, "sequences per decode step")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("selectors", &S::selectors,
          "GPU selectors: mean_key, quest, dsa_indexer (ideal: exact q.k), faiss_ivfpq");
  s.field("hidden", &S::hidden, "model width h read by the DSA indexer's projections")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("memory_share", &S::memory_share,
          "s_mem of the GPU board power model (decode power.memory_share)")
      .range(0.0, 1.0);
  s.field("dsa", &S::dsa, "the DSA lightning indexer's shape (DeepSeek-V3.2)");
  s.field("faiss", &S::faiss, "the FAISS IVF-PQ scorer (kind scorer_faiss_ivfpq)");
  s.rule([](const S& v) -> std::optional<std::string> {
    try {  // the one list of selector names (decode/gpu_selectors.h)
      for (const std::string& name : v.selectors) decode::gpu_selector_from(name, "selectors");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  });
}

namespace design_detail {
namespace {

kv::ScorerMaker maker_of(std::string_view selector, const DesignBaselinesSpec& b) {
  switch (decode::gpu_selector_from(selector, "baselines.selectors")) {
    case decode::GpuSelector::mean_key:
      return kv::mean_key_scorer({});
    case decode::GpuSelector::quest:
      return kv::quest_scorer({});
    case decode::GpuSelector::faiss_ivfpq:
      return kv::faiss_ivfpq_scorer(b.faiss);
    case decode::GpuSelector::dsa_indexer:
      break;
  }
  return kv::exact_scorer({});  // dsa_indexer: the ideal indexer, exact q.k
}

double metric_value(prism::DesignMetric m, double recall, double mass_recall) {
  return m == prism::DesignMetric::mass_recall ? mass_recall : recall;
}

}  // namespace

std::vector<BaselineRecall> baseline_recalls(const prism::PrismDesignSpec& spec,
                                             const DesignBaselinesSpec& baselines,
                                             const prism::DesignResult& r, Context& ctx) {
  std::set<std::int64_t> blocks, ks;
  for (const prism::DesignCandidate& c : r.all) {
    blocks.insert(c.variables.block_tokens);
    ks.insert(c.variables.top_k);
  }
  std::vector<BaselineRecall> out;
  if (blocks.empty() || baselines.selectors.empty()) return out;
  ctx.log().info("prism design: GPU baselines on the {}-token cache", spec.workload.tokens);
  // The cache the search scored on (the same draws: a function of the workload and the seed);
  // generated here only when the search scored nothing.
  const std::shared_ptr<const kv::KvCache> cache =
      r.cache ? r.cache
              : std::make_shared<const kv::KvCache>(kv::generate_kv_cache(spec.workload, ctx));
  std::vector<kv::ScorerSetup> setups;
  for (const std::string& s : baselines.selectors) setups.push_back({s, maker_of(s, baselines)});
  kv::EvalOptions o;
  o.ks.assign(ks.begin(), ks.end());
  o.output_error = false;
  o.first_step = r.first_step;  // the steps the search scored (a qat projection's held-out part)
  std::vector<kv::BlockOptions> layouts;
  for (std::int64_t b : blocks) {
    kv::BlockOptions bo;
    bo.block_tokens = static_cast<std::size_t>(b);
    layouts.push_back(bo);
  }
  const std::vector<kv::EvalReport> reps = kv::evaluate(*cache, setups, o, layouts, ctx);
  std::size_t li = 0;
  for (std::int64_t b : blocks) {
    const kv::EvalReport& rep = reps[li++];
    for (std::size_t s = 0; s < setups.size(); ++s) {
      std::size_t ki = 0;
      for (std::int64_t k : ks) {
        const kv::KMetrics& m = rep.scorers[s].per_k[ki++];
        out.push_back({.selector = setups[s].name,
                       .block_tokens = b,
                       .top_k = k,
                       .recall = m.recall.mean,
                       .recall_ci = m.recall.ci95,
                       .mass_recall = m.mass_recall.mean,
                       .mass_recall_ci = m.mass_recall.ci95,
                       .upper_bound = setups[s].name == "dsa_indexer"});
      }
    }
  }
  return out;
}

PrismStep prism_step(const prism::DesignFigures& f, const kv::KvGeneratorSpec& workload,
                     std::int64_t batch) {
  const double queries =
      as_double(batch) * as_double(workload.model_layers) * as_double(workload.kv_heads);
  return {.energy = queries * f.energy_per_query,
          .time = as_double(workload.model_layers) *
                  (f.latency_per_query + as_double(batch - 1) * f.query_interval)};
}

void add_gpu_baselines(RunBase& run, const DesignStudySpec& spec, const prism::DesignResult& r) {
  const DesignBaselinesSpec& b = spec.baselines;
  if (b.gpus.empty() || b.selectors.empty() || b.batches.empty()) return;
  const kv::KvGeneratorSpec& w = spec.design.workload;
  const prism::DesignMetric metric = r.target.metric;
  const std::string mname = prism::to_string(metric);
  std::vector<fabric::GpuSpec> gpus;
  for (const std::string& name : b.gpus) {
    const auto file = config::find_named(name, "gpus", ".yaml", run.presets, "gpu");
    gpus.push_back(config::load_spec<fabric::GpuSpec>(file, run.presets));
  }
  const std::vector<BaselineRecall> recalls = baseline_recalls(spec.design, b, r, run.ctx);

  // The front design that matches a recall at the lowest energy (energy per step is
  // energy_per_query times a count, so the order holds at every batch).
  const auto match = [&](const BaselineRecall& br) -> const prism::DesignCandidate* {
    const prism::DesignCandidate* best = nullptr;
    const double need = metric_value(metric, br.recall, br.mass_recall);
    for (std::size_t i : r.front) {
      const prism::DesignCandidate& c = r.all[i];
      if (c.variables.block_tokens != br.block_tokens || c.variables.top_k != br.top_k) continue;
      if (metric_value(metric, c.figures->recall, c.figures->mass_recall) < need) continue;
      if (!best || c.figures->energy_per_query < best->figures->energy_per_query) best = &c;
    }
    return best;
  };
  // The front's highest recall at a (block_tokens, k), for "never" explanations and the chart.
  const auto top_of = [&](std::int64_t bt, std::int64_t k) -> const prism::DesignCandidate* {
    const prism::DesignCandidate* top = nullptr;
    for (std::size_t i : r.front) {
      const prism::DesignCandidate& c = r.all[i];
      if (c.variables.block_tokens != bt || c.variables.top_k != k) continue;
      const double v = metric_value(metric, c.figures->recall, c.figures->mass_recall);
      if (!top || v > metric_value(metric, top->figures->recall, top->figures->mass_recall))
        top = &c;
    }
    return top;
  };

  run.table("gpu_baselines",
            fmt::format("The GPU's own selectors at {} tokens: recall on the design's workload, "
                        "time and energy per decode step (calibrated kernel model)",
                        r.context),
            {{"selector", ""},
             {"gpu", ""},
             {"batch", ""},
             {"block_tokens", ""},
             {"top_k", ""},
             {"recall", ""},
             {"recall_ci95", ""},
             {"mass_recall", ""},
             {"mass_recall_ci95", ""},
             {"recall_is_upper_bound", ""},
             {"time_us", "us"},
             {"energy_uj", "uJ"},
             {"hbm_energy_uj", "uJ"},
             {"power_w", "W"},
             {"bytes_mb", "MB"},
             {"gflop", "GFLOP"},
             {"memory_bound", ""}});
  run.table("vs_gpu",
            fmt::format("At equal {}: the cheapest Prism front design reaching each GPU "
                        "selector's {} against it, per decode step",
                        mname, mname),
            {{"selector", ""},
             {"gpu", ""},
             {"batch", ""},
             {"block_tokens", ""},
             {"top_k", ""},
             {"gpu_metric", ""},
             {"prism_candidate", ""},
             {"prism_metric", ""},
             {"gpu_energy_uj", "uJ"},
             {"prism_energy_uj", "uJ"},
             {"energy_ratio", ""},
             {"gpu_time_us", "us"},
             {"prism_time_us", "us"},
             {"time_ratio", ""},
             {"winner", ""}});
  run.table("step_costs",
            "Energy and time per decode step: GPU selectors and Prism's best front design",
            {{"system", ""},
             {"gpu", ""},
             {"batch", ""},
             {"metric", ""},
             {"energy_uj", "uJ"},
             {"time_us", "us"}});

  struct Tally {
    std::size_t rows = 0, prism = 0, never = 0;
    double best_energy_ratio = 0, best_time_ratio = 0;
    double need_max = 0, reached_max = 0;
  };
  std::map<std::string, Tally> tally;
  for (const BaselineRecall& br : recalls) {
    const decode::GpuSelector sel = decode::gpu_selector_from(br.selector, "baselines.selectors");
    const prism::DesignCandidate* m = match(br);
    const prism::DesignCandidate* top = top_of(br.block_tokens, br.top_k);
    const double need = metric_value(metric, br.recall, br.mass_recall);
    for (const fabric::GpuSpec& gpu : gpus)
      for (std::int64_t batch : b.batches) {
        decode::SelectionShape shape{.layers = w.model_layers,
                                     .kv_heads = w.kv_heads,
                                     .q_heads = w.q_heads,
                                     .head_dim = w.head_dim,
                                     .hidden = b.hidden,
                                     .context = w.tokens,
                                     .block_tokens = br.block_tokens,
                                     .batch = batch};
        const kv::SummaryGeometry geo{.tokens = static_cast<std::size_t>(w.tokens),
                                      .head_dim = static_cast<std::size_t>(w.head_dim)};
        const std::size_t nlist = kv::ivfpq_nlist(b.faiss, geo.tokens);
        const decode::IvfPqGeometry ivf{.nlist = static_cast<std::int64_t>(nlist),
                                        .nprobe = b.faiss.nprobe,
                                        .pq_m = b.faiss.pq_m,
                                        .pq_nbits = b.faiss.pq_nbits};
        const decode::GpuSelectorCost g =
            decode::gpu_selector_cost(sel, shape, gpu, b.dsa, ivf, b.memory_share);
        run.add_row("gpu_baselines", {{"selector", br.selector},
                                      {"gpu", gpu.name},
                                      {"batch", batch},
                                      {"block_tokens", br.block_tokens},
                                      {"top_k", br.top_k},
                                      {"recall", br.recall},
                                      {"recall_ci95", br.recall_ci},
                                      {"mass_recall", br.mass_recall},
                                      {"mass_recall_ci95", br.mass_recall_ci},
                                      {"recall_is_upper_bound", br.upper_bound},
                                      {"time_us", g.time * 1e6},
                                      {"energy_uj", g.energy * 1e6},
                                      {"hbm_energy_uj", g.hbm_energy * 1e6},
                                      {"power_w", g.power},
                                      {"bytes_mb", g.bytes / 1e6},
                                      {"gflop", g.flops / 1e9},
                                      {"memory_bound", g.memory_bound}});
        run.add_row("step_costs", {{"system", br.selector},
                                   {"gpu", gpu.name},
                                   {"batch", batch},
                                   {"metric", need},
                                   {"energy_uj", g.energy * 1e6},
                                   {"time_us", g.time * 1e6}});
        Tally& t = tally[br.selector];
        ++t.rows;
        t.need_max = std::max(t.need_max, need);
        if (top)
          t.reached_max = std::max(
              t.reached_max, metric_value(metric, top->figures->recall, top->figures->mass_recall));
        if (!m) {
          ++t.never;
          run.add_row(
              "vs_gpu",
              {{"selector", br.selector},
               {"gpu", gpu.name},
               {"batch", batch},
               {"block_tokens", br.block_tokens},
               {"top_k", br.top_k},
               {"gpu_metric", need},
               {"prism_candidate", std::int64_t{-1}},
               {"prism_metric",
                top ? metric_value(metric, top->figures->recall, top->figures->mass_recall) : 0.0},
               {"gpu_energy_uj", g.energy * 1e6},
               {"prism_energy_uj", 0.0},
               {"energy_ratio", 0.0},
               {"gpu_time_us", g.time * 1e6},
               {"prism_time_us", 0.0},
               {"time_ratio", 0.0},
               {"winner", std::string("never")}});
          continue;
        }
        const PrismStep p = prism_step(*m->figures, w, batch);
        const double er = p.energy / g.energy, tr = p.time / g.time;
        const std::string winner = er < 1 && tr < 1     ? "prism"
                                   : er >= 1 && tr >= 1 ? "gpu"
                                                        : (er < 1 ? "prism_energy" : "prism_time");
        if (winner == "prism") ++t.prism;
        if (t.best_energy_ratio == 0 || er < t.best_energy_ratio) t.best_energy_ratio = er;
        if (t.best_time_ratio == 0 || tr < t.best_time_ratio) t.best_time_ratio = tr;
        run.add_row("vs_gpu", {{"selector", br.selector},
                               {"gpu", gpu.name},
                               {"batch", batch},
                               {"block_tokens", br.block_tokens},
                               {"top_k", br.top_k},
                               {"gpu_metric", need},
                               {"prism_candidate", static_cast<std::int64_t>(m->index)},
                               {"prism_metric",
                                metric_value(metric, m->figures->recall, m->figures->mass_recall)},
                               {"gpu_energy_uj", g.energy * 1e6},
                               {"prism_energy_uj", p.energy * 1e6},
                               {"energy_ratio", er},
                               {"gpu_time_us", g.time * 1e6},
                               {"prism_time_us", p.time * 1e6},
                               {"time_ratio", tr},
                               {"winner", winner}});
      }
  }
  // Prism's highest-recall front design beside the GPU rows of the chart.
  std::set<std::pair<std::int64_t, std::int64_t>> layouts;
  for (const BaselineRecall& br : recalls) layouts.insert({br.block_tokens, br.top_k});
  for (const auto& [bt, k] : layouts) {
    const prism::DesignCandidate* top = top_of(bt, k);
    if (!top) continue;
    for (const fabric::GpuSpec& gpu : gpus)
      for (std::int64_t batch : b.batches) {
        const PrismStep p = prism_step(*top->figures, w, batch);
        run.add_row(
            "step_costs",
            {{"system", fmt::format("prism #{}", top->index)},
             {"gpu", gpu.name},
             {"batch", batch},
             {"metric", metric_value(metric, top->figures->recall, top->figures->mass_recall)},
             {"energy_uj", p.energy * 1e6},
             {"time_us", p.time * 1e6}});
      }
  }

  for (const std::string& s : b.selectors) {
    const Tally& t = tally[s];
    report::Claim& c = run.qualitative(
        fmt::format("prism_beats_{}", s),
        fmt::format("at equal {} a Prism design beats the GPU's {} selector{} on energy and "
                    "time per decode step at {} tokens (some GPU and batch)",
                    mname, s, s == "dsa_indexer" ? " (ideal indexer, an upper bound)" : "",
                    r.context));
    if (t.prism > 0) {
      c.verdict = report::Verdict::holds;
      c.explanation = fmt::format(
          "Prism wins {} of {} (GPU, batch, layout) points; best ratios Prism / GPU: energy "
          "{:.3g}, time {:.3g} (table vs_gpu).",
          t.prism, t.rows, t.best_energy_ratio, t.best_time_ratio);
    } else if (t.never == t.rows) {
      c.verdict = report::Verdict::does_not_hold;
      c.explanation = fmt::format(
          "Never at equal quality: the GPU selector reaches {} up to {:.4f}, the best Prism "
          "front design {:.4f} (the binding limit of the search: {}).",
          mname, t.need_max, t.reached_max, r.binding.empty() ? "none" : r.binding);
    } else {
      c.verdict = report::Verdict::does_not_hold;
      c.explanation = fmt::format(
          "Prism matches the recall at {} of {} points but wins on both energy and time at "
          "none; best ratios Prism / GPU: energy {:.3g}, time {:.3g} (table vs_gpu).",
          t.rows - t.never, t.rows, t.best_energy_ratio, t.best_time_ratio);
    }
  }

  Chart chart{.title = fmt::format("Energy per decode step at {} tokens: GPU selectors and "
                                   "Prism's highest-{} front design",
                                   r.context, mname),
              .table = "step_costs",
              .mark = Mark::line_points};
  chart.x = Channel{.field = "batch",
                    .type = "quantitative",
                    .title = "batch (sequences per step)",
                    .scale = {.type = "log", .base = 2}};
  chart.y = Channel{.field = "energy_uj",
                    .type = "quantitative",
                    .title = "energy per decode step (uJ)",
                    .scale = {.zero = false, .type = "log"}};
  chart.color = Channel{.field = "system", .type = "nominal"};
  chart.column = Channel{.field = "gpu", .type = "nominal"};
  chart.tooltip = {
      tip("system"),           tip("gpu"),           tip("batch"), tip("metric", ".4f", mname),
      tip("energy_uj", ".4g"), tip("time_us", ".4g")};
  run.chart(chart);
}

}  // namespace design_detail
}  // namespace lightsim::studies

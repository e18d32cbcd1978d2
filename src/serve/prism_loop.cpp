// Prism in the serving loop (prism_spec.h, prism_loop.h).
#include "lightsim/serve/prism_loop.h"

#include <algorithm>
#include <cmath>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"
#include "lightsim/decode/scenario.h"
#include "lightsim/kv/metrics.h"
#include "lightsim/kv/projection.h"
#include "lightsim/model/transformer.h"
#include "lightsim/prism/scorer.h"
#include "lightsim/serve/prism_spec.h"

namespace lightsim::serve {

void ServePrismSpec::describe(config::Schema<ServePrismSpec>& s) {
  s.help(
      "Prism in the loop: decode steps read only the KV blocks a Prism accelerator selects; the "
      "run reports the selection's retrieval quality on a KV profile beside the speed "
      "(docs/serving.md, \"Prism in the loop\").");
  s.field("enabled", &ServePrismSpec::enabled,
          "select KV blocks with Prism in the decode steps of the pool that decodes");
  s.field("selector", &ServePrismSpec::selector,
          "the accelerator (top_k, block_tokens), sinks, recent window and link (decode_prism)");
  s.field("workload", &ServePrismSpec::workload,
          "KV profile of the retrieval-quality measurement (kv_synthetic; tokens = the context)");
  s.field("quality_context", &ServePrismSpec::quality_context,
          "tokens of the quality measurement; 0 = the run's mean decode context")
      .range(std::int64_t{0}, std::int64_t{1} << 22);
}

namespace {

// Token-weighted mean context of the decode steps of the completed requests: the j-th output
// token after the first (j = 1 .. output - 1) is decoded over prompt + j keys.
double mean_decode_context(const ServeSetup& setup, const SimResult& sim) {
  double keys = 0, tokens = 0;
  for (std::size_t i = 0; i < setup.requests.size(); ++i) {
    if (i < sim.times.size() && sim.times[i].finished <= 0) continue;  // rejected
    const Request& r = setup.requests[i];
    const double n = static_cast<double>(r.output - 1);
    keys += n * static_cast<double>(r.prompt) + n * (n + 1) / 2;
    tokens += n;
  }
  return tokens > 0 ? keys / tokens : 0.0;
}

const PoolSpec& decoding_pool(const ScenarioSpec& sc) {
  return sc.mode == PoolMode::colocated ? sc.colocated : sc.decode;
}

}  // namespace

PrismLoopReport evaluate_prism_loop(const ServeSetup& setup, const ServeReport& report,
                                    const config::LoadOptions& load, Context& ctx) {
  const ScenarioSpec& sc = setup.scenario.spec;
  const ServePrismSpec& p = sc.prism;
  LIGHTSIM_CHECK_AS(ConfigError, p.enabled, "prism.enabled: the scenario does not use Prism");
  const PoolSpec& pool = decoding_pool(sc);
  const PoolUsage& usage =
      sc.mode == PoolMode::colocated ? report.sim.colocated : report.sim.decode;
  decode::DecodeSetup d;
  d.scenario.name = sc.name;
  d.scenario.model = sc.model;
  d.scenario.dtypes = sc.dtypes;
  d.scenario.hbm_usable_fraction = sc.hbm_usable_fraction;
  d.scenario.prism = p.selector;
  d.model = decode::load_model(sc.model, load);
  d.accelerator = p.selector.accelerator.get();
  decode::GpuOption gpu;
  gpu.gpu = pool.fabric.get().gpu;

  PrismLoopReport r;
  r.accelerator = d.accelerator.description;
  r.top_k = d.accelerator.selection.top_k;
  r.block_tokens = d.accelerator.programming.block_tokens;
  r.sink_tokens = p.selector.sink_tokens;
  r.recent_tokens = p.selector.recent_tokens;
  r.batch = std::max<std::int64_t>(1, std::llround(usage.mean_decode_batch));
  r.context = std::max<std::int64_t>(1, std::llround(mean_decode_context(setup, report.sim)));
  r.full = decode::evaluate_step(d, gpu, decode::Attention::full, r.batch, r.context);
  r.prism = decode::evaluate_step(d, gpu, decode::Attention::prism, r.batch, r.context);
  r.speedup = r.prism.step_time > 0 ? r.full.step_time / r.prism.step_time : 0.0;
  r.kv_traffic_reduction =
      r.prism.kv_bytes_read > 0 ? r.full.kv_bytes_read / r.prism.kv_bytes_read : 0.0;

  r.quality_context = p.quality_context > 0 ? p.quality_context : r.context;
  const decode::PrismSelection sel = decode::prism_selection(d, r.quality_context);
  if (!sel.used) {
    // The sinks, recent window and top_k blocks cover the context: every key is read.
    r.trivial = true;
    r.recall = r.mass_recall = r.needle_hit = 1.0;
    return r;
  }
  kv::KvGeneratorSpec w = p.workload;
  w.tokens = r.quality_context;
  const kv::KvCache cache = kv::generate_kv_cache(w, ctx);
  const auto dim = static_cast<std::size_t>(d.accelerator.device.grid.channels);
  kv::EvalOptions o;
  o.ks = {static_cast<std::size_t>(r.top_k)};
  o.blocks = {.block_tokens = static_cast<std::size_t>(r.block_tokens),
              .sink_tokens = static_cast<std::size_t>(r.sink_tokens),
              .recent_tokens = static_cast<std::size_t>(r.recent_tokens)};
  o.shared_projection = kv::SharedProjection{kv::standard_projection("pca"), dim};
  o.output_error = false;
  kv::ProjectionSource projection;
  projection.dim = dim;
  const std::vector<kv::ScorerSetup> setups{
      {"prism", prism::prism_scorer(d.accelerator, std::move(projection))}};
  const kv::EvalReport e = kv::evaluate(cache, setups, o, ctx);
  const kv::KMetrics& m = e.scorers.front().per_k.front();
  r.candidates = static_cast<std::int64_t>(e.candidates);
  r.trivial = e.candidates <= static_cast<std::size_t>(r.top_k);
  r.recall = m.recall.mean;
  r.recall_ci95 = m.recall.ci95;
  r.mass_recall = m.mass_recall.mean;
  r.needle_hit = m.needle_hit.mean;
  return r;
}

namespace {

Json step_json(const decode::StepReport& s) {
  return {{"step_time_s", s.step_time},
          {"tokens_per_s", s.tokens_per_second},
          {"attended_tokens", s.attended_tokens},
          {"kv_bytes_read_b", s.kv_bytes_read},
          {"gpu_power_w", s.gpu_power},
          {"prism_power_w", s.prism_power},
          {"system_power_w", s.system_power},
          {"energy_per_token_j", s.energy_per_token},
          {"feasible", s.feasible}};
}

}  // namespace

Json to_json(const PrismLoopReport& r) {
  return {{"accelerator", r.accelerator},
          {"top_k", r.top_k},
          {"block_tokens", r.block_tokens},
          {"sink_tokens", r.sink_tokens},
          {"recent_tokens", r.recent_tokens},
          {"batch", r.batch},
          {"context_tokens", r.context},
          {"full", step_json(r.full)},
          {"prism", step_json(r.prism)},
          {"speedup", r.speedup},
          {"kv_traffic_reduction", r.kv_traffic_reduction},
          {"quality",
           {{"context_tokens", r.quality_context},
            {"candidates", r.candidates},
            {"trivial", r.trivial},
            {"recall", r.recall},
            {"recall_ci95", r.recall_ci95},
            {"mass_recall", r.mass_recall},
            {"needle_hit", r.needle_hit}}}};
}

}  // namespace lightsim::serve

// Serving (docs/serving.md): serve_run, a request-level simulation of one serving scenario:
// TTFT / TPOT / end-to-end latency percentiles, goodput under the SLOs, tokens/s per GPU, pool
// utilisation, queue length over time and the Little's-law check; serve_validate, the
// simulator beside public measured serving figures (configs/references/serve_measured.yaml).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <optional>
#include <ostream>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/serve/measured.h"
#include "lightsim/serve/prism_loop.h"
#include "lightsim/serve/run.h"

namespace lightsim::ops {

struct ServeRunRequest {
  static constexpr std::string_view kind = "serve_run_request";
  std::string scenario{};
  bool write_requests = false;
  static void describe(config::Schema<ServeRunRequest>& s) {
    s.help("Request of serve run: one serving scenario.");
    s.field("scenario", &ServeRunRequest::scenario,
            "serving scenario name (configs/serve/) or YAML file")
        .required();
    s.field("write_requests", &ServeRunRequest::write_requests,
            "write the simulated requests to <out>/requests.csv, a trace that process: trace "
            "reads back (docs/serving.md, \"Traces\")");
  }
};

struct ServeValidateRequest {
  static constexpr std::string_view kind = "serve_validate_request";
  std::string measurements{};
  static void describe(config::Schema<ServeValidateRequest>& s) {
    s.help("Request of serve validate: the measured serving figures to compare with.");
    s.field("measurements", &ServeValidateRequest::measurements,
            "serve_measurements file (default: configs/references/serve_measured.yaml)");
  }
};

namespace {

// A run, and what Prism in the loop gives it when the scenario enables it.
struct ServeRunResult {
  serve::ServeReport report;
  std::optional<serve::PrismLoopReport> prism;
};

Json serve_run_json(const ServeRunResult& r) {
  Json j = serve::to_json(r.report);
  if (r.prism) j["prism"] = serve::to_json(*r.prism);
  return j;
}

void print_prism(const serve::PrismLoopReport& p, std::ostream& out) {
  fmt::print(out,
             "\n  Prism in the loop ({}; top {} blocks of {} tokens + {} sink and {} recent "
             "tokens), at the run's mean decode batch {} and context {} tokens:\n",
             p.accelerator, p.top_k, p.block_tokens, p.sink_tokens, p.recent_tokens, p.batch,
             p.context);
  fmt::print(out,
             "    decode step {:.3f} ms with Prism vs {:.3f} ms full attention ({:.2f}x), KV read "
             "{:.1f} MB vs {:.1f} MB per step ({:.2f}x less), power {:.0f} W (GPU {:.0f} W + Prism "
             "{:.1f} W) vs {:.0f} W\n",
             p.prism.step_time * 1e3, p.full.step_time * 1e3, p.speedup,
             p.prism.kv_bytes_read / 1e6, p.full.kv_bytes_read / 1e6, p.kv_traffic_reduction,
             p.prism.system_power, p.prism.gpu_power, p.prism.prism_power, p.full.system_power);
  if (p.trivial)
    fmt::print(out, "    retrieval at {} tokens: every block is read (recall 1 by construction)\n",
               p.quality_context);
  else
    fmt::print(out,
               "    retrieval at {} tokens: Recall@{} {:.3f} +- {:.3f} against full attention, "
               "mass recall {:.3f}, needle hits {:.3f} ({} candidate blocks)\n",
               p.quality_context, p.top_k, p.recall, p.recall_ci95, p.mass_recall, p.needle_hit,
               p.candidates);
}

void print_distribution(std::ostream& out, std::string_view name, const serve::Distribution& d) {
  fmt::print(out, "  {:<11} {:>8} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f} {:>10.4f}\n", name,
             d.count, d.mean, d.p50, d.p90, d.p99, d.max);
}

void print_pool(std::ostream& out, std::string_view name, const serve::PoolUsage& u) {
  fmt::print(out,
             "  {:<10} {:>4} instances, {:>5} GPUs, utilisation {:>5.1f}%, {} steps, mean decode "
             "batch {:.1f}\n",
             name, u.instances, u.gpus, 100 * u.utilization, u.steps, u.mean_decode_batch);
}

void print_report(const serve::ServeReport& r, std::ostream& out);

void print_run(const ServeRunResult& r, std::ostream& out) {
  print_report(r.report, out);
  if (r.prism) print_prism(*r.prism, out);
}

void print_report(const serve::ServeReport& r, std::ostream& out) {
  const serve::SimResult& s = r.sim;
  fmt::print(out, "Serving scenario {}: {}\n", r.scenario, r.description);
  fmt::print(out, "  {} pools on {}, {} step model{}, {} arrivals, seed {}\n", r.mode,
             fmt::join(r.pool_fabrics, " -> "), r.step_model,
             r.model.empty() ? "" : " (" + r.model + ")", r.arrivals, r.seed);
  if (r.mode == "disaggregated")
    fmt::print(
        out,
        "  KV transfer over tier {}: {:.1f} GB/s per prefill instance, {:.2f} us, mean {:.3f} ms\n",
        r.kv_tier, r.kv_bandwidth / 1e9, r.kv_latency * 1e6, s.kv_transfer_time * 1e3);
  fmt::print(out,
             "  {} requests offered at {:.2f} req/s: {} completed, {} rejected (KV need above an "
             "instance's capacity); makespan {:.2f} s\n",
             s.requests, s.offered_rate, s.completed, s.rejected, s.makespan);
  fmt::print(out, "\n  {:<11} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "latency (s)", "count",
             "mean", "p50", "p90", "p99", "max");
  print_distribution(out, "TTFT", s.ttft);
  print_distribution(out, "TPOT", s.tpot);
  print_distribution(out, "end to end", s.e2e);
  print_distribution(out, "queue wait", s.queue_wait);
  fmt::print(
      out,
      "\n  SLO TTFT <= {:.3f} s and TPOT <= {:.1f} ms: {} met ({:.1f}%), goodput {:.2f} req/s "
      "(offered rate x share met); completions over the makespan {:.2f} req/s\n",
      r.slo_ttft, r.slo_tpot * 1e3, s.slo_met, 100 * s.slo_attainment, s.goodput, s.throughput);
  fmt::print(out, "  output tokens: {:.0f}/s, {:.1f}/s per GPU ({} GPUs)\n", s.output_tokens_per_s,
             s.tokens_per_s_per_gpu, s.gpus);
  if (r.mode == "colocated") {
    print_pool(out, "colocated", s.colocated);
  } else {
    print_pool(out, "prefill", s.prefill);
    print_pool(out, "decode", s.decode);
  }
  if (r.host) {
    const double busy = s.colocated.busy + s.prefill.busy + s.decode.busy;
    fmt::print(out,
               "  host ({}, {}): {:.3f} ms per step + {:.1f} us per sequence; {:.1f}% of the "
               "step time is host time beyond the GPU's\n",
               r.host->engine, serve::to_string(r.host->overlap), r.host->step_base.si() * 1e3,
               r.host->per_sequence.si() * 1e6, busy > 0 ? 100 * s.host_exposed / busy : 0.0);
  }
  fmt::print(out,
             "  Little's law: L = {:.3f}, lambda W = {:.3f} x {:.4f} s (relative error {:.1e}); "
             "queue L_q = {:.3f}, lambda W_q = {:.3f}\n",
             s.little.l, s.little.lambda, s.little.w, s.little.relative_error, s.little.lq,
             s.little.lambda * s.little.wq);
  if (r.power) {
    const serve::PowerCost& p = *r.power;
    fmt::print(out,
               "  power (mean over the run): GPUs {:.1f} kW, fabric {:.1f} kW ({}), host {:.1f} "
               "kW; IT {:.1f} kW, facility {:.1f} kW\n",
               p.gpu_power / 1e3, p.fabric_power / 1e3, p.fabric_design, p.host_power / 1e3,
               p.it_power / 1e3, p.facility_power / 1e3);
    fmt::print(out,
               "  {:.3f} J per output token, {:.0f} tokens/s per kW, goodput {:.3f} req/s per kW "
               "and {:.4f} per GPU; ${:.2f} per hour (capex ${:.2f}, energy ${:.2f}), ${:.3f} per "
               "million output tokens, {:.0f} SLO-meeting requests per $\n",
               p.energy_per_token, p.output_tokens_per_s_per_kw, p.goodput_per_s_per_kw,
               p.goodput_per_s_per_gpu, p.cost_per_hour, p.capex_per_hour, p.energy_cost_per_hour,
               p.cost_per_million_tokens, p.goodput_per_usd);
  }
  double peak = 0;
  for (const serve::QueuePoint& p : s.queue_series) peak = std::max(peak, p.queued);
  fmt::print(
      out,
      "  queue length over time: {} bins, peak bin mean {:.2f} waiting (--json: queue_series)\n",
      s.queue_series.size(), peak);
}

ServeRunResult evaluate_serve(const ServeRunRequest& q, Env& env) {
  serve::ServeSetup setup =
      serve::prepare(q.scenario, env.load, env.ctx.seed(), env.ctx.memory_budget());
  setup.config.cancel = env.ctx.cancel_flag();
  env.inputs_read();
  if (q.write_requests && !env.out.empty()) {
    prepare_output_dir(env.out);
    write_file_atomic(env.out / "requests.csv", serve::trace_csv(setup.requests));
  }
  ServeRunResult r{serve::run(setup), std::nullopt};
  if (setup.scenario.spec.prism.enabled)
    r.prism = serve::evaluate_prism_loop(setup, r.report, env.load.roots_only(), env.ctx);
  return r;
}

serve::ServeValidationReport evaluate_validate(const ServeValidateRequest& q, Env& env) {
  const config::LoadOptions roots = env.load.roots_only();
  const serve::ServeMeasurements m = serve::load_serve_measurements(roots, q.measurements);
  env.inputs_read();
  return serve::validate(m, roots, env.ctx.seed());
}

void print_validation(const serve::ServeValidationReport& v, std::ostream& out) {
  fmt::print(out, "Serving simulator beside public measured serving figures (fitted: false)\n\n");
  fmt::print(out, "  {:<52} {:<28} {:>10} {:>10} {:>8}\n", "row", "metric", "measured", "ours",
             "error");
  for (const serve::ServeValidationRow& r : v.rows) {
    if (!r.expressed) {
      fmt::print(out, "  {:<52} {:<28} {:>10.4g} {:>10} {:>8}\n      not expressed: {}\n", r.id,
                 r.metric, r.measured, "-", "-", r.not_expressed);
      continue;
    }
    fmt::print(out, "  {:<52} {:<28} {:>10.4g} {:>10.4g} {:>+7.1f}%{}\n", r.id, r.metric,
               r.measured, r.ours, 100 * r.error, r.fitted ? "  (fitted)" : "");
  }
  fmt::print(out, "\n  {} rows compared: median |error| {:.1f}%, worst {:+.1f}%\n", v.compared,
             100 * v.median_abs_error, 100 * v.worst_error);
}

}  // namespace

void register_serve_ops(Registry& registry) {
  add<ServeRunRequest, ServeRunResult>(
      registry,
      {.info = {.name = "serve_run",
                .command = {"serve", "run"},
                .help = "Request-level serving simulation: TTFT/TPOT, goodput, utilisation",
                .positional = {"scenario"}},
       .evaluate = evaluate_serve,
       .to_json = serve_run_json,
       .print = print_run});
  add<ServeValidateRequest, serve::ServeValidationReport>(
      registry, {.info = {.name = "serve_validate",
                          .command = {"serve", "validate"},
                          .help = "The serving simulator beside public measured serving figures",
                          .positional = {}},
                 .evaluate = evaluate_validate,
                 .to_json = [](const serve::ServeValidationReport& v) { return serve::to_json(v); },
                 .print = print_validation});
}

}  // namespace lightsim::ops

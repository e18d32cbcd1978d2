// Decode end to end (docs/decode.md): decode_run, per-token decode latency, power and cost
// with full attention and with Prism-selected KV blocks, for every GPU x batch x context of a
// decode scenario; decode_step, one multi-GPU decode step of a plan with its time breakdown;
// decode_plan, the plan search under a TPOT target; decode_validate, the model beside public
// measured decode throughputs (configs/references/decode_measured.yaml).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>

#include "lightsim/decode/measured.h"
#include "lightsim/decode/plan_search.h"
#include "lightsim/decode/step.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"

namespace lightsim::ops {

struct DecodeRunRequest {
  static constexpr std::string_view kind = "decode_run_request";
  std::string scenario, model{};
  static void describe(config::Schema<DecodeRunRequest>& s) {
    s.help("Request of decode run: one decode scenario.");
    s.field("scenario", &DecodeRunRequest::scenario,
            "decode scenario name (configs/decode/) or YAML file")
        .required();
    s.field("model", &DecodeRunRequest::model,
            "model instead of the scenario's: configs/models/NAME or a config.json path");
  }
};

struct DecodeStepRequest {
  static constexpr std::string_view kind = "decode_step_request";
  std::string scenario{}, plan{};
  std::int64_t batch = 0, context = 0;
  static void describe(config::Schema<DecodeStepRequest>& s) {
    s.help("Request of decode step: one plan of a decode-at-scale scenario.");
    s.field("scenario", &DecodeStepRequest::scenario,
            "decode-at-scale scenario (configs/decode_scale/) or YAML file")
        .required();
    s.field("plan", &DecodeStepRequest::plan,
            "plan, e.g. TP=1,DPA=72,EP=72 (keys TP DPA EP PP MOE; default: the scenario's)");
    s.field("batch", &DecodeStepRequest::batch,
            "sequences on the instance (default: the scenario's)")
        .range(std::int64_t{0}, std::int64_t{1} << 26);
    s.field("context", &DecodeStepRequest::context, "keys per sequence (default: the scenario's)")
        .range(std::int64_t{0}, std::int64_t{1} << 26);
  }
};

struct DecodePlanRequest {
  static constexpr std::string_view kind = "decode_plan_request";
  std::string scenario{};
  std::int64_t gpus = 0;
  static void describe(config::Schema<DecodePlanRequest>& s) {
    s.help("Request of decode plan: the plan search of a decode-at-scale scenario.");
    s.field("scenario", &DecodePlanRequest::scenario,
            "decode-at-scale scenario (configs/decode_scale/) or YAML file")
        .required();
    s.field("gpus", &DecodePlanRequest::gpus, "GPU count (default: the scenario's)")
        .range(std::int64_t{0}, std::int64_t{1} << 20);
  }
};

struct DecodeValidateRequest {
  static constexpr std::string_view kind = "decode_validate_request";
  static void describe(config::Schema<DecodeValidateRequest>& s) {
    s.help("Request of decode validate: no options (configs/references/decode_measured.yaml).");
  }
};

namespace {

void print_grid(const decode::DecodeSetup& setup, const std::vector<decode::Comparison>& grid,
                std::ostream& out) {
  const decode::DecodeScenario& sc = setup.scenario;
  fmt::print(out, "Decode scenario {}: {}\n", sc.name, sc.description);
  fmt::print(
      out,
      "  Prism: accelerator '{}', top-{} blocks of {} tokens + {} sink + {} recent tokens, {} "
      "unit(s)\n",
      sc.prism.accelerator.name(), setup.accelerator.selection.top_k,
      setup.accelerator.programming.block_tokens, sc.prism.sink_tokens, sc.prism.recent_tokens,
      sc.prism.accelerators);
  std::string gpu;
  for (const decode::Comparison& c : grid) {
    if (c.full.gpu != gpu) {
      gpu = c.full.gpu;
      const auto it = std::find_if(sc.gpus.begin(), sc.gpus.end(),
                                   [&](const decode::GpuOption& g) { return g.gpu.name == gpu; });
      fmt::print(out, "\n{} ({}, ${:.2f}/GPU-h)\n", gpu, it->instance, it->price_per_hour_usd);
      fmt::print(
          out,
          "  {:>5} {:>7} | {:>9} {:>9} {:>6} | {:>7} {:>7} | {:>8} {:>8} {:>6} | {:>7} {:>7}\n",
          "batch", "context", "full ms", "prism ms", "ratio", "full W", "prism W", "full $/M",
          "prism $/M", "cost", "KV GB", "KV GB");
    }
    if (!c.full.feasible) {
      fmt::print(out, "  {:>5} {:>7} | does not fit: {}\n", c.full.batch, c.full.context,
                 c.full.reason);
      continue;
    }
    fmt::print(
        out,
        "  {:>5} {:>7} | {:>9.3f} {:>9.3f} {:>5.2f}x | {:>7.1f} {:>7.1f} | {:>8.3f} {:>9.3f} "
        "{:>+5.0f}% | {:>7.3f} {:>7.3f}\n",
        c.full.batch, c.full.context, c.full.step_time * 1e3, c.prism.step_time * 1e3,
        c.latency_ratio(), c.full.system_power, c.prism.system_power,
        c.full.cost_per_million_tokens, c.prism.cost_per_million_tokens, 100 * c.cost_change(),
        c.full.kv_bytes_read / 1e9, c.prism.kv_bytes_read / 1e9);
  }
  fmt::print(
      out,
      "\nms = one decode step (every sequence of the batch gets one token); W = GPU + Prism; "
      "$/M = USD per million tokens; KV GB = KV bytes read per step (full | Prism).\n");
}

struct DecodeResult {
  decode::DecodeSetup setup{};
  std::vector<decode::Comparison> grid{};
};

DecodeResult evaluate_decode(const DecodeRunRequest& q, Env& env) {
  config::LoadOptions scenario_load = env.load;  // --model sets the scenario's model field
  if (!q.model.empty()) scenario_load.assignments.push_back("model=" + q.model);
  DecodeResult r{.setup =
                     decode::prepare(decode::load_scenario(q.scenario, scenario_load), env.load)};
  env.inputs_read();
  r.grid = decode::evaluate_grid(r.setup);
  return r;
}

Json decode_json(const DecodeResult& r) {
  Json points = Json::array();
  for (const decode::Comparison& c : r.grid) {
    points.push_back(decode::to_json(c.full));
    points.push_back(decode::to_json(c.prism));
  }
  return {{"scenario", r.setup.scenario.name}, {"points", points}};
}

// --- decode step ------------------------------------------------------------------------

struct StepResult {
  std::string scenario{};
  std::string fabric{};
  decode::StepBreakdown step{};
};

StepResult evaluate_step_request(const DecodeStepRequest& q, Env& env) {
  const decode::ScaleSetup s =
      decode::prepare(decode::load_scale_scenario(q.scenario, env.load), env.load.roots_only());
  const std::string plan_text = q.plan.empty() ? s.scenario.plan : q.plan;
  LIGHTSIM_CHECK_AS(UsageError, !plan_text.empty(),
                    "decode step: scenario '{}' names no plan; give --plan (e.g. "
                    "TP=1,DPA={},EP={}) or run decode plan",
                    q.scenario, s.scenario.gpus, s.scenario.gpus);
  const decode::DecodePlan plan = decode::parse_plan(plan_text, s.scenario.gpus);
  const std::int64_t batch = q.batch > 0 ? q.batch : s.scenario.batch;
  LIGHTSIM_CHECK_AS(UsageError, batch > 0,
                    "decode step: scenario '{}' sets no batch; give --batch (sequences on the "
                    "instance, >= 1)",
                    q.scenario);
  env.inputs_read();
  const decode::StepEvaluator ev(s);
  const std::string why = ev.validate(plan);
  LIGHTSIM_CHECK_AS(UsageError, why.empty(), "decode step: plan {}: {}", plan_text, why);
  const std::int64_t context = q.context > 0 ? q.context : s.scenario.context;
  return {s.scenario.name, s.topology.name, ev.step_time(plan, batch, context)};
}

void print_breakdown(const decode::StepBreakdown& b, std::ostream& out) {
  const auto ms = [](double v) { return v * 1e3; };
  fmt::print(out, "plan {} on {} GPUs: batch {} ({} per attention group), context {}\n",
             decode::format_plan(b.plan), b.gpus, b.batch, b.sequences_per_group, b.context);
  fmt::print(out,
             "  HBM per GPU: weights {:.1f} GB, KV {:.3f} GB per sequence, usable {:.1f} GB; "
             "holds {} sequences ({:.3g} tokens of KV)\n",
             b.memory.weights / 1e9, b.memory.kv_per_sequence / 1e9, b.memory.capacity / 1e9,
             b.memory.max_batch, b.memory.kv_capacity_tokens);
  if (!b.feasible) {
    fmt::print(out, "  infeasible: {}\n", b.reason);
    return;
  }
  fmt::print(out, "  step {:.3f} ms, TPOT {:.3f} ms, {:.0f} tokens/s ({:.1f} per GPU)\n",
             ms(b.step_time), ms(b.tpot), b.tokens_per_s, b.tokens_per_s_per_gpu);
  fmt::print(out, "  compute (ms):");
  for (std::size_t i = 0; i < decode::kParts; ++i)
    if (b.compute[i] > 0)
      fmt::print(out, " {} {:.3f}", decode::part_name(static_cast<decode::Part>(i)),
                 ms(b.compute[i]));
  fmt::print(out, "\n  communication (ms, exposed):");
  for (std::size_t i = 0; i < decode::kComms; ++i)
    if (b.comm[i] > 0)
      fmt::print(out, " {} {:.3f} ({:.3f})", decode::comm_name(static_cast<decode::Comm>(i)),
                 ms(b.comm[i]), ms(b.exposed[i]));
  fmt::print(out,
             "\n  launch {:.3f} ms ({} kernels), MTP drafts {:.3f} ms, pipeline wait {:.3f} ms\n",
             ms(b.launch), b.kernels, ms(b.mtp_draft), ms(b.pipeline_wait));
  fmt::print(out,
             "  per GPU per step: weights read {:.2f} GB, KV read {:.2f} GB, {:.3g} FLOPs; "
             "routed rows on the busiest rank {:.0f} over {:.1f} experts\n",
             b.weight_bytes_read / 1e9, b.kv_bytes_read / 1e9, b.flops, b.expert_rows,
             b.experts_touched);
}

// --- decode plan ------------------------------------------------------------------------

struct PlanResult {
  std::string scenario{}, fabric{};
  decode::DecodeSearchResult search{};
};

PlanResult evaluate_plan_request(const DecodePlanRequest& q, Env& env) {
  const decode::ScaleSetup s =
      decode::prepare(decode::load_scale_scenario(q.scenario, env.load), env.load.roots_only());
  env.inputs_read();
  const decode::StepEvaluator ev(s);
  const std::int64_t gpus = q.gpus > 0 ? q.gpus : s.scenario.gpus;
  return {s.scenario.name, s.topology.name,
          decode::search(ev, gpus, s.scenario.context, s.scenario.tpot_target.si(),
                         s.scenario.batch, s.scenario.top)};
}

Json plan_json(const PlanResult& r) {
  Json top = Json::array();
  for (const auto& b : r.search.top) top.push_back(decode::to_json(b));
  return {{"scenario", r.scenario},
          {"fabric", r.fabric},
          {"gpus", r.search.gpus},
          {"tpot_target_s", r.search.tpot_target},
          {"plans", r.search.plans},
          {"evaluated", r.search.evaluated},
          {"feasible", r.search.feasible},
          {"best", decode::to_json(r.search.best)},
          {"top", top}};
}

void print_plans(const PlanResult& r, std::ostream& out) {
  fmt::print(out, "{} on {}: {} GPUs, TPOT <= {:.1f} ms; {} plans, {} steps evaluated\n",
             r.scenario, r.fabric, r.search.gpus, r.search.tpot_target * 1e3, r.search.plans,
             r.search.evaluated);
  if (r.search.top.empty()) {
    fmt::print(out, "  no plan meets the target: {}\n", r.search.best.reason);
    return;
  }
  fmt::print(out, "  {:<36} {:>8} {:>9} {:>10} {:>12}\n", "plan", "batch", "TPOT ms", "tok/s/GPU",
             "KV capacity");
  for (const auto& b : r.search.top)
    fmt::print(out, "  {:<36} {:>8} {:>9.2f} {:>10.1f} {:>12}\n", decode::format_plan(b.plan),
               b.batch, b.tpot * 1e3, b.tokens_per_s_per_gpu, b.memory.max_batch);
  fmt::print(out, "\nbest:\n");
  print_breakdown(r.search.best, out);
}

// --- decode validate --------------------------------------------------------------------

decode::ValidationReport evaluate_validate(const DecodeValidateRequest&, Env& env) {
  const config::LoadOptions roots = env.load.roots_only();
  const decode::DecodeMeasurements m = decode::load_decode_measurements(roots);
  env.inputs_read();
  return decode::validate(m, roots);
}

void print_validation(const decode::ValidationReport& v, std::ostream& out) {
  fmt::print(out, "Decode at scale vs public measurements (tokens/s per GPU; none fitted)\n");
  fmt::print(out, "  {:<34} {:>10} {:>10} {:>8}\n", "row", "measured", "ours", "error");
  for (const auto& row : v.rows) {
    if (!row.feasible) {
      fmt::print(out, "  {:<34} {:>10.0f} infeasible: {}\n", row.id, row.measured, row.reason);
      continue;
    }
    fmt::print(out, "  {:<34} {:>10.0f} {:>10.0f} {:>+7.1f}%\n", row.id, row.measured, row.ours,
               100 * row.error);
  }
  fmt::print(out, "  median |error| {:.1f}%, worst {:+.1f}% ({} rows)\n", 100 * v.median_abs_error,
             100 * v.worst_error, v.rows.size());
}

}  // namespace

void register_decode_ops(Registry& registry) {
  add<DecodeStepRequest, StepResult>(
      registry,
      {.info = {.name = "decode_step",
                .command = {"decode", "step"},
                .help = "One multi-GPU decode step of a plan: time breakdown, TPOT, tokens/s",
                .positional = {"scenario"}},
       .evaluate = evaluate_step_request,
       .to_json =
           [](const StepResult& r) {
             Json j = decode::to_json(r.step);
             j["scenario"] = r.scenario;
             j["fabric"] = r.fabric;
             return j;
           },
       .print =
           [](const StepResult& r, std::ostream& out) {
             fmt::print(out, "{} on {}\n", r.scenario, r.fabric);
             print_breakdown(r.step, out);
           }});
  add<DecodePlanRequest, PlanResult>(
      registry, {.info = {.name = "decode_plan",
                          .command = {"decode", "plan"},
                          .help = "Decode plan search: best tokens/s per GPU under a TPOT target",
                          .positional = {"scenario"}},
                 .evaluate = evaluate_plan_request,
                 .to_json = plan_json,
                 .print = print_plans});
  add<DecodeValidateRequest, decode::ValidationReport>(
      registry, {.info = {.name = "decode_validate",
                          .command = {"decode", "validate"},
                          .help = "Decode at scale beside public measured decode throughputs",
                          .positional = {}},
                 .evaluate = evaluate_validate,
                 .to_json = [](const decode::ValidationReport& v) { return decode::to_json(v); },
                 .print = print_validation});
  add<DecodeRunRequest, DecodeResult>(
      registry,
      {.info = {.name = "decode_run",
                .command = {"decode", "run"},
                .help = "Full attention vs Prism-selected blocks for every GPU x batch x context",
                .positional = {"scenario"}},
       .evaluate = evaluate_decode,
       .to_json = decode_json,
       .print = [](const DecodeResult& r, std::ostream& out) {
         print_grid(r.setup, r.grid, out);
       }});
}

}  // namespace lightsim::ops

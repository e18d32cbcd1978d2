// The `decode` study: the seed's 128K decode claim beside the decode module (decode.h).
#include <fmt/format.h>

#include <algorithm>

#include "lightsim/decode/seed.h"
#include "lightsim/decode/step.h"
#include "lightsim/studies/decode.h"
#include "lightsim/studies/runner.h"

namespace lightsim::studies {
namespace {

using report::SeedValue;
using report::Verdict;
using Seed = decode::DecodeSeedReference;
using DecodeRun = Run<DecodeStudySpec, Seed>;

// Smallest feasible batch whose latency ratio reaches `target`, and the largest feasible batch
// with its ratio, for one GPU at one context.
struct Reach {
  std::int64_t first_batch = 0;  // 0: never reached
  std::int64_t max_batch = 0;    // 0: nothing fits
  double max_ratio = 0;
};

Reach reach(const std::vector<decode::Comparison>& grid, const std::string& gpu,
            std::int64_t context, double target) {
  Reach r;
  for (const decode::Comparison& c : grid) {
    if (c.full.gpu != gpu || c.full.context != context || !c.full.feasible) continue;
    if (r.first_batch == 0 && c.latency_ratio() >= target) r.first_batch = c.full.batch;
    if (c.full.batch > r.max_batch) {
      r.max_batch = c.full.batch;
      r.max_ratio = c.latency_ratio();
    }
  }
  return r;
}

std::string at_context(const Seed& s) {
  return fmt::format("{}K", s.context / 1024);
}

void add_grid_tables(DecodeRun& run, const std::vector<decode::Comparison>& grid) {
  run.table("grid", "Per decode step, every GPU x batch x context that fits in HBM",
            {{"gpu", ""},
             {"batch", ""},
             {"context", "tokens"},
             {"full_ms", "ms"},
             {"prism_ms", "ms"},
             {"prism_share", ""},
             {"latency_ratio", "x"},
             {"full_w", "W"},
             {"prism_w", "W"},
             {"full_mj_per_token", "mJ"},
             {"prism_mj_per_token", "mJ"},
             {"full_usd_per_mtok", "USD"},
             {"prism_usd_per_mtok", "USD"},
             {"cost_change_pct", "%"}});
  for (const decode::Comparison& c : grid) {
    if (!c.full.feasible) continue;
    run.add_row("grid", {{"gpu", c.full.gpu},
                         {"batch", c.full.batch},
                         {"context", c.full.context},
                         {"full_ms", c.full.step_time * 1e3},
                         {"prism_ms", c.prism.step_time * 1e3},
                         {"prism_share", c.prism.prism_time / c.prism.step_time},
                         {"latency_ratio", c.latency_ratio()},
                         {"full_w", c.full.system_power},
                         {"prism_w", c.prism.system_power},
                         {"full_mj_per_token", c.full.energy_per_token * 1e3},
                         {"prism_mj_per_token", c.prism.energy_per_token * 1e3},
                         {"full_usd_per_mtok", c.full.cost_per_million_tokens},
                         {"prism_usd_per_mtok", c.prism.cost_per_million_tokens},
                         {"cost_change_pct", 100 * c.cost_change()}});
  }
  run.table("infeasible",
            "Points whose weights + KV cache exceed the usable HBM (either attention)",
            {{"gpu", ""}, {"batch", ""}, {"context", "tokens"}, {"reason", ""}});
  for (const decode::Comparison& c : grid)
    if (!c.full.feasible)
      run.add_row("infeasible", {{"gpu", c.full.gpu},
                                 {"batch", c.full.batch},
                                 {"context", c.full.context},
                                 {"reason", c.full.reason}});
}

void evaluate(DecodeRun& run) {
  const DecodeStudySpec& spec = run.spec;
  const Seed& seed = run.seed;
  const decode::DecodeSetup setup = decode::prepare(spec.scenario.get(), run.presets);
  const decode::DecodeScenario& sc = setup.scenario;
  // The study's grid: its own batches and contexts where given (else the scenario's), and
  // always the seed's context.
  const std::vector<std::int64_t> batches = spec.batches.empty() ? sc.batches : spec.batches;
  std::vector<std::int64_t> contexts = spec.contexts.empty() ? sc.contexts : spec.contexts;
  if (std::find(contexts.begin(), contexts.end(), seed.context) == contexts.end())
    contexts.push_back(seed.context);
  const auto gpu_it = std::find_if(sc.gpus.begin(), sc.gpus.end(),
                                   [&](const auto& g) { return g.gpu.name == spec.seed_gpu; });
  LIGHTSIM_CHECK_AS(ConfigError, gpu_it != sc.gpus.end(),
                    "seed_gpu: no GPU named '{}' in scenario '{}'", spec.seed_gpu, sc.name);
  run.ctx.throw_if_cancelled("decode study");

  const std::vector<decode::Comparison> grid = decode::evaluate_grid(setup, batches, contexts);
  add_grid_tables(run, grid);
  run.ctx.throw_if_cancelled("decode study");

  // The side-by-side point: the seed's GPU, batch and context.
  const decode::Comparison at{
      decode::evaluate_step(setup, *gpu_it, decode::Attention::full, spec.seed_batch, seed.context),
      decode::evaluate_step(setup, *gpu_it, decode::Attention::prism, spec.seed_batch,
                            seed.context)};
  const std::string where =
      fmt::format("{}, batch {}, {} tokens", spec.seed_gpu, spec.seed_batch, seed.context);
  std::string reach_text;
  for (const decode::GpuOption& g : sc.gpus) {
    const Reach re = reach(grid, g.gpu.name, seed.context, seed.latency_ratio);
    reach_text += fmt::format(
        " {}: {}; largest batch that fits {} (ratio {:.2f}).", g.gpu.name,
        re.first_batch
            ? fmt::format("ratio >= {:.1f} from batch {}", seed.latency_ratio, re.first_batch)
            : fmt::format("never reaches {:.1f}", seed.latency_ratio),
        re.max_batch, re.max_ratio);
  }

  if (!at.full.feasible) {
    run.claim("latency_ratio", std::nullopt).explanation =
        fmt::format("the seed's point does not fit ({}): {}.{}", where, at.full.reason, reach_text);
    return;
  }

  {
    report::Claim& c = run.claim("latency_ratio", at.latency_ratio());
    const Reach re = reach(grid, spec.seed_gpu, seed.context, seed.latency_ratio);
    if (c.verdict != Verdict::holds && re.first_batch > 0) {
      c.verdict = Verdict::holds_under_conditions;
      c.conditions = fmt::format("batch >= {} on the {} at {} tokens", re.first_batch,
                                 spec.seed_gpu, seed.context);
    }
    c.explanation = fmt::format(
        "At {} the step reads {:.1f} GB of weights and {:.1f} GB of KV with full attention, "
        "{:.2f} GB of KV with Prism ({} of {} tokens); decode is HBM-bound, so the ratio is "
        "about (W + B KV) / (W + B KV_sel) and grows with the batch B, which the seed does "
        "not state.{}",
        where, at.full.weight_bytes / 1e9, at.full.kv_bytes_read / 1e9,
        at.prism.kv_bytes_read / 1e9, at.prism.attended_tokens, seed.context, reach_text);
  }
  const std::string power_note = fmt::format(
      "GPU + Prism power from the utilization model (idle {:.0f} W, TDP {:.0f} W, memory_share "
      "{:.2f}; HBM utilization {:.2f} full, {:.2f} Prism). Decode is HBM-bound both ways, so the "
      "GPU draws nearly the same power; Prism shortens the step instead. Prism adds {:.2f} W.",
      gpu_it->gpu.idle_power->si(), gpu_it->gpu.tdp->si(), sc.power.memory_share,
      at.full.memory_utilization, at.prism.memory_utilization, at.prism.prism_power);
  run.claim("power_full", at.full.system_power).explanation = power_note;
  run.claim("power_prism", at.prism.system_power).explanation =
      power_note + " A match here is a match of levels only: see power_change.";
  run.claim("power_change", at.prism.system_power - at.full.system_power, where).explanation =
      power_note;
  run.claim("cost_change", 100 * at.cost_change()).explanation = fmt::format(
      "Cost per token = GPU price x step time / batch (${:.2f}/GPU-h, {}); Prism is not "
      "priced (no product), so the change is the change in time per token, 1/ratio - 1. The "
      "seed's {:+.0f}% cost is a {:.2f}x speed-up, not its {:.1f}x latency claim: the two "
      "figures agree only if Prism costs ~{:.0f}% of the GPU's hourly price.",
      gpu_it->price_per_hour_usd, gpu_it->instance, 100 * seed.cost_change,
      1.0 / (1.0 + seed.cost_change), seed.latency_ratio,
      100 * ((1.0 + seed.cost_change) * seed.latency_ratio - 1.0));

  run.table("power_sensitivity", "Power at the seed's point vs the power model's memory_share",
            {{"memory_share", ""}, {"full_w", "W"}, {"prism_w", "W"}});
  for (double s : spec.memory_shares) {
    decode::DecodeSetup alt = setup;
    alt.scenario.power.memory_share = s;
    const auto power = [&](decode::Attention a) {
      return decode::evaluate_step(alt, *gpu_it, a, spec.seed_batch, seed.context).system_power;
    };
    run.add_row("power_sensitivity", {{"memory_share", s},
                                      {"full_w", power(decode::Attention::full)},
                                      {"prism_w", power(decode::Attention::prism)}});
  }

  Chart chart{
      .title = "Latency ratio (full / Prism) vs batch", .table = "grid", .mark = Mark::line_points};
  chart.x = Channel{.field = "batch", .type = "quantitative", .scale = {.type = "log", .base = 2}};
  chart.y =
      Channel{.field = "latency_ratio", .type = "quantitative", .title = "full / Prism latency"};
  chart.color = Channel{.field = "context", .type = "ordinal"};
  chart.column = Channel{.field = "gpu", .type = "nominal"};
  run.chart(chart);
}

using Rule = ClaimRule<DecodeStudySpec, Seed>;

}  // namespace

void DecodeStudySpec::describe(config::Schema<DecodeStudySpec>& s) {
  s.help("The seed's end-to-end decode claim (SPEC.md 1.7) against the decode module.");
  s.field("scenario", &DecodeStudySpec::scenario, "decode scenario (configs/decode/) or file")
      .required();  // the default is only a placeholder
  s.field("reference", &DecodeStudySpec::reference, "seed figures, relative to a config root");
  s.field("seed_gpu", &DecodeStudySpec::seed_gpu, "GPU name of the seed's instance (p4d: A100)");
  s.field("seed_batch", &DecodeStudySpec::seed_batch, "batch of the side-by-side point")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("batches", &DecodeStudySpec::batches, "batch sizes (empty: the scenario's)")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("contexts", &DecodeStudySpec::contexts, "contexts (empty: the scenario's)")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("memory_shares", &DecodeStudySpec::memory_shares,
          "power.memory_share values for the power sensitivity table")
      .range(0.0, 1.0);
  s.field("tolerance", &DecodeStudySpec::tolerance,
          "relative deviation within which a seed figure holds")
      .range(0.0, 1.0);
}

void add_decode_study(Registry& registry) {
  const auto tol = &DecodeStudySpec::tolerance;
  add_study(
      registry,
      Definition<DecodeStudySpec, Seed>{
          .name = "decode",
          .help = "decode end to end: full attention vs Prism (SPEC 1.7)",
          .title = "Decode end to end: full attention vs Prism-selected blocks",
          .spec_section = "SPEC 1.7",
          .reference_key = &DecodeStudySpec::reference,
          .claims =
              {Rule{.id = "latency_ratio",
                    .unit = "x",
                    .tolerance = tol,
                    .text =
                        [](const Seed& s) {
                          return fmt::format("decode latency {:g}x lower at {}", s.latency_ratio,
                                             at_context(s));
                        },
                    .seed = [](const Seed& s) { return SeedValue::point(s.latency_ratio); }},
               Rule{.id = "power_full",
                    .unit = "W",
                    .tolerance = tol,
                    .text =
                        [](const Seed& s) {
                          return fmt::format("power with full attention at {}: {:g} W",
                                             at_context(s), s.power_full.si());
                        },
                    .seed = [](const Seed& s) { return SeedValue::point(s.power_full.si()); }},
               Rule{.id = "power_prism",
                    .unit = "W",
                    .tolerance = tol,
                    .text =
                        [](const Seed& s) {
                          return fmt::format("power with Prism at {}: {:g} W", at_context(s),
                                             s.power_prism.si());
                        },
                    .seed = [](const Seed& s) { return SeedValue::point(s.power_prism.si()); }},
               Rule{.id = "power_change",
                    .unit = "W",
                    .comparison = Comparison::same_sign,
                    .text =
                        [](const Seed& s) {
                          return fmt::format(
                              "Prism {} power at {} ({:g} W -> {:g} W)",
                              s.power_prism.si() < s.power_full.si() ? "lowers" : "raises",
                              at_context(s), s.power_full.si(), s.power_prism.si());
                        },
                    .seed =
                        [](const Seed& s) {
                          return SeedValue::point(s.power_prism.si() - s.power_full.si());
                        }},
               Rule{.id = "cost_change",
                    .unit = "%",
                    .tolerance = tol,
                    .text =
                        [](const Seed& s) {
                          return fmt::format(
                              "about {:.3g}% {} inference cost on a p4d-class "
                              "instance",
                              100 * std::abs(s.cost_change),
                              s.cost_change < 0 ? "lower" : "higher");
                        },
                    .seed = [](const Seed& s) { return SeedValue::point(100 * s.cost_change); }}},
          .evaluate = evaluate});
}

}  // namespace lightsim::studies

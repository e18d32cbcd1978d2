// The serve_prism study (serving.h; docs/studies.md "serve_prism"): Prism on the decode pool at
// long context. Each context is served with full attention and with Prism-selected KV blocks;
// the table sets the speed and power of both beside the selection's retrieval quality at that
// context, so a gain never shows without its accuracy cost.
#include <fmt/format.h>

#include "lightsim/serve/prism_loop.h"
#include "lightsim/serve/run.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/serve_prism.h"

namespace lightsim::studies {

void ServePrismStudySpec::describe(config::Schema<ServePrismStudySpec>& s) {
  s.help(
      "Prism on the decode pool at long context: a serving scenario at each context, with full "
      "attention and with Prism-selected blocks, speed and power beside retrieval quality.");
  s.field("scenario", &ServePrismStudySpec::scenario,
          "serving scenario (configs/serve/) whose prism selector and KV profile are used");
  s.field("contexts", &ServePrismStudySpec::contexts, "prompt tokens per request, one run each")
      .min_items(1)
      .range(std::int64_t{16}, std::int64_t{1} << 21);
  s.field("prompt_tokens_rate", &ServePrismStudySpec::prompt_tokens_rate,
          "prompt tokens offered per second (the request rate is this / context)")
      .range("1 Hz", "1 GHz");
  s.field("requests", &ServePrismStudySpec::requests, "requests per run")
      .range(std::int64_t{1}, std::int64_t{1} << 22);
  s.field("quality_steps", &ServePrismStudySpec::quality_steps,
          "decode queries of the recall measurement on the KV profile")
      .range(std::int64_t{1}, std::int64_t{256});
}

namespace {

using ServePrismRun = Run<ServePrismStudySpec, NoReference>;

void evaluate(ServePrismRun& run) {
  const ServePrismStudySpec& spec = run.spec;
  const serve::LoadedScenario base = serve::load_scenario(spec.scenario, run.presets);
  run.table("contexts", "Full attention vs Prism-selected blocks at each context",
            {{"context", "tokens"},
             {"rate", "1/s"},
             {"tpot_p50_full", "s"},
             {"tpot_p50_prism", "s"},
             {"ttft_p50_full", "s"},
             {"ttft_p50_prism", "s"},
             {"tokens_per_s_per_gpu_full", "1/s"},
             {"tokens_per_s_per_gpu_prism", "1/s"},
             {"goodput_full", "1/s"},
             {"goodput_prism", "1/s"},
             {"decode_batch", ""},
             {"decode_context", "tokens"},
             {"step_speedup", "x"},
             {"kv_traffic_reduction", "x"},
             {"power_full", "W"},
             {"power_prism", "W"},
             {"energy_per_token_full", "J"},
             {"energy_per_token_prism", "J"},
             {"recall", ""},
             {"recall_ci95", ""},
             {"mass_recall", ""},
             {"needle_hit", ""},
             {"trivial", ""}});
  for (std::int64_t context : spec.contexts) {
    run.ctx.throw_if_cancelled(fmt::format("serve_prism (context {})", context));
    serve::LoadedScenario sc = base;
    serve::ArrivalSpec& a = sc.spec.arrivals;
    a.prompt.distribution = serve::LengthDistribution::fixed;
    a.prompt.median = a.prompt.min = a.prompt.max = context;
    a.requests = spec.requests;
    a.rate = Frequency::si(spec.prompt_tokens_rate.si() / static_cast<double>(context));
    sc.spec.prism.workload.steps = spec.quality_steps;
    const auto serve_with = [&](bool prism) {
      serve::LoadedScenario s = sc;
      s.spec.prism.enabled = prism;
      serve::ServeSetup setup = serve::prepare(std::move(s), run.presets, run.ctx.seed());
      setup.config.cancel = run.ctx.cancel_flag();
      return setup;
    };
    const serve::ServeReport full = serve::run(serve_with(false));
    const serve::ServeSetup prism_setup = serve_with(true);
    const serve::ServeReport prism = serve::run(prism_setup);
    const serve::PrismLoopReport p =
        serve::evaluate_prism_loop(prism_setup, prism, run.presets, run.ctx);
    run.add_row("contexts", {{"context", context},
                             {"rate", a.rate.si()},
                             {"tpot_p50_full", full.sim.tpot.p50},
                             {"tpot_p50_prism", prism.sim.tpot.p50},
                             {"ttft_p50_full", full.sim.ttft.p50},
                             {"ttft_p50_prism", prism.sim.ttft.p50},
                             {"tokens_per_s_per_gpu_full", full.sim.tokens_per_s_per_gpu},
                             {"tokens_per_s_per_gpu_prism", prism.sim.tokens_per_s_per_gpu},
                             {"goodput_full", full.sim.goodput},
                             {"goodput_prism", prism.sim.goodput},
                             {"decode_batch", p.batch},
                             {"decode_context", p.context},
                             {"step_speedup", p.speedup},
                             {"kv_traffic_reduction", p.kv_traffic_reduction},
                             {"power_full", p.full.system_power},
                             {"power_prism", p.prism.system_power},
                             {"energy_per_token_full", p.full.energy_per_token},
                             {"energy_per_token_prism", p.prism.energy_per_token},
                             {"recall", p.recall},
                             {"recall_ci95", p.recall_ci95},
                             {"mass_recall", p.mass_recall},
                             {"needle_hit", p.needle_hit},
                             {"trivial", p.trivial}});
  }

  Chart tpot{.title = "Median TPOT vs context: full attention and Prism",
             .table = "contexts",
             .mark = Mark::line_points};
  tpot.fold = {"tpot_p50_full", "tpot_p50_prism"};
  tpot.fold_as = {"attention", "tpot_p50"};
  tpot.x = Channel{.field = "context", .type = "quantitative", .scale = {.type = "log", .base = 2}};
  tpot.y = Channel{.field = "tpot_p50", .type = "quantitative", .title = "median TPOT (s)"};
  tpot.color = Channel{.field = "attention", .type = "nominal"};
  run.chart(tpot);
  Chart quality{.title = "Prism's retrieval quality vs context (the accuracy cost)",
                .table = "contexts",
                .mark = Mark::line_points};
  quality.fold = {"recall", "mass_recall", "needle_hit"};
  quality.fold_as = {"figure", "value"};
  quality.x =
      Channel{.field = "context", .type = "quantitative", .scale = {.type = "log", .base = 2}};
  quality.y = Channel{.field = "value", .type = "quantitative", .title = "recall / mass / hits"};
  quality.color = Channel{.field = "figure", .type = "nominal"};
  run.chart(quality);
}

}  // namespace

void add_serve_prism_study(Registry& registry) {
  add_study(registry,
            Definition<ServePrismStudySpec>{
                .name = "serve_prism",
                .help = "Prism on the decode pool at long context: speed beside recall (#21 5c)",
                .title = "Prism on the decode pool at long context",
                .spec_section = "",
                .evaluate = evaluate});
}

}  // namespace lightsim::studies

// Spec fields of serving scenarios (scenario.h).
#include "lightsim/serve/scenario.h"

#include "lightsim/core/config_files.h"

namespace lightsim::serve {

void LengthSpec::describe(config::Schema<LengthSpec>& s) {
  s.help("Tokens per request of a synthetic workload: fixed, uniform or lognormal (clipped).");
  s.enumeration("distribution", &LengthSpec::distribution,
                {{"fixed", LengthDistribution::fixed},
                 {"uniform", LengthDistribution::uniform},
                 {"lognormal", LengthDistribution::lognormal}},
                "fixed (= median), uniform integers in [min, max], or lognormal(median, sigma) "
                "rounded and clipped to [min, max]");
  s.field("median", &LengthSpec::median, "tokens: the fixed value, or the lognormal median")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("min", &LengthSpec::min, "smallest tokens drawn")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("max", &LengthSpec::max, "largest tokens drawn")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("sigma", &LengthSpec::sigma, "lognormal: standard deviation of ln(tokens)")
      .range(0.0, 5.0);
  s.rule([](const LengthSpec& l) -> std::optional<std::string> {
    if (l.max < l.min) return "'max' must be >= 'min'";
    return std::nullopt;
  });
}

void ArrivalSpec::describe(config::Schema<ArrivalSpec>& s) {
  s.help(
      "Where requests come from: a Poisson or gamma (bursty) arrival process with synthetic "
      "lengths, or a CSV trace (docs/serving.md, \"Traffic\").");
  s.enumeration("process", &ArrivalSpec::process,
                {{"poisson", ArrivalProcess::poisson},
                 {"gamma", ArrivalProcess::gamma},
                 {"trace", ArrivalProcess::trace}},
                "poisson (exponential gaps), gamma (gaps of CV cv), or trace (replay a CSV file)");
  s.field("rate", &ArrivalSpec::rate, "mean arrival rate, requests per second (0: no arrivals)")
      .range("0 Hz", "1 GHz");
  s.field("cv", &ArrivalSpec::cv, "gamma: coefficient of variation of the gaps (1 = Poisson)")
      .range(0.05, 20.0);
  s.field("requests", &ArrivalSpec::requests, "synthetic: requests generated")
      .range(std::int64_t{0}, std::int64_t{1} << 26);
  s.field("prompt", &ArrivalSpec::prompt, "synthetic: prompt tokens per request");
  s.field("output", &ArrivalSpec::output,
          "synthetic: output tokens per request (the first, made by prefill, included)");
  s.field("trace", &ArrivalSpec::trace,
          "trace: CSV file, relative to the scenario's folder, then to each config root");
  s.field("time_column", &ArrivalSpec::time_column,
          "trace: column of the arrival time (s, or YYYY-MM-DD HH:MM:SS; Azure: TIMESTAMP)");
  s.field("prompt_column", &ArrivalSpec::prompt_column,
          "trace: column of the prompt tokens (Azure: ContextTokens)");
  s.field("output_column", &ArrivalSpec::output_column,
          "trace: column of the output tokens (Azure: GeneratedTokens)");
  s.rule([](const ArrivalSpec& a) -> std::optional<std::string> {
    if (a.process == ArrivalProcess::trace && a.trace.empty())
      return "process 'trace' needs a 'trace' file";
    if (a.rate.si() > 0 && a.rate.si() < 1e-6)
      return "'rate' must be 0 (no arrivals) or >= 1 uHz (arrival times stay below ~10^6 s per "
             "request)";
    return std::nullopt;
  });
}

void SloSpec::describe(config::Schema<SloSpec>& s) {
  s.help("Latency targets: a request meets its SLO when TTFT <= ttft and TPOT <= tpot.");
  s.field("ttft", &SloSpec::ttft, "time to first token target").range("1 us", "1 ks");
  s.field("tpot", &SloSpec::tpot, "time per output token target (after the first)")
      .range("1 us", "1 ks");
}

void SchedulerSpec::describe(config::Schema<SchedulerSpec>& s) {
  s.help("Per-instance limits of continuous batching with chunked prefill.");
  s.field("max_batch", &SchedulerSpec::max_batch, "requests resident in one instance's batch")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("token_budget", &SchedulerSpec::token_budget,
          "tokens per step: one per decoding request + the prefill chunk")
      .range(std::int64_t{1}, std::int64_t{1} << 24);
  s.field("block_tokens", &SchedulerSpec::block_tokens, "tokens per KV block (paged KV cache)")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
}

void PoolSpec::describe(config::Schema<PoolSpec>& s) {
  s.help("A pool of identical model instances on one fabric.");
  s.field("fabric", &PoolSpec::fabric,
          "configs/fabrics/ name or YAML file (its GPU runs the pool)");
  s.field("instances", &PoolSpec::instances, "model instances (replicas) in the pool")
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("gpus_per_instance", &PoolSpec::gpus_per_instance, "GPUs holding one instance")
      .range(std::int64_t{1}, std::int64_t{1} << 16);
  s.field("plan", &PoolSpec::plan, "prefill plan of one instance (\"TP=8\"; prefill/plan.h)");
  s.field("decode_plan", &PoolSpec::decode_plan,
          "decode plan of one instance (\"TP=1,DPA=8,EP=8\"; decode/plan.h): decode steps from "
          "the decode-at-scale model on gpus_per_instance GPUs; \"\" = the one-GPU decode step "
          "(gpus_per_instance 1)");
}

void FixedStepSpec::describe(config::Schema<FixedStepSpec>& s) {
  s.help(
      "Fixed step costs: prefill = prefill_base + prefill_per_token x tokens, decode = "
      "decode_base + decode_per_sequence x batch; KV per token and capacity per instance.");
  s.field("prefill_base", &FixedStepSpec::prefill_base, "prefill step time at 0 tokens")
      .range("1 ns", "1 ks");
  s.field("prefill_per_token", &FixedStepSpec::prefill_per_token, "prefill time per token")
      .range("0 s", "1 s");
  s.field("decode_base", &FixedStepSpec::decode_base, "decode step time at batch 0")
      .range("1 ns", "1 ks");
  s.field("decode_per_sequence", &FixedStepSpec::decode_per_sequence, "decode time per sequence")
      .range("0 s", "1 s");
  s.field("kv_bytes_per_token", &FixedStepSpec::kv_bytes_per_token, "KV cache bytes per token")
      .positive();
  s.field("kv_capacity", &FixedStepSpec::kv_capacity, "KV cache bytes per instance").positive();
}

void KvTransferSpec::describe(config::Schema<KvTransferSpec>& s) {
  s.help(
      "The KV transfer of a disaggregated scenario: over tier `tier` of `fabric` (unset: the "
      "prefill pool's), latency + bytes / (tier bandwidth x efficiency x GPUs per prefill "
      "instance).");
  s.field("fabric", &KvTransferSpec::fabric,
          "configs/fabrics/ name or YAML file the KV moves over (unset: the prefill pool's)");
  s.field("tier", &KvTransferSpec::tier, "tier of the prefill pool's fabric (0 = innermost)")
      .range(std::int64_t{0}, std::int64_t{16});
}

void ScenarioSpec::describe(config::Schema<ScenarioSpec>& s) {
  s.help(
      "A serving scenario: model, traffic, SLOs, scheduler limits, colocated or disaggregated "
      "pools and the step model (docs/serving.md).");
  s.field("name", &ScenarioSpec::name, "display name").required();
  s.field("description", &ScenarioSpec::description, "one line on what it studies");
  s.field("model", &ScenarioSpec::model, "configs/models/NAME.json, or a config.json path");
  s.field("dtypes", &ScenarioSpec::dtypes, "number formats (dtype_policy, e.g. {preset: bf16})");
  s.field("hbm_usable_fraction", &ScenarioSpec::hbm_usable_fraction,
          "share of HBM for weights and KV cache (roofline step model)")
      .range(0.1, 1.0);
  s.field("arrivals", &ScenarioSpec::arrivals, "the traffic");
  s.field("slo", &ScenarioSpec::slo, "latency targets of goodput");
  s.field("scheduler", &ScenarioSpec::scheduler, "per-instance scheduler limits");
  s.enumeration("mode", &ScenarioSpec::mode,
                {{"colocated", PoolMode::colocated}, {"disaggregated", PoolMode::disaggregated}},
                "colocated (one pool does prefill and decode) or disaggregated (prefill and decode "
                "pools, KV moved between them)");
  s.field("colocated", &ScenarioSpec::colocated, "mode colocated: the pool");
  s.field("prefill", &ScenarioSpec::prefill, "mode disaggregated: the prefill pool");
  s.field("decode", &ScenarioSpec::decode, "mode disaggregated: the decode pool");
  s.field("kv_transfer", &ScenarioSpec::kv_transfer, "mode disaggregated: the KV transfer");
  s.enumeration("step_model", &ScenarioSpec::step_model,
                {{"roofline", StepModelKind::roofline}, {"fixed", StepModelKind::fixed}},
                "roofline (lightsim's prefill and decode models) or fixed (fixed_steps)");
  s.field("fixed_steps", &ScenarioSpec::fixed_steps, "step_model fixed: the step costs");
  s.field("queue_series_bins", &ScenarioSpec::queue_series_bins,
          "bins of the queue-length time series over the run")
      .range(std::int64_t{1}, std::int64_t{10000});
  s.field("prism", &ScenarioSpec::prism,
          "Prism-selected KV blocks in the decode steps, with the selection's retrieval quality "
          "reported beside the speed (off by default)");
  s.rule([](const ScenarioSpec& sc) -> std::optional<std::string> {
    if (sc.prism.enabled && sc.step_model != StepModelKind::roofline)
      return "prism.enabled needs step_model roofline (decode's Prism step)";
    return std::nullopt;
  });
  s.field("cost_model", &ScenarioSpec::cost_model,
          "configs/cost_models/ name or file: power, energy per token and cost per million "
          "tokens of the run (unset: not reported; docs/serving.md \"Power and cost\")");
  s.field("host", &ScenarioSpec::host,
          "configs/serve_hosts/ name or file: host (CPU) time of each batch step of the serving "
          "engine (scheduling, input preparation, sampling, detokenization, API server); unset: "
          "steps are GPU time only (docs/serving.md \"Host overhead\")");
}

LoadedScenario load_scenario(const std::string& name_or_file, const config::LoadOptions& options) {
  LoadedScenario out;
  out.file =
      config::find_named(name_or_file, ScenarioSpec::preset_dir, options, "serving scenario");
  out.spec = config::load_spec<ScenarioSpec>(out.file, options);
  return out;
}

std::string_view to_string(PoolMode m) {
  return m == PoolMode::colocated ? "colocated" : "disaggregated";
}

std::string_view to_string(ArrivalProcess p) {
  switch (p) {
    case ArrivalProcess::poisson:
      return "poisson";
    case ArrivalProcess::gamma:
      return "gamma";
    case ArrivalProcess::trace:
      return "trace";
  }
  return "?";
}

}  // namespace lightsim::serve

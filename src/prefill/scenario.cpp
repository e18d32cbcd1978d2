// Spec fields of prefill scenarios and of the seed's study figures (scenario.h).
#include "lightsim/prefill/scenario.h"

#include <filesystem>

#include "lightsim/core/config_files.h"

namespace lightsim::prefill {

void RoutingSpec::describe(config::Schema<RoutingSpec>& s) {
  s.help("How routed tokens spread over experts and how experts are laid onto EP ranks.");
  s.enumeration("distribution", &RoutingSpec::distribution,
                {{"uniform", RoutingDistribution::uniform},
                 {"zipf", RoutingDistribution::zipf},
                 {"histogram", RoutingDistribution::histogram}},
                "expert load distribution: uniform, zipf (p_i ~ 1/i^s), or histogram");
  s.field("zipf_s", &RoutingSpec::zipf_s, "Zipf exponent s (0 = uniform)").range(0.0, 4.0);
  s.field("histogram", &RoutingSpec::histogram,
          "relative load of each routed expert (as many values as routed experts)")
      .min(0.0);
  s.enumeration("placement", &RoutingSpec::placement,
                {{"round_robin", ExpertPlacement::round_robin},
                 {"contiguous", ExpertPlacement::contiguous},
                 {"balanced", ExpertPlacement::balanced}},
                "expert placement on EP ranks: round_robin (i mod EP), contiguous (hot experts "
                "together), balanced (greedy longest-first)");
  s.field("redundant_experts", &RoutingSpec::redundant_experts,
          "extra replicas given to the hottest experts (load balancer)")
      .range(std::int64_t{0}, std::int64_t{100000});
  s.rule([](const RoutingSpec& r) -> std::optional<std::string> {
    if (r.distribution == RoutingDistribution::histogram && r.histogram.empty())
      return "distribution 'histogram' needs a non-empty 'histogram' list";
    return std::nullopt;
  });
}

void ScenarioSpec::describe(config::Schema<ScenarioSpec>& s) {
  s.help(
      "A prefill scenario: model, number formats, request shape, routing, the fabrics and GPU "
      "counts to study, and fixed communication-limited plans (docs/prefill.md).");
  s.field("name", &ScenarioSpec::name, "display name").required();
  s.field("description", &ScenarioSpec::description, "one line on what it studies");
  s.field("model", &ScenarioSpec::model, "configs/models/NAME.json, or a config.json path")
      .required();
  s.field("dtypes", &ScenarioSpec::dtypes, "number formats (dtype_policy, e.g. {preset: fp4})");
  s.field("attention_dtype", &ScenarioSpec::attention_dtype,
          "format of the attention score/value products; empty = the KV-cache format")
      .one_of({"", "bf16", "fp8", "fp4"});
  s.field("expert_dtype", &ScenarioSpec::expert_dtype,
          "format of the routed experts' weights, activations and dispatch (e.g. fp4 experts "
          "beside fp8 dense layers); empty = dtypes.weights / dtypes.activations")
      .one_of({"", "bf16", "fp8", "fp4"});
  s.field("sequence_length", &ScenarioSpec::sequence_length, "prompt tokens per request")
      .range(std::int64_t{1}, std::int64_t{1} << 26);
  s.field("requests", &ScenarioSpec::requests, "requests prefilled together (the batch)")
      .range(std::int64_t{1}, std::int64_t{1} << 24);
  s.field("routing", &ScenarioSpec::routing, "expert routing statistics");
  s.field("ring_overlap", &ScenarioSpec::ring_overlap,
          "ring context-parallel steps overlap attention compute");
  s.field("two_microbatch_overlap", &ScenarioSpec::two_microbatch_overlap,
          "expert all-to-all of one micro-batch overlaps compute of the other (DeepSeek)");
  s.field("ep_comm_sms", &ScenarioSpec::ep_comm_sms,
          "SMs the expert all-to-all kernels hold while they run (DeepEP normal mode, default "
          "20); compute beside them runs on the GPU's other SMs")
      .range(std::int64_t{0}, std::int64_t{4096});
  s.field("gemm_sm_cap", &ScenarioSpec::gemm_sm_cap,
          "under two-micro-batch overlap, GEMMs run on sm_count - ep_comm_sms SMs for the whole "
          "layer, as SGLang caps DeepGEMM (configure_deep_gemm_num_sms)");
  s.field("hbm_usable_fraction", &ScenarioSpec::hbm_usable_fraction,
          "share of HBM available to weights, KV cache, activations and buffers")
      .range(0.1, 1.0);
  s.field("fabrics", &ScenarioSpec::fabrics,
          "fabrics (configs/fabrics/) to compare; the first is the baseline")
      .min_items(1);
  s.field("gpu_counts", &ScenarioSpec::gpu_counts, "GPU counts studied")
      .min_items(1)
      .range(std::int64_t{1}, std::int64_t{1} << 20);
  s.field("fixed_plans", &ScenarioSpec::fixed_plans,
          "fixed plans (\"TP=1,EP=144,CP=1\") that force communication-limited placements");
  s.field("seed_key", &ScenarioSpec::seed_key,
          "which figures of configs/references/prefill_study_seed.yaml belong to it");
}

void SeedFigure::describe(config::Schema<SeedFigure>& s) {
  s.help("One published figure of the seed's prefill study (a value or a range).");
  s.field("scenario", &SeedFigure::scenario, "seed_key of the scenario, or 'all'").required();
  s.field("figure", &SeedFigure::figure, "what it measures")
      .one_of({"speedup", "speedup_stressed", "speedup_comm_limited", "speedup_production",
               "tokens_per_s_per_gpu_baseline", "tokens_per_s_per_gpu_photonic"})
      .required();
  s.field("low", &SeedFigure::low, "value, or the low end of a range").min(0.0).required();
  s.field("high", &SeedFigure::high, "high end of a range (= low for a value)").min(0.0).required();
  s.field("text", &SeedFigure::text, "the seed's wording");
  s.rule([](const SeedFigure& f) -> std::optional<std::string> {
    if (f.high < f.low) return "'high' must be >= 'low'";
    return std::nullopt;
  });
}

void StudySeedReference::describe(config::Schema<StudySeedReference>& s) {
  s.help(
      "The seed's published prefill-study figures, printed beside computed values and never "
      "used as inputs.");
  s.field("source", &StudySeedReference::source, "where the figures come from");
  s.field("figures", &StudySeedReference::figures, "the figures").min_items(1);
}

void Measurement::describe(config::Schema<Measurement>& s) {
  s.help("A published measurement of a deployed prefill system, used to validate the model.");
  s.field("id", &Measurement::id, "unique name of the row (default: the scenario's name)");
  s.field("scenario", &Measurement::scenario,
          "configs/scenarios/ name restating the measured deployment")
      .required();
  s.field("plan", &Measurement::plan, "the deployed plan (\"TP=1,CP=1,EP=32,DP=1\")").required();
  s.field("gpus", &Measurement::gpus, "GPUs of the measured unit")
      .range(std::int64_t{1}, std::int64_t{1} << 20)
      .required();
  s.field("tokens_per_s_per_gpu", &Measurement::tokens_per_s_per_gpu,
          "measured computed (not cache-hit) prefill tokens/s per GPU")
      .positive()
      .required();
  s.field("source", &Measurement::source, "where the figure is published").required();
  s.field("text", &Measurement::text, "how the figure is read from the source");
  s.field("fitted", &Measurement::fitted,
          "true when the figure was used to fit a parameter: then it is excluded from the "
          "validation error")
      .required();
}

void MeasurementReference::describe(config::Schema<MeasurementReference>& s) {
  s.help(
      "Published measurements of deployed prefill systems (not seed figures): the copper "
      "model is validated against them, never fitted to them.");
  s.field("measurements", &MeasurementReference::measurements, "the measurements").min_items(1);
  s.rule([](const MeasurementReference& r) -> std::optional<std::string> {
    for (std::size_t i = 0; i < r.measurements.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (r.measurements[i].name() == r.measurements[j].name())
          return fmt::format("measurements[{}] repeats the id '{}' of measurements[{}]", i,
                             r.measurements[i].name(), j);
    return std::nullopt;
  });
}

ScenarioSpec load_scenario(const std::string& name_or_file, const config::LoadOptions& options) {
  return config::load_spec<ScenarioSpec>(
      config::find_named(name_or_file, ScenarioSpec::preset_dir, options, "scenario"), options);
}

model::Transformer load_model(const std::string& name_or_file, const config::LoadOptions& options) {
  return model::load_hf_config(config::find_named(name_or_file, "models", options, "model"));
}

// Published figures are never overridden: --set addresses the configs that are inputs.
StudySeedReference load_study_seed(const config::LoadOptions& options) {
  const config::LoadOptions roots = options.roots_only();
  return config::load_spec<StudySeedReference>(
      config::find_named("prefill_study_seed", "references", roots, "reference"), roots);
}

MeasurementReference load_measurements(const config::LoadOptions& options) {
  const config::LoadOptions roots = options.roots_only();
  return config::load_spec<MeasurementReference>(
      config::find_named("prefill_measured", "references", roots, "reference"), roots);
}

}  // namespace lightsim::prefill

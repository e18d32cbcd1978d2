// The system studies: the seed's prefill study on both fabrics, the Prism accelerator's cost
// and timeline, and its 10 s thermal run, each as a report::StudyResult (docs/studies.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/prism/cost.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {

// configs/studies/prefill.yaml.
struct PrefillStudySpec {
  static constexpr std::string_view kind = "prefill_study";
  std::vector<std::string> scenarios{"seed_8k", "seed_128k", "seed_1m"};
  std::vector<std::int64_t> gpu_counts;  // empty = each scenario's own counts
  bool fixed_plans = true;               // run the scenarios' communication-limited plans
  // Relative band around the seed's figure within which ours counts as reproducing it.
  double agreement = 0.1;
  // Scenarios of configs/references/prefill_measured.yaml whose published measurement is
  // printed beside our figure for the deployed plan (a validation, not a seed claim).
  // Empty: every measurement of the file.
  std::vector<std::string> validations{};
  // Assumptions of prefill/sensitivity.h under which every scenario is rerun and the seed's
  // figures judged again (docs/prefill.md, "Sensitivity of the verdicts"); empty: none.
  std::vector<std::string> sensitivity{
      "compute_efficiency_half", "free_overlap",   "no_two_microbatch_overlap",
      "no_ring_overlap",         "skewed_routing", "skewed_routing_eplb"};
  static void describe(config::Schema<PrefillStudySpec>& s);
};

// configs/studies/prism.yaml.
struct PrismStudySpec {
  static constexpr std::string_view kind = "prism_study";
  std::vector<std::string> presets{"seed", "scaled", "multichip", "soi"};
  std::string seed_preset = "seed";  // the preset whose figures are set beside the seed's
  std::string soi_preset = "soi";    // compared with seed_preset like for like
  double agreement = 0.1;
  static void describe(config::Schema<PrismStudySpec>& s);
};

// configs/studies/thermal.yaml.
struct ThermalStudySpec {
  static constexpr std::string_view kind = "thermal_study";
  std::string accelerator = "seed";
  Time duration = Time::si(10.0);
  Time trace_interval = Time::si(10e-3);
  Power load_step = Power::si(0.0);
  std::int64_t max_rows = 2000;  // trace rows kept in the result (decimated evenly)
  // Recall@k under the run's drift on a synthetic cache (prism/drift_recall.h); 0: skipped.
  std::int64_t recall_tokens = 8192;
  std::int64_t recall_steps = 8;
  static void describe(config::Schema<ThermalStudySpec>& s);
};

// Total system power at full rate: every per-query energy (static shares included) x the
// system query rate (the prism and energy studies' TFLN vs SOI figure); without the TEC's
// power when `with_tec` is false (a TEC the cost model left out, tec_included false, is in
// neither).
double full_rate_power(const prism::CostReport& r, bool with_tec = true);

// Whether the TFLN vs SOI comparison can include the TECs: only when both TECs hold their chip
// (prism::steady_state feasible, CostReport::tec_included). An infeasible TEC's power is not a
// figure (the fixed point of the pumping power has no solution), so the comparison then leaves both
// TECs out, says so with the reason, and never uses the number.
struct TecComparison {
  bool with_tec = true;
  std::string note;  // "" when with_tec; else which TEC fails and why
};
TecComparison tec_comparison(const prism::CostReport& tfln, std::string_view tfln_name,
                             const prism::CostReport& soi, std::string_view soi_name);

// Register the studies `prefill`, `prism` and `thermal` (spec kind and definition; runner.h).
void add_prefill_study(Registry& registry);
void add_prism_study(Registry& registry);
void add_thermal_study(Registry& registry);

// Claim identifier from free text: lower case, [a-z0-9_] only, runs of others as one '_'.
std::string claim_id(std::string_view text);

}  // namespace lightsim::studies

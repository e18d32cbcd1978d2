// The `rejudge` study (docs/studies.md, "rejudge"): every claim of the Prism retrieval studies
// recomputed on each calibrated KV profile (configs/kv/*-layered.yaml, docs/kv-data.md), each
// figure with its 95% interval; a claim whose verdict differs between profiles "depends on
// the workload". The studies run through the one study runner (run_study) with their own
// configs, `workload.preset` set to the profile and the `set` assignments of their entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/registry.h"
#include "lightsim/report/result.h"

namespace lightsim::studies {

// One study re-judged: its name and the assignments (key.path=value of its own config, as
// --set) that size its sampling for the re-judging run.
struct RejudgeStudyEntry {
  static constexpr std::string_view kind = "rejudge_study_entry";
  std::string study;
  std::vector<std::string> set;
  static void describe(config::Schema<RejudgeStudyEntry>& s);
};

struct RejudgeStudySpec {
  static constexpr std::string_view kind = "rejudge_study";
  // The kv_synthetic preset the studies' configs name today: judged beside the profiles and
  // compared with them ("changed"), not part of the across-profile verdict.
  std::string plain_profile = "qwen2.5-7b";
  std::vector<std::string> profiles;  // kv_synthetic presets (configs/kv/NAME.yaml)
  std::vector<RejudgeStudyEntry> studies;
  double max_ci95 = 0.03;  // target 95% half-width of every sampled figure (flagged beyond)
  static void describe(config::Schema<RejudgeStudySpec>& s);
};

// The verdict of one claim judged on several workloads: their common verdict when all agree
// (holds and holds_under_conditions agree as holds_under_conditions); depends_on_workload when
// any two differ otherwise. An empty list is an InternalError.
report::Verdict across_workloads(const std::vector<report::Verdict>& verdicts);

// Registers the study `rejudge`. It runs other studies of `registry`, which must outlive it.
void add_rejudge_study(Registry& registry);

}  // namespace lightsim::studies

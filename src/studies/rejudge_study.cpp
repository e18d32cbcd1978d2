// The `rejudge` study (include/lightsim/studies/rejudge.h; docs/studies.md, "rejudge").
#include "lightsim/studies/rejudge.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "lightsim/core/config_files.h"
#include "lightsim/core/error.h"
#include "lightsim/kv/generator.h"
#include "lightsim/studies/runner.h"
#include "lightsim/studies/study.h"

namespace lightsim::studies {
namespace {

// A profile name as a table column: every character outside [A-Za-z0-9] becomes '_'.
std::string column_of(const std::string& profile) {
  std::string c = profile;
  for (char& ch : c)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  if (c.empty() || std::isdigit(static_cast<unsigned char>(c.front()))) c = "p_" + c;
  return c;
}

bool holds_family(report::Verdict v) {
  return v == report::Verdict::holds || v == report::Verdict::holds_under_conditions;
}

}  // namespace

void RejudgeStudyEntry::describe(config::Schema<RejudgeStudyEntry>& s) {
  s.help("One study re-judged on every KV profile, with the assignments that size its sampling.");
  s.field("study", &RejudgeStudyEntry::study,
          "a registered study whose config has a `workload` (kv_synthetic) key");
  s.field(
      "set", &RejudgeStudyEntry::set,
      "key.path=value assignments to the study's own config, as --set (e.g. workload.steps=32)");
}

void RejudgeStudySpec::describe(config::Schema<RejudgeStudySpec>& s) {
  s.help(
      "Re-judge the Prism retrieval studies on calibrated KV profiles: each claim on each "
      "profile with its 95% interval; a verdict that differs between profiles depends on the "
      "workload.");
  s.field("plain_profile", &RejudgeStudySpec::plain_profile,
          "the kv_synthetic preset the studies' configs use today (shown beside, not judged "
          "across)");
  s.field("profiles", &RejudgeStudySpec::profiles,
          "calibrated kv_synthetic presets (configs/kv/NAME.yaml) every study runs on")
      .min_items(1);
  s.field("studies", &RejudgeStudySpec::studies, "the studies re-judged, in order").min_items(1);
  s.field("max_ci95", &RejudgeStudySpec::max_ci95,
          "target 95% half-width of every sampled figure; wider ones are flagged")
      .range(0.0, 1.0);
  s.rule([](const RejudgeStudySpec& v) -> std::optional<std::string> {
    std::set<std::string> columns{column_of(v.plain_profile)};
    for (const std::string& p : v.profiles)
      if (!columns.insert(column_of(p)).second)
        return fmt::format("profiles: '{}' is listed twice (or is the plain_profile)", p);
    std::set<std::string> names;
    for (const RejudgeStudyEntry& e : v.studies)
      if (!names.insert(e.study).second)
        return fmt::format("studies: '{}' is listed twice", e.study);
    return std::nullopt;
  });
}

report::Verdict across_workloads(const std::vector<report::Verdict>& verdicts) {
  LIGHTSIM_CHECK(!verdicts.empty(), "across_workloads of no verdict");
  const report::Verdict first = verdicts.front();
  if (std::all_of(verdicts.begin(), verdicts.end(), [&](report::Verdict v) { return v == first; }))
    return first;
  if (std::all_of(verdicts.begin(), verdicts.end(), holds_family))
    return report::Verdict::holds_under_conditions;
  return report::Verdict::depends_on_workload;
}

namespace {

using RejudgeRun = Run<RejudgeStudySpec, NoReference>;

// One claim as judged on one profile.
struct Judged {
  std::string profile;
  const report::Claim* claim = nullptr;  // nullptr: that run has no claim of this id
};

// "does not hold: 0.452 ± 0.015" (the figure with its interval when it has one).
std::string cell_text(const report::Claim* c) {
  if (c == nullptr) return "no such claim";
  std::string t(report::to_string(c->verdict));
  if (c->ours) {
    t += fmt::format(": {:.4g}", *c->ours);
    if (c->ours_ci95) t += fmt::format(" ± {:.2g}", *c->ours_ci95);
    if (!c->unit.empty()) t += " " + c->unit;
  }
  return t;
}

void check_profile(const RejudgeRun& run, const std::string& key, const std::string& profile) {
  try {
    (void)config::load_spec<kv::KvGeneratorSpec>(
        config::find_named(profile, kv::KvGeneratorSpec::preset_dir, run.presets, "KV profile"),
        run.presets);
  } catch (const InputError& e) {
    LIGHTSIM_THROW(ConfigError, "{}: {}: {}", run.config_file.string(), key, e.what());
  }
}

// Where the study `entry` runs on `profile`: its config file and the load options carrying
// the entry's assignments and the profile.
struct ProfileInput {
  std::filesystem::path file;
  config::LoadOptions load;
};

ProfileInput profile_input(const Registry& registry, const RejudgeRun& run,
                           const RejudgeStudyEntry& entry, std::size_t index,
                           const std::string& profile) {
  const std::string key = fmt::format("studies[{}]", index);
  const std::vector<std::string> names = study_names(registry);
  LIGHTSIM_CHECK_AS(ConfigError, std::find(names.begin(), names.end(), entry.study) != names.end(),
                    "{}: {}.study: unknown study '{}'{}", run.config_file.string(), key,
                    entry.study, config::suggest(entry.study, names));
  config::LoadOptions load = run.presets;
  std::vector<std::string> texts = entry.set;
  texts.push_back("workload.preset=" + profile);
  load.assignments = config::Assignments(texts);
  const std::filesystem::path file = default_config(entry.study, load);
  const StudyInput input = make_input(entry.study, file, run.presets, run.size);
  LIGHTSIM_CHECK_AS(ConfigError, input.document.find("workload") != nullptr,
                    "{}: {}.study: '{}' has no `workload` key to run on a KV profile ({})",
                    run.config_file.string(), key, entry.study, file.string());
  return {file, load};
}

// The study `entry` on `profile`, through the one study runner at the run's size.
report::StudyResult run_on_profile(const Registry& registry, RejudgeRun& run,
                                   const RejudgeStudyEntry& entry, std::size_t index,
                                   const std::string& profile) {
  const std::string key = fmt::format("studies[{}]", index);
  const auto [file, load] = profile_input(registry, run, entry, index, profile);
  run.ctx.log().info("rejudge: {} on {}", entry.study, profile);
  report::StudyResult r = run_study(registry, entry.study, file, load, run.size, run.ctx);
  try {
    load.assignments.require_all_used();
  } catch (const UsageError& e) {
    LIGHTSIM_THROW(ConfigError, "{}: {}.set: {}", run.config_file.string(), key, e.what());
  }
  return r;
}

const report::Claim* find_claim(const report::StudyResult& r, const std::string& id) {
  for (const report::Claim& c : r.claims)
    if (c.id == id) return &c;
  return nullptr;
}

void evaluate(RejudgeRun& run, const Registry& registry) {
  const RejudgeStudySpec& spec = run.spec;
  check_profile(run, "plain_profile", spec.plain_profile);
  for (std::size_t i = 0; i < spec.profiles.size(); ++i)
    check_profile(run, fmt::format("profiles[{}]", i), spec.profiles[i]);
  std::vector<std::string> all{spec.plain_profile};
  all.insert(all.end(), spec.profiles.begin(), spec.profiles.end());
  // Every run's memory estimate before the first runs (study.h, StudyMemoryCheck).
  for (std::size_t i = 0; i < spec.studies.size(); ++i)
    for (const std::string& p : all) {
      const auto [file, load] = profile_input(registry, run, spec.studies[i], i, p);
      check_study_memory(registry, spec.studies[i].study, file, load, run.size,
                         run.ctx.memory_budget(), run.ctx.threads());
    }

  run.table("verdicts", "Every claim on every KV profile (the plain preset first)",
            {{"study", ""},
             {"claim", ""},
             {"profile", ""},
             {"plain", ""},
             {"verdict", ""},
             {"has_figure", ""},
             {"ours", ""},
             {"ci95", ""},
             {"ci_within_target", ""}});
  std::vector<Column> pivot{{"claim", ""}, {"plain_verdict", ""}};
  for (const std::string& p : spec.profiles) pivot.push_back({column_of(p), ""});
  pivot.push_back({"across_profiles", ""});
  pivot.push_back({"changed", ""});
  Table verdict_table(pivot);

  for (std::size_t i = 0; i < spec.studies.size(); ++i) {
    const RejudgeStudyEntry& entry = spec.studies[i];
    std::vector<report::StudyResult> results;
    for (const std::string& p : all) results.push_back(run_on_profile(registry, run, entry, i, p));
    for (const report::Claim& base : results.front().claims) {
      std::vector<Judged> judged;
      for (std::size_t p = 0; p < all.size(); ++p)
        judged.push_back({all[p], find_claim(results[p], base.id)});
      std::vector<report::Verdict> verdicts;
      std::vector<std::string> wide;
      for (std::size_t p = 0; p < judged.size(); ++p) {
        const report::Claim* c = judged[p].claim;
        const bool figure = c != nullptr && c->ours.has_value();
        const double ci = figure && c->ours_ci95 ? *c->ours_ci95 : 0.0;
        const bool within = ci <= spec.max_ci95;
        if (!within) wide.push_back(fmt::format("{} (±{:.2g})", judged[p].profile, ci));
        run.add_row("verdicts",
                    {{"study", entry.study},
                     {"claim", base.id},
                     {"profile", judged[p].profile},
                     {"plain", p == 0},
                     {"verdict", c ? std::string(report::to_string(c->verdict)) : "no such claim"},
                     {"has_figure", figure},
                     {"ours", figure ? *c->ours : 0.0},
                     {"ci95", ci},
                     {"ci_within_target", within}});
        if (p > 0) verdicts.push_back(c ? c->verdict : report::Verdict::not_comparable);
      }
      const report::Verdict across = across_workloads(verdicts);
      const bool changed = across != base.verdict;
      std::vector<Cell> row{entry.study + "/" + base.id, cell_text(&base)};
      for (std::size_t p = 1; p < judged.size(); ++p) row.push_back(cell_text(judged[p].claim));
      row.push_back(std::string(report::to_string(across)));
      row.push_back(changed);
      verdict_table.add_row(std::move(row));

      report::Claim& c =
          run.qualitative(entry.study + "_" + base.id, entry.study + ": " + base.claim, base.unit);
      c.seed_value = base.seed_value;
      c.verdict = across;
      if (across == report::Verdict::holds_under_conditions) {
        for (const Judged& j : judged)
          if (j.claim && !j.claim->conditions.empty()) {
            c.conditions = j.claim->conditions;
            break;
          }
        if (c.conditions.empty()) c.conditions = "as each profile's study states";
      }
      std::string per;
      for (std::size_t p = 1; p < judged.size(); ++p)
        per += fmt::format("{}{}: {}", p > 1 ? "; " : "", judged[p].profile,
                           cell_text(judged[p].claim));
      c.explanation =
          fmt::format("{}On each calibrated profile: {}. On the plain preset {}: {}{}.{}",
                      across == report::Verdict::depends_on_workload
                          ? "The verdict differs between the calibrated profiles. "
                          : "",
                      per, spec.plain_profile, cell_text(&base),
                      changed ? " (the verdict across profiles differs from it)" : "",
                      wide.empty() ? ""
                                   : fmt::format(" Interval wider than the ±{:.2g} target: {}.",
                                                 spec.max_ci95, fmt::join(wide, ", ")));
    }
  }
  run.add_built_table("verdict_table",
                      "Verdict per claim and KV profile (figure ± 95% interval); `changed`: the "
                      "verdict across profiles differs from the plain preset's",
                      std::move(verdict_table));
}

}  // namespace

void add_rejudge_study(Registry& registry) {
  registry.add_spec<RejudgeStudyEntry>();
  const Registry* studies = &registry;
  add_study(registry,
            Definition<RejudgeStudySpec>{
                .name = "rejudge",
                .help = "every Prism retrieval claim re-judged on each calibrated KV profile",
                .title = "The Prism verdicts re-judged on calibrated KV profiles",
                .spec_section = "SPEC 1.3-1.6",
                .evaluate = [studies](RejudgeRun& run) { evaluate(run, *studies); }});
}

}  // namespace lightsim::studies

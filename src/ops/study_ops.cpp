// Named studies (docs/studies.md): study_run, one registered study at a size, its result
// written to --out (<name>.json and a CSV per table) and its claims printed beside the seed's
// figures.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <optional>
#include <ostream>

#include "lightsim/core/atomic_file.h"
#include "lightsim/ops/operation.h"
#include "lightsim/ops/register.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/study.h"

namespace lightsim::ops {

struct StudyRunRequest {
  static constexpr std::string_view kind = "study_run_request";
  std::string name{};
  std::string config{};  // "" = configs/studies/<name>.yaml
  bool quick = false, full = false;
  static void describe(config::Schema<StudyRunRequest>& s) {
    s.help("Request of study run: one registered study at a size.");
    s.field("name", &StudyRunRequest::name, "study name (`lightsim study list`)").required();
    s.field("config", &StudyRunRequest::config,
            "study config file (default configs/studies/NAME.yaml)");
    s.field("quick", &StudyRunRequest::quick, "smoke-test size (the config's sizes.quick)");
    s.field("full", &StudyRunRequest::full, "publication size (the config's sizes.full)");
    s.rule([](const StudyRunRequest& r) -> std::optional<std::string> {
      if (r.quick && r.full) return "quick and full exclude each other";
      return std::nullopt;
    });
  }
};

namespace {

std::string format_value(std::optional<double> v) {
  return v ? fmt::format("{:.4g}", *v) : std::string("-");
}

std::string format_seed(const report::SeedValue& s) {
  switch (s.kind) {
    case report::SeedValue::Kind::none:
      return "-";
    case report::SeedValue::Kind::point:
      return fmt::format("{:.4g}", s.lo);
    case report::SeedValue::Kind::range:
      return fmt::format("{:.4g}..{:.4g}", s.lo, s.hi);
  }
  return "-";
}

struct StudyRun {
  report::StudyResult result{};
  std::filesystem::path written{};
};

StudyRun evaluate_study_run(const StudyRunRequest& q, Env& env) {
  const studies::Size size = q.full    ? studies::Size::full
                             : q.quick ? studies::Size::quick
                                       : studies::Size::standard;
  // Unknown names fail before the output folder is touched.
  const auto names = studies::study_names(env.registry);
  if (std::find(names.begin(), names.end(), q.name) == names.end())
    LIGHTSIM_THROW(UsageError, "unknown study '{}'{}", q.name, config::suggest(q.name, names));
  const std::filesystem::path file = q.config.empty() ? studies::default_config(q.name, env.load)
                                                      : std::filesystem::path(q.config);
  (void)env.registry.check_file(file, env.load);  // the study's config at every size, --set applied
  env.inputs_read();
  studies::check_study_memory(env.registry, q.name, file, env.load, size, env.ctx.memory_budget(),
                              env.ctx.threads());  // before --out is touched
  if (!env.out.empty()) prepare_output_dir(env.out);
  StudyRun r;
  r.result = studies::run_study(env.registry, q.name, file, env.load, size, env.ctx);
  if (!env.out.empty()) r.written = report::write_result(env.out, r.result);
  return r;
}

// A study's claims as a table: seed figure, ours with its 95% half-width ("-" when ours is not
// a sampled estimate), deviation, unit, verdict.
void print_claims(const report::StudyResult& r, std::ostream& out) {
  fmt::print(out, "{} ({})\n", r.title, r.study);
  fmt::print(out, "  {:<28} {:>12} {:>12} {:>8} {:>9}  {:<8} {}\n", "claim", "seed", "ours",
             "+-95%", "deviation", "unit", "verdict");
  for (const report::Claim& c : r.claims) {
    const auto dev = report::deviation(c.seed_value, c.ours);
    fmt::print(out, "  {:<28} {:>12} {:>12} {:>8} {:>9}  {:<8} {}\n", c.id,
               format_seed(c.seed_value), format_value(c.ours), format_value(c.ours_ci95),
               dev ? fmt::format("{:+.0f}%", 100.0 * *dev) : "-", c.unit,
               report::to_string(c.verdict));
  }
}

}  // namespace

void register_study_ops(Registry& registry) {
  add<StudyRunRequest, StudyRun>(
      registry, {.info = {.name = "study_run",
                          .command = {"study", "run"},
                          .help = "Run one study; writes <out>/<name>.json and a CSV per table",
                          .positional = {"name"}},
                 .evaluate = evaluate_study_run,
                 .to_json =
                     [](const StudyRun& r) {
                       return report::to_json(
                           r.result, r.written.empty() ? r.result.study : r.written.string());
                     },
                 .print =
                     [](const StudyRun& r, std::ostream& out) {
                       print_claims(r.result, out);
                       if (!r.written.empty())
                         fmt::print(out, "lightsim study: results in {}\n", r.written.string());
                     }});
}

}  // namespace lightsim::ops

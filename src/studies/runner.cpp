// The study runner's non-template parts (include/lightsim/studies/runner.h).
#include "lightsim/studies/runner.h"

#include "lightsim/core/config_files.h"

namespace lightsim::studies {

std::filesystem::path reference_file(std::string_view relative, const config::LoadOptions& load) {
  const std::filesystem::path file(relative);
  return config::find_named(file.stem().string(), file.parent_path().string(), load.roots_only(),
                            "seed reference");
}

void RunBase::table(std::string name, std::string title, std::vector<Column> columns) {
  result_->add_table(std::move(name), std::move(title), std::move(columns));
}

void RunBase::add_built_table(std::string name, std::string title, Table table) {
  result_->tables.push_back({std::move(name), std::move(title), std::move(table)});
}

void RunBase::add_row(std::string_view table, std::initializer_list<report::NamedCell> cells) {
  result_->add_row(table, cells);
}

void RunBase::chart(const Chart& chart) {
  result_->add_chart(chart.title, chart.table, vega_lite(chart));
}

report::Claim& RunBase::judged(std::string id, std::string text, std::string unit,
                               report::SeedValue seed, std::optional<double> ours,
                               Comparison comparison, double tolerance,
                               const std::string& conditions) {
  report::Claim& c = result_->add_claim(std::move(id), std::move(text), std::move(unit));
  c.seed_value = seed;
  c.ours = ours;
  c.verdict = judge(seed, ours, comparison, tolerance);
  if (c.verdict == report::Verdict::holds && !conditions.empty()) {
    c.verdict = report::Verdict::holds_under_conditions;
    c.conditions = conditions;
  }
  return c;
}

report::Claim& RunBase::judged_range(std::string id, std::string text, std::string unit,
                                     report::SeedValue seed, double ours_lo, double ours_hi,
                                     Comparison comparison, double tolerance) {
  report::Claim& c = result_->add_claim(std::move(id), std::move(text), std::move(unit));
  c.seed_value = seed;
  c.ours = ours_hi;
  c.verdict = judge(seed, ours_lo, ours_hi, comparison, tolerance);
  return c;
}

report::Claim& RunBase::qualitative(std::string id, std::string text, std::string unit) {
  return result_->add_claim(std::move(id), std::move(text), std::move(unit));
}

namespace detail {

report::StudyResult header(const StudyInput& in, Context& ctx, std::string title,
                           std::string spec_section) {
  report::StudyResult r;
  r.study = in.name;
  r.title = std::move(title);
  r.spec_section = std::move(spec_section);
  r.seed = ctx.seed();
  r.config = config::to_yaml(in.document);
  return r;
}

}  // namespace detail
}  // namespace lightsim::studies

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

namespace {

// The unit of the column a channel plots: the table's column, or for the value of a fold the
// unit its folded columns share. Empty optional when the channel has no such column.
std::optional<std::string> channel_unit(const Chart& chart, const std::optional<Channel>& channel,
                                        const Table& table) {
  if (!channel || channel->field.empty()) return std::nullopt;
  const auto unit_of = [&](const std::string& name) -> std::optional<std::string> {
    for (const Column& c : table.columns())
      if (c.name == name) return c.unit;
    return std::nullopt;
  };
  if (chart.fold_as.size() == 2 && channel->field == chart.fold_as[1] && !chart.fold.empty()) {
    std::optional<std::string> shared = unit_of(chart.fold.front());
    for (const std::string& f : chart.fold)
      if (unit_of(f) != shared) return std::nullopt;
    return shared;
  }
  return unit_of(channel->field);
}

// The seed figures of the claims a chart names (Chart::seed_claims), each on the axis of the
// claim's unit; the first marker is labelled, the others carry their figure as a tooltip only
// (labels of nearby markers would overlap).
std::vector<SeedFigure> seed_figures(const Chart& chart, const report::StudyResult& result) {
  std::vector<SeedFigure> figures;
  const auto fail = [&](const std::string& id, const std::string& why) {
    LIGHTSIM_THROW(InternalError, "study '{}', chart '{}', seed claim '{}': {}", result.study,
                   chart.title, id, why);
  };
  const report::NamedTable* table = nullptr;
  for (const report::NamedTable& t : result.tables)
    if (t.name == chart.table) table = &t;
  bool marker_labelled = false;
  for (const SeedClaim& sc : chart.seed_claims) {
    if (table == nullptr) fail(sc.id, fmt::format("no table '{}' yet", chart.table));
    if (chart.column || chart.row || !chart.layers.empty())
      fail(sc.id, "seed figures are drawn on unfaceted, unlayered charts only");
    const report::Claim* claim = nullptr;
    for (const report::Claim& c : result.claims)
      if (c.id == sc.id) claim = &c;
    if (claim == nullptr) fail(sc.id, "no such claim (judged before the chart)");
    const report::SeedValue& s = claim->seed_value;
    if (s.kind == report::SeedValue::Kind::none) fail(sc.id, "has no seed figure");
    const std::optional<std::string> x = channel_unit(chart, chart.x, table->table);
    const std::optional<std::string> y = channel_unit(chart, chart.y, table->table);
    const char* axis = y == claim->unit ? "y" : x == claim->unit ? "x" : nullptr;
    if (axis == nullptr)
      fail(sc.id, fmt::format("its unit '{}' is neither the x axis' ('{}') nor the y axis' ('{}')",
                              claim->unit, x.value_or("none"), y.value_or("none")));
    std::string value = s.kind == report::SeedValue::Kind::range
                            ? fmt::format("{:.4g} to {:.4g}", s.lo, s.hi)
                            : fmt::format("{:.4g}", s.lo);
    if (!claim->unit.empty()) value.append(" ").append(claim->unit);
    const std::string tip =
        std::string("seed figure: ").append(value).append(" (").append(claim->claim).append(")");
    std::string label;
    if (!sc.at) {
      label = std::string("seed figure: ").append(value);
    } else if (!marker_labelled) {
      label = "seed figure";
      marker_labelled = true;
    }
    figures.push_back({axis, s.lo, s.hi, sc.at, label, tip});
  }
  return figures;
}

}  // namespace

void RunBase::chart(const Chart& chart) {
  result_->add_chart(chart.title, chart.table,
                     with_seed_figures(vega_lite(chart), seed_figures(chart, *result_)));
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

// Study results: deviation, validation, JSON and CSV output (docs/results.md).
#include "lightsim/report/result.h"

#include <cmath>
#include <set>

#include "lightsim/core/csv.h"
#include "lightsim/core/error.h"
#include "lightsim/core/file_name.h"
#include "report/identifier.h"

namespace lightsim::report {
namespace {

[[noreturn]] void fail(std::string_view source, const std::string& key, const std::string& what) {
  LIGHTSIM_THROW(DataFormatError, "{}: {}: {}", source, key, what);
}

void require_text(std::string_view source, const std::string& key, const std::string& text) {
  if (text.empty()) fail(source, key, "must not be empty");
}

void require_finite(std::string_view source, const std::string& key, double value) {
  if (!std::isfinite(value)) fail(source, key, fmt::format("must be finite (got {})", value));
}

// Field names a chart's transforms create ("as" of calculate, fold, window, ...), which its
// encodings may use besides the table's columns.
void collect_derived_fields(const Json& node, std::set<std::string>& out) {
  if (node.is_array()) {
    for (const Json& item : node) collect_derived_fields(item, out);
    return;
  }
  if (!node.is_object()) return;
  if (node.contains("fold") && !node.contains("as")) out.insert({"key", "value"});
  for (const auto& [key, value] : node.items()) {
    if (key == "as") {
      if (value.is_string()) out.insert(value.get<std::string>());
      if (value.is_array())
        for (const Json& name : value)
          if (name.is_string()) out.insert(name.get<std::string>());
    }
    collect_derived_fields(value, out);
  }
}

// Every `encoding.<channel>.field` (also inside layers and concatenations) must name a column
// of the chart's table or a derived field: a typo would otherwise draw an empty chart.
void check_encoding_fields(const Json& node, const std::string& key,
                           const std::set<std::string>& known, std::string_view source) {
  if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_encoding_fields(node[i], fmt::format("{}[{}]", key, i), known, source);
    return;
  }
  if (!node.is_object()) return;
  for (const auto& [name, value] : node.items()) {
    const std::string here = fmt::format("{}.{}", key, name);
    if (name == "field" && value.is_string() && key.find(".encoding.") != std::string::npos &&
        known.count(value.get<std::string>()) == 0)
      fail(source, here,
           fmt::format("'{}' is not a column of the chart's table nor a transform output",
                       value.get<std::string>()));
    check_encoding_fields(value, here, known, source);
  }
}

void validate_claim(const Claim& c, const std::string& key, std::string_view source) {
  if (!is_identifier(c.id, false)) fail(source, key + ".id", identifier_rule(c.id, false));
  require_text(source, key + ".claim", c.claim);
  const SeedValue& s = c.seed_value;
  if (s.kind != SeedValue::Kind::none) {
    require_finite(source, key + ".seed_value", s.lo);
    require_finite(source, key + ".seed_value", s.hi);
    if (s.lo > s.hi)
      fail(source, key + ".seed_value",
           fmt::format("range must have lo <= hi (got [{}, {}])", s.lo, s.hi));
  }
  if (c.ours) require_finite(source, key + ".ours", *c.ours);
  if (c.ours_ci95) {
    require_finite(source, key + ".ours_ci95", *c.ours_ci95);
    if (!c.ours || *c.ours_ci95 < 0)
      fail(source, key + ".ours_ci95", "needs a figure of ours and must be >= 0");
  }
  if (c.verdict == Verdict::holds_under_conditions && c.conditions.empty())
    fail(source, key + ".conditions",
         "must say under which conditions the claim holds (verdict 'holds under conditions')");
  if ((c.verdict == Verdict::does_not_hold || c.verdict == Verdict::not_comparable ||
       c.verdict == Verdict::depends_on_workload) &&
      c.explanation.empty())
    fail(source, key + ".explanation",
         fmt::format("must explain the verdict '{}'", to_string(c.verdict)));
}

void validate_table(const NamedTable& t, const std::string& key, std::string_view source) {
  if (!is_identifier(t.name, false)) fail(source, key + ".name", identifier_rule(t.name, false));
  require_text(source, key + ".title", t.title);
  if (t.table.column_count() == 0) fail(source, key + ".columns", "a table needs a column");
  for (std::size_t i = 0; i < t.table.column_count(); ++i) {
    const std::string& name = t.table.columns()[i].name;
    if (!is_identifier(name, true))
      fail(source, fmt::format("{}.columns[{}].name", key, i), identifier_rule(name, true));
  }
  for (std::size_t r = 0; r < t.table.row_count(); ++r)
    for (std::size_t col = 0; col < t.table.column_count(); ++col)
      if (const double* v = std::get_if<double>(&t.table.rows()[r][col]))
        require_finite(source, fmt::format("{}.rows[{}][{}]", key, r, col), *v);
}

void validate_chart(const Chart& chart, const std::string& key, const StudyResult& result,
                    std::string_view source) {
  require_text(source, key + ".title", chart.title);
  const NamedTable* table = nullptr;
  std::vector<std::string> names;
  for (const NamedTable& t : result.tables) {
    names.push_back(t.name);
    if (t.name == chart.table) table = &t;
  }
  if (table == nullptr)
    fail(source, key + ".table",
         fmt::format(
             "no table named '{}' in this study (tables: {})", chart.table,
             names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  if (!chart.vega_lite.is_object())
    fail(source, key + ".vega_lite", "must be a Vega-Lite spec (a JSON object)");
  if (chart.vega_lite.contains("data") || chart.vega_lite.contains("datasets"))
    fail(source, key + ".vega_lite.data",
         "must be absent: the report injects the rows of the chart's table");
  std::set<std::string> known;
  for (const Column& column : table->table.columns()) known.insert(column.name);
  collect_derived_fields(chart.vega_lite, known);
  check_encoding_fields(chart.vega_lite, key + ".vega_lite", known, source);
}

}  // namespace

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::holds:
      return "holds";
    case Verdict::holds_under_conditions:
      return "holds under conditions";
    case Verdict::does_not_hold:
      return "does not hold";
    case Verdict::not_comparable:
      return "not comparable";
    case Verdict::depends_on_workload:
      return "depends on the workload";
  }
  LIGHTSIM_CHECK(false, "unknown verdict {}", static_cast<int>(verdict));
}

std::optional<double> deviation(const SeedValue& seed_value, std::optional<double> ours) {
  if (seed_value.kind == SeedValue::Kind::none || !ours) return std::nullopt;
  double reference = seed_value.lo;
  if (seed_value.kind == SeedValue::Kind::range) {
    if (*ours >= seed_value.lo && *ours <= seed_value.hi) return 0.0;
    reference = *ours < seed_value.lo ? seed_value.lo : seed_value.hi;
  }
  if (reference == 0.0) return std::nullopt;
  return (*ours - reference) / std::abs(reference);
}

Claim& StudyResult::add_claim(std::string claim_id, std::string claim_text,
                              std::string claim_unit) {
  Claim& c = claims.emplace_back();
  c.id = std::move(claim_id);
  c.claim = std::move(claim_text);
  c.unit = std::move(claim_unit);
  return c;
}

Table& StudyResult::add_table(std::string table_name, std::string table_title,
                              std::vector<Column> columns) {
  tables.push_back({std::move(table_name), std::move(table_title), Table(std::move(columns))});
  return tables.back().table;
}

void StudyResult::add_chart(std::string chart_title, std::string table_name, Json vega_lite) {
  charts.push_back({std::move(chart_title), std::move(table_name), std::move(vega_lite)});
}

void StudyResult::add_row(std::string_view table_name, std::initializer_list<NamedCell> cells) {
  NamedTable* named = nullptr;
  for (NamedTable& t : tables)
    if (t.name == table_name) named = &t;
  LIGHTSIM_CHECK_AS(InternalError, named != nullptr, "study '{}': no table '{}'", study,
                    table_name);
  const std::vector<Column>& columns = named->table.columns();
  std::vector<Cell> row(columns.size());
  std::vector<bool> filled(columns.size(), false);
  for (const NamedCell& cell : cells) {
    std::size_t i = 0;
    while (i < columns.size() && columns[i].name != cell.column) ++i;
    LIGHTSIM_CHECK_AS(InternalError, i < columns.size(),
                      "study '{}': table '{}' has no column '{}'", study, table_name, cell.column);
    LIGHTSIM_CHECK_AS(InternalError, !filled[i], "study '{}': table '{}': column '{}' given twice",
                      study, table_name, cell.column);
    row[i] = cell.value;
    filled[i] = true;
  }
  for (std::size_t i = 0; i < columns.size(); ++i)
    LIGHTSIM_CHECK_AS(InternalError, filled[i], "study '{}': table '{}': row without column '{}'",
                      study, table_name, columns[i].name);
  named->table.add_row(std::move(row));
}

void validate(const StudyResult& result, std::string_view source) {
  if (!is_identifier(result.study, false))
    fail(source, "study", identifier_rule(result.study, false));
  require_text(source, "title", result.title);
  require_text(source, "lightsim_version", result.lightsim_version);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < result.claims.size(); ++i) {
    const std::string key = fmt::format("claims[{}]", i);
    validate_claim(result.claims[i], key, source);
    if (!ids.insert(result.claims[i].id).second)
      fail(source, key + ".id", fmt::format("duplicate claim id '{}'", result.claims[i].id));
  }
  std::set<std::string> tables;
  for (std::size_t i = 0; i < result.tables.size(); ++i) {
    const std::string key = fmt::format("tables[{}]", i);
    validate_table(result.tables[i], key, source);
    if (!tables.insert(result.tables[i].name).second)
      fail(source, key + ".name", fmt::format("duplicate table name '{}'", result.tables[i].name));
  }
  for (std::size_t i = 0; i < result.charts.size(); ++i)
    validate_chart(result.charts[i], fmt::format("charts[{}]", i), result, source);
}

Json to_json(const StudyResult& result, std::string_view source) {
  validate(result, source);
  Json doc = Json::object();
  doc["schema_version"] = kResultSchemaVersion;
  doc["kind"] = kResultKind;
  doc["study"] = result.study;
  doc["title"] = result.title;
  doc["spec_section"] = result.spec_section;
  doc["lightsim_version"] = result.lightsim_version;
  doc["seed"] = result.seed;
  doc["config"] = result.config;
  if (!result.shadowed_presets.empty()) {
    Json shadows = Json::array();
    for (const ShadowedPreset& sp : result.shadowed_presets)
      shadows.push_back(
          {{"name", sp.name}, {"kind", sp.kind}, {"used", sp.used}, {"shadowed", sp.shadowed}});
    doc["shadowed_presets"] = std::move(shadows);
  }
  doc["claims"] = Json::array();
  for (const Claim& c : result.claims) {
    Json claim = Json::object();
    claim["id"] = c.id;
    claim["claim"] = c.claim;
    claim["unit"] = c.unit;
    switch (c.seed_value.kind) {
      case SeedValue::Kind::none:
        claim["seed_value"] = nullptr;
        break;
      case SeedValue::Kind::point:
        claim["seed_value"] = c.seed_value.lo;
        break;
      case SeedValue::Kind::range:
        claim["seed_value"] = Json::array({c.seed_value.lo, c.seed_value.hi});
        break;
    }
    claim["ours"] = c.ours ? Json(*c.ours) : Json(nullptr);
    if (c.ours_ci95) claim["ours_ci95"] = *c.ours_ci95;
    const std::optional<double> dev = deviation(c.seed_value, c.ours);
    claim["deviation"] = dev ? Json(*dev) : Json(nullptr);
    claim["verdict"] = to_string(c.verdict);
    claim["conditions"] = c.conditions;
    claim["explanation"] = c.explanation;
    doc["claims"].push_back(std::move(claim));
  }
  doc["tables"] = Json::array();
  for (const NamedTable& t : result.tables) {
    Json table = Json::object();
    table["name"] = t.name;
    table["title"] = t.title;
    const Json body = lightsim::to_json(t.table);
    table["columns"] = body.at("columns");
    table["rows"] = body.at("rows");
    doc["tables"].push_back(std::move(table));
  }
  doc["charts"] = Json::array();
  for (const Chart& chart : result.charts)
    doc["charts"].push_back(
        {{"title", chart.title}, {"table", chart.table}, {"vega_lite", chart.vega_lite}});
  return doc;
}

std::filesystem::path write_result(const std::filesystem::path& dir, const StudyResult& result) {
  require_file_name(result.study, "study name");
  for (const NamedTable& t : result.tables)
    require_file_name(fmt::format("{}_{}", result.study, t.name), "study table file");
  const std::filesystem::path file = dir / (result.study + ".json");
  const Json doc = to_json(result, file.string());
  for (const NamedTable& t : result.tables)
    write_csv(dir / fmt::format("{}_{}.csv", result.study, t.name), t.table);
  write_json_file(file, doc);  // last: a result file implies its CSV files are complete
  return file;
}

}  // namespace lightsim::report

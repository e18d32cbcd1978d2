// Reading study result files strictly: every key known, every type checked, errors naming the
// file and the key (docs/results.md).
#include <cmath>
#include <limits>

#include "lightsim/core/config.h"
#include "lightsim/core/error.h"
#include "lightsim/report/result.h"

namespace lightsim::report {
namespace {

// One JSON object being read: hands out its keys by name and, at the end, rejects the ones
// nobody asked for.
class ObjectReader {
 public:
  ObjectReader(const Json& node, std::string key, std::string_view source)
      : node_(node), key_(std::move(key)), source_(source) {
    if (!node.is_object()) fail(key_.empty() ? "(document)" : key_, "expected an object");
  }

  const Json& required(const std::string& name) {
    seen_.push_back(name);
    const auto it = node_.find(name);
    if (it == node_.end()) fail(path(name), "missing key");
    return *it;
  }

  std::string text(const std::string& name) {
    const Json& value = required(name);
    if (!value.is_string())
      fail(path(name), fmt::format("expected a string (got {})", value.dump()));
    return value.get<std::string>();
  }

  // The value of an optional key, nullptr when absent.
  const Json* optional(const std::string& name) {
    seen_.push_back(name);
    const auto it = node_.find(name);
    return it == node_.end() ? nullptr : &*it;
  }

  // Every key was asked for; otherwise names the first unknown one and the closest valid one.
  void finish() const {
    for (const auto& [name, value] : node_.items())
      if (std::find(seen_.begin(), seen_.end(), name) == seen_.end())
        fail(path(name), fmt::format("unknown key{}", config::suggest(name, seen_, "valid keys")));
  }

  std::string path(const std::string& name) const {
    return key_.empty() ? name : fmt::format("{}.{}", key_, name);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    LIGHTSIM_THROW(DataFormatError, "{}: {}: {}", source_, key, what);
  }

 private:
  const Json& node_;
  std::string key_;
  std::string_view source_;
  std::vector<std::string> seen_;
};

const Json& array_at(ObjectReader& reader, const std::string& name) {
  const Json& value = reader.required(name);
  if (!value.is_array()) reader.fail(reader.path(name), "expected an array");
  return value;
}

std::optional<double> number_or_null(const ObjectReader& reader, const Json& value,
                                     const std::string& key) {
  if (value.is_null()) return std::nullopt;
  if (!value.is_number())
    reader.fail(key, fmt::format("expected a number or null (got {})", value.dump()));
  return value.get<double>();
}

Verdict read_verdict(const ObjectReader& reader, const std::string& text, const std::string& key) {
  for (Verdict v : {Verdict::holds, Verdict::holds_under_conditions, Verdict::does_not_hold,
                    Verdict::not_comparable, Verdict::depends_on_workload})
    if (to_string(v) == text) return v;
  reader.fail(key, fmt::format("expected one of holds, holds under conditions, does not hold, "
                               "not comparable, depends on the workload (got '{}')",
                               text));
}

Claim read_claim(const Json& node, const std::string& key, std::string_view source) {
  ObjectReader in(node, key, source);
  Claim c;
  c.id = in.text("id");
  c.claim = in.text("claim");
  c.unit = in.text("unit");
  const Json& seed = in.required("seed_value");
  if (seed.is_array()) {
    if (seed.size() != 2 || !seed[0].is_number() || !seed[1].is_number())
      in.fail(in.path("seed_value"), fmt::format("a range must be [lo, hi] (got {})", seed.dump()));
    c.seed_value = SeedValue::range(seed[0].get<double>(), seed[1].get<double>());
  } else if (const auto value = number_or_null(in, seed, in.path("seed_value"))) {
    c.seed_value = SeedValue::point(*value);
  }
  c.ours = number_or_null(in, in.required("ours"), in.path("ours"));
  if (const Json* ci = in.optional("ours_ci95"))
    c.ours_ci95 = number_or_null(in, *ci, in.path("ours_ci95"));
  const std::optional<double> stored =
      number_or_null(in, in.required("deviation"), in.path("deviation"));
  const std::optional<double> computed = deviation(c.seed_value, c.ours);
  const bool same =
      stored.has_value() == computed.has_value() &&
      (!stored || std::abs(*stored - *computed) <= 1e-9 * std::max(1.0, std::abs(*computed)));
  if (!same)
    in.fail(in.path("deviation"),
            fmt::format("is {} but seed_value and ours give {} (the library computes it)",
                        stored ? fmt::format("{}", *stored) : "null",
                        computed ? fmt::format("{}", *computed) : "null"));
  c.verdict = read_verdict(in, in.text("verdict"), in.path("verdict"));
  c.conditions = in.text("conditions");
  c.explanation = in.text("explanation");
  in.finish();
  return c;
}

Cell read_cell(const ObjectReader& reader, const Json& value, const std::string& key) {
  switch (value.type()) {
    case Json::value_t::number_integer:
      return value.get<std::int64_t>();
    case Json::value_t::number_unsigned:
      if (value.get<std::uint64_t>() >
          static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        reader.fail(key, "integer does not fit in 64 signed bits");
      return static_cast<std::int64_t>(value.get<std::uint64_t>());
    case Json::value_t::number_float:
      return value.get<double>();
    case Json::value_t::string:
      return value.get<std::string>();
    case Json::value_t::boolean:
      return value.get<bool>();
    default:
      reader.fail(key,
                  fmt::format("a cell must be a number, string or boolean (got {})", value.dump()));
  }
}

NamedTable read_table(const Json& node, const std::string& key, std::string_view source) {
  ObjectReader in(node, key, source);
  NamedTable t;
  t.name = in.text("name");
  t.title = in.text("title");
  std::vector<Column> columns;
  const Json& cols = array_at(in, "columns");
  for (std::size_t i = 0; i < cols.size(); ++i) {
    ObjectReader col(cols[i], fmt::format("{}.columns[{}]", key, i), source);
    columns.push_back({col.text("name"), col.text("unit")});
    col.finish();
    for (std::size_t j = 0; j < i; ++j)
      if (columns[j].name == columns[i].name)
        in.fail(fmt::format("{}.columns[{}].name", key, i),
                fmt::format("duplicate column '{}'", columns[i].name));
    if (columns[i].name.empty())
      in.fail(fmt::format("{}.columns[{}].name", key, i), "must not be empty");
  }
  t.table = Table(std::move(columns));
  const Json& rows = array_at(in, "rows");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const std::string row_key = fmt::format("{}.rows[{}]", key, r);
    if (!rows[r].is_array() || rows[r].size() != t.table.column_count())
      in.fail(row_key, fmt::format("expected an array of {} cells (one per column)",
                                   t.table.column_count()));
    std::vector<Cell> row;
    for (std::size_t c = 0; c < rows[r].size(); ++c)
      row.push_back(read_cell(in, rows[r][c], fmt::format("{}[{}]", row_key, c)));
    t.table.add_row(std::move(row));
  }
  in.finish();
  return t;
}

Chart read_chart(const Json& node, const std::string& key, std::string_view source) {
  ObjectReader in(node, key, source);
  Chart chart;
  chart.title = in.text("title");
  chart.table = in.text("table");
  chart.vega_lite = in.required("vega_lite");
  in.finish();
  return chart;
}

}  // namespace

StudyResult result_from_json(const Json& document, std::string_view source) {
  ObjectReader in(document, "", source);
  const Json& version = in.required("schema_version");
  if (!version.is_number_integer() || version.get<std::int64_t>() != kResultSchemaVersion)
    in.fail("schema_version",
            fmt::format("expected {} (got {})", kResultSchemaVersion, version.dump()));
  const std::string kind = in.text("kind");
  if (kind != kResultKind)
    in.fail("kind", fmt::format("expected '{}' (got '{}')", kResultKind, kind));
  StudyResult r;
  r.study = in.text("study");
  r.title = in.text("title");
  r.spec_section = in.text("spec_section");
  r.lightsim_version = in.text("lightsim_version");
  const Json& seed = in.required("seed");
  if (!seed.is_number_unsigned() && !(seed.is_number_integer() && seed.get<std::int64_t>() >= 0))
    in.fail("seed", fmt::format("expected a non-negative integer (got {})", seed.dump()));
  r.seed = seed.get<std::uint64_t>();
  r.config = in.text("config");
  if (const Json* shadows = in.optional("shadowed_presets")) {
    if (!shadows->is_array())
      in.fail("shadowed_presets", fmt::format("expected a list (got {})", shadows->dump()));
    for (std::size_t i = 0; i < shadows->size(); ++i) {
      ObjectReader s((*shadows)[i], fmt::format("shadowed_presets[{}]", i), source);
      r.shadowed_presets.push_back({.name = s.text("name"),
                                    .kind = s.text("kind"),
                                    .used = s.text("used"),
                                    .shadowed = s.text("shadowed")});
      s.finish();
    }
  }
  const Json& claims = array_at(in, "claims");
  for (std::size_t i = 0; i < claims.size(); ++i)
    r.claims.push_back(read_claim(claims[i], fmt::format("claims[{}]", i), source));
  const Json& tables = array_at(in, "tables");
  for (std::size_t i = 0; i < tables.size(); ++i)
    r.tables.push_back(read_table(tables[i], fmt::format("tables[{}]", i), source));
  const Json& charts = array_at(in, "charts");
  for (std::size_t i = 0; i < charts.size(); ++i)
    r.charts.push_back(read_chart(charts[i], fmt::format("charts[{}]", i), source));
  in.finish();
  validate(r, source);
  return r;
}

StudyResult read_result(const std::filesystem::path& file, const std::atomic<bool>* stop) {
  StudyResult r = result_from_json(read_json_file(file, stop), file.string());
  if (file.stem().string() != r.study)
    LIGHTSIM_THROW(DataFormatError, "{}: study: '{}' does not match the file name (expected '{}')",
                   file.string(), r.study, file.stem().string());
  return r;
}

}  // namespace lightsim::report

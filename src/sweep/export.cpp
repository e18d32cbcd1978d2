// Sweep stores as CSV (include/lightsim/sweep/export.h).
#include "lightsim/sweep/export.h"

#include <algorithm>
#include <map>

#include "lightsim/core/error.h"
#include "lightsim/sweep/store.h"

namespace lightsim::sweep {
namespace {

// The columns in first-seen order and, per record, its cells by column number.
class Table {
 public:
  explicit Table(const CsvOptions& options) : options_(options) {}

  std::size_t column(const std::string& name) {
    const auto [it, added] = number_.emplace(name, names_.size());
    if (added) {
      names_.push_back(name);
      LIGHTSIM_CHECK_AS(UsageError, names_.size() <= options_.max_columns,
                        "sweep export: the store has more than {} columns; keep the ones you "
                        "need with --columns PREFIX,... (e.g. --columns result.searches.0.best)",
                        options_.max_columns);
    }
    return it->second;
  }
  bool kept(const std::string& name) const {
    if (options_.columns.empty()) return true;
    return std::any_of(options_.columns.begin(), options_.columns.end(),
                       [&](const std::string& prefix) { return name.rfind(prefix, 0) == 0; });
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  const CsvOptions& options_;
  std::map<std::string, std::size_t> number_;
  std::vector<std::string> names_;
};

std::string cell_text(const Json& j) {
  if (j.is_null()) return "";
  if (j.is_string()) return j.get<std::string>();
  return j.dump();
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos &&
      (s.empty() || (s.front() != ' ' && s.back() != ' ')))
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void flatten(const Json& j, const std::string& name, Table& table,
             std::vector<std::pair<std::size_t, std::string>>& row) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) flatten(value, name + "." + key, table, row);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      flatten(j[i], fmt::format("{}.{}", name, i), table, row);
  } else if (table.kept(name)) {
    row.emplace_back(table.column(name), cell_text(j));
  }
}

}  // namespace

std::string store_csv(const StoreFile& store, const CsvOptions& options) {
  std::vector<const StoreFile::Record*> records;
  for (const StoreFile::Record& r : store.records) records.push_back(&r);
  std::stable_sort(records.begin(), records.end(),
                   [](const auto* a, const auto* b) { return a->index < b->index; });

  Table table(options);
  table.column("index");
  table.column("id");
  std::vector<std::vector<std::pair<std::size_t, std::string>>> rows;
  for (const StoreFile::Record* r : records) {
    std::vector<std::pair<std::size_t, std::string>> row;
    row.emplace_back(0, cell_text(r->json["index"]));
    if (r->json.contains("id")) row.emplace_back(1, cell_text(r->json["id"]));
    if (r->json.contains("values") && r->json["values"].is_object())
      for (const auto& [key, value] : r->json["values"].items())
        row.emplace_back(table.column("values." + key), cell_text(value));
    if (r->json.contains("result")) flatten(r->json["result"], "result", table, row);
    rows.push_back(std::move(row));
  }

  std::string out;
  const auto write_row = [&out](const std::vector<std::string>& fields) {
    for (std::size_t c = 0; c < fields.size(); ++c) {
      if (c > 0) out += ',';
      out += csv_field(fields[c]);
    }
    out += "\r\n";
  };
  write_row(table.names());
  std::vector<std::string> cells;
  for (const auto& row : rows) {
    cells.assign(table.names().size(), "");
    for (const auto& [column, text] : row) cells[column] = text;
    write_row(cells);
  }
  return out;
}

}  // namespace lightsim::sweep

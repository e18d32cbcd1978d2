#include "lightsim/core/table.h"

#include <algorithm>

#include "lightsim/core/error.h"
#include "lightsim/core/json.h"

namespace lightsim {

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    LIGHTSIM_CHECK(!columns_[i].name.empty(), "table column {} has an empty name", i);
    for (std::size_t j = 0; j < i; ++j) {
      LIGHTSIM_CHECK(columns_[j].name != columns_[i].name, "table column name '{}' repeated",
                     columns_[i].name);
    }
  }
}

void Table::add_row(std::vector<Cell> row) {
  LIGHTSIM_CHECK(row.size() == columns_.size(), "table row {} has {} cells, expected {}",
                 rows_.size(), row.size(), columns_.size());
  rows_.push_back(std::move(row));
}

Json to_json(const Table& table) {
  Json columns = Json::array();
  for (const Column& column : table.columns()) {
    columns.push_back(Json{{"name", column.name}, {"unit", column.unit}});
  }
  Json rows = Json::array();
  for (const auto& row : table.rows()) {
    Json cells = Json::array();
    for (const Cell& cell : row) {
      std::visit([&cells](const auto& value) { cells.push_back(value); }, cell);
    }
    rows.push_back(std::move(cells));
  }
  Json document = Json::object();
  document["columns"] = std::move(columns);
  document["rows"] = std::move(rows);
  return document;
}

}  // namespace lightsim

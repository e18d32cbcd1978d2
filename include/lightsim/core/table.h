// A small result table: named columns with optional units, rows of typed cells.
// Written out by csv.h (to_csv, write_csv) or converted to JSON by to_json below.
//
//   Table t({{"wavelength", "nm"}, {"loss", "dB"}, {"label", ""}});
//   t.add_row({1550.0, 0.25, "C-band"});
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include "lightsim/core/json_fwd.h"

namespace lightsim {

struct Column {
  std::string name;  // non-empty, unique within a table
  std::string unit;  // e.g. "dB", "pJ"; empty when the column has no unit
};

// One value. Plain `int` literals become std::int64_t; cast std::size_t explicitly.
using Cell = std::variant<double, std::int64_t, std::string, bool>;

class Table {
 public:
  Table() = default;
  // Column names must be non-empty and unique (InternalError otherwise: a caller bug).
  explicit Table(std::vector<Column> columns);
  Table(std::initializer_list<Column> columns) : Table(std::vector<Column>(columns)) {}

  // Appends a row; its width must equal the column count (InternalError otherwise).
  void add_row(std::vector<Cell> row);

  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }
  std::size_t column_count() const { return columns_.size(); }
  std::size_t row_count() const { return rows_.size(); }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// {"columns": [{"name": ..., "unit": ...}, ...], "rows": [[cell, ...], ...]}; unit is "" when
// unset. Non-finite doubles are kept and rejected later by dump_json with their path.
// Include "lightsim/core/json.h" to use the result.
Json to_json(const Table& table);

}  // namespace lightsim

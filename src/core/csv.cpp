#include "lightsim/core/csv.h"

#include <cmath>
#include <iterator>
#include <string_view>
#include <type_traits>

#include "lightsim/core/atomic_file.h"
#include "lightsim/core/error.h"

namespace lightsim {
namespace {

void append_field(std::string& out, std::string_view field) {
  if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace

std::string to_csv(const Table& table) {
  std::string out;
  const auto& columns = table.columns();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) out += ',';
    append_field(out, columns[c].unit.empty()
                          ? columns[c].name
                          : fmt::format("{} [{}]", columns[c].name, columns[c].unit));
  }
  out += '\n';
  for (std::size_t r = 0; r < table.row_count(); ++r) {
    const auto& row = table.rows()[r];
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ',';
      std::visit(
          [&](const auto& value) {
            using T = std::decay_t<decltype(value)>;
            if constexpr (std::is_same_v<T, std::string>) {
              append_field(out, value);
            } else if constexpr (std::is_same_v<T, bool>) {
              out += value ? "true" : "false";
            } else {
              if constexpr (std::is_same_v<T, double>) {
                LIGHTSIM_CHECK_AS(NumericError, std::isfinite(value),
                                  "CSV cell at row {} (0-based), column '{}' is {}; results must "
                                  "be finite numbers",
                                  r, columns[c].name, value);
              }
              fmt::format_to(std::back_inserter(out), "{}", value);
            }
          },
          row[c]);
    }
    out += '\n';
  }
  return out;
}

void write_csv(const std::filesystem::path& path, const Table& table) {
  write_file_atomic(path, to_csv(table));
}

}  // namespace lightsim

// CSV output of a Table.
//
// One header line then one line per row, each ending in "\n". Header cells are
// "name [unit]" when the column has a unit, else "name". Fields holding a comma, double quote,
// CR or LF are quoted as in RFC 4180 (wrapped in '"', inner quotes doubled). Doubles print as
// the shortest text that reads back to the same double (fmt "{}"), integers exactly, bools as
// true/false. A NaN or Inf cell throws NumericError naming its row (0-based) and column.
#pragma once

#include <filesystem>
#include <string>

#include "lightsim/core/table.h"

namespace lightsim {

std::string to_csv(const Table& table);

// to_csv(table) written atomically (see atomic_file.h).
void write_csv(const std::filesystem::path& path, const Table& table);

}  // namespace lightsim

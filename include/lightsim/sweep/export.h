// A sweep store as a table (docs/sweeps.md, "Export"): one CSV row per point, in index order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace lightsim::sweep {

struct StoreFile;

struct CsvOptions {
  // Result columns kept: those whose name starts with one of these (e.g. "result.searches.0.best"),
  // all when empty. index, id and the values.* columns are always kept.
  std::vector<std::string> columns{};
  // More columns than this is a UsageError suggesting --columns (a study's result can have
  // hundreds of thousands of leaves).
  std::size_t max_columns = 10000;
};

// RFC 4180 CSV: a header row, then one row per record in index order. Columns: "index", "id",
// "values.<key>" per point key, then one column per scalar leaf of the result, named by its path
// with "." between object keys and array positions ("result.searches.0.best.latency_s"), in
// first-seen order over the records. A record without a column leaves its cell empty; numbers
// are written as the store holds them (round-trip exact), booleans as true/false, null empty.
// A torn last line is ignored (it is not a finished point).
std::string store_csv(const StoreFile& store, const CsvOptions& options);

}  // namespace lightsim::sweep

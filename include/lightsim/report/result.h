// The study result contract (docs/results.md): what every study writes and the report reads.
//
// A study fills a StudyResult (claims checked against the seed, tables, Vega-Lite charts over
// those tables) and calls write_result(dir, result), which writes `<study>.json` and one
// `<study>_<table>.csv` per table, each atomically. The report reads the JSON files back with
// read_result. Both directions run the same strict validation: a broken result is a
// DataFormatError whose message starts with the file and the key, e.g.
//   "out/energy.json: claims[2].verdict: expected one of holds, ... (got 'ok')".
//
//   report::StudyResult r{.study = "energy", .title = "Energy per query vs context",
//                         .spec_section = "SPEC 1.4", .seed = ctx.seed(), .config = yaml};
//   Claim& c = r.add_claim("crossover", "Prism beats GPU scoring beyond 32k tokens", "tokens");
//   c.seed_value = SeedValue::point(32768);   // from configs/references/, never typed in
//   c.ours = crossover_tokens;
//   c.verdict = Verdict::holds;
//   r.add_table("energy", "Energy per query", {{"context", "tokens"}, {"pj", "pJ"}});
//   r.add_row("energy", {{"context", std::int64_t{4096}}, {"pj", 12.5}});
//   r.add_chart("Energy vs context", "energy", vega_lite_spec_without_data);
//   report::write_result(out_dir, r);
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/json.h"
#include "lightsim/core/table.h"

namespace lightsim::report {

// Version of the result file layout; bumped on any incompatible change.
inline constexpr int kResultSchemaVersion = 1;
// Value of the "kind" key of a result file.
inline constexpr std::string_view kResultKind = "study_result";

// How our figure compares with the seed's claim.
// depends_on_workload: the claim was judged on several workloads (KV profiles) and its verdict
// differs between them (the `rejudge` study, docs/studies.md); the explanation gives each.
enum class Verdict {
  holds,
  holds_under_conditions,
  does_not_hold,
  not_comparable,
  depends_on_workload
};

// "holds", "holds under conditions", "does not hold", "not comparable", "depends on the
// workload".
std::string_view to_string(Verdict verdict);

// The seed document's figure for a claim: none (qualitative claim, or the seed gives no
// number), one value, or a range [lo, hi] (lo <= hi), in the claim's unit.
struct SeedValue {
  enum class Kind { none, point, range };
  Kind kind = Kind::none;
  double lo = 0.0;  // the value for Kind::point
  double hi = 0.0;  // == lo for Kind::point

  static SeedValue none() { return {}; }
  static SeedValue point(double value) { return {Kind::point, value, value}; }
  static SeedValue range(double lo, double hi) { return {Kind::range, lo, hi}; }
};

// Relative deviation of `ours` from the seed figure, computed here and never by a study:
//   point s:      (ours - s) / |s|
//   range lo..hi: 0 inside the range, else (ours - b) / |b| with b the nearer bound
// Empty when there is no seed figure, no figure of ours, or the reference value is 0
// (a relative deviation from 0 is undefined).
std::optional<double> deviation(const SeedValue& seed_value, std::optional<double> ours);

// One claim of the seed document, checked by a study.
struct Claim {
  std::string id;              // identifier [a-z0-9_]+, unique within the study
  std::string claim;           // the claim in words, as the seed states it
  std::string unit;            // unit of seed_value and ours ("" when dimensionless)
  SeedValue seed_value;        // the seed's figure (or none)
  std::optional<double> ours;  // our figure; empty when the study cannot produce one
  // 95% half-width of `ours` when it is a sampled estimate (same unit); empty otherwise. Written
  // to JSON as `ours_ci95` only when set.
  std::optional<double> ours_ci95;
  Verdict verdict = Verdict::not_comparable;
  std::string conditions;   // required (non-empty) for Verdict::holds_under_conditions
  std::string explanation;  // why the verdict: what differs and why; may be empty for holds
};

// A result table with a name (identifier, used in file names and by charts) and a title.
// Column names must be identifiers [A-Za-z_][A-Za-z0-9_]* (they become Vega-Lite fields).
struct NamedTable {
  std::string name;
  std::string title;
  Table table;
};

// A chart: a Vega-Lite spec without "data"; the report injects the rows of `table` as
// `data.values` (one object per row, keyed by column name).
struct Chart {
  std::string title;
  std::string table;  // name of a table of the same study
  Json vega_lite;     // a JSON object
};

// One cell of a row filled by column name (StudyResult::add_row).
struct NamedCell {
  std::string_view column;
  Cell value;
};

// A preset of a --config-path folder that shadowed a file of the same name the run would
// otherwise have read (config::shadowed_presets): the run read `used`, never `shadowed`.
struct ShadowedPreset {
  std::string name;      // "<folder>/<name>", e.g. "devices/tfln_q1e4"
  std::string kind;      // the preset folder, e.g. "devices"
  std::string used;      // the file read
  std::string shadowed;  // the file of the same name in a later root, not read
  bool operator==(const ShadowedPreset&) const = default;
};

struct StudyResult {
  std::string study;         // identifier [a-z0-9_]+; the file is <study>.json
  std::string title;         // one line, shown as the section heading
  std::string spec_section;  // where the claims come from, e.g. "SPEC 1.4" ("" if none)
  std::string lightsim_version = LIGHTSIM_VERSION;
  std::uint64_t seed = 0;  // seed of every random stream the study drew from
  std::string config;      // the YAML text of the config that produced the result
  // The presets the run's --config-path folders shadowed (JSON key `shadowed_presets`, absent
  // when empty): a result computed with a user's copy of a shipped preset says so.
  std::vector<ShadowedPreset> shadowed_presets;
  std::vector<Claim> claims;
  std::vector<NamedTable> tables;
  std::vector<Chart> charts;

  // Appends a claim (no seed figure, no figure of ours, verdict not comparable) to fill in.
  // The reference is valid until the next add_claim.
  Claim& add_claim(std::string claim_id, std::string claim_text, std::string claim_unit);
  // Appends an empty table and returns it for add_row (the reference is valid until the
  // next add_table).
  Table& add_table(std::string table_name, std::string table_title, std::vector<Column> columns);
  void add_chart(std::string chart_title, std::string table_name, Json vega_lite);
  // Appends a row to the table named `table_name`, every cell by its column's name. An unknown
  // table or column, a column given twice or a column left out is an InternalError (a bug of
  // the study, not of its input).
  void add_row(std::string_view table_name, std::initializer_list<NamedCell> cells);
};

// Checks every rule of docs/results.md; throws DataFormatError "<source>: <key>: <problem>".
void validate(const StudyResult& result, std::string_view source);

// The result as a JSON document (validated first; `source` names it in errors). Includes
// each claim's deviation.
Json to_json(const StudyResult& result, std::string_view source = "study result");

// Parses and validates a result document. Unknown or missing keys, wrong types, and a stored
// deviation that differs from deviation() are DataFormatErrors naming `source` and the key.
StudyResult result_from_json(const Json& document, std::string_view source);

// Writes <dir>/<study>.json and <dir>/<study>_<table>.csv for each table, each atomically.
// `dir` must exist. Returns the JSON file's path.
std::filesystem::path write_result(const std::filesystem::path& dir, const StudyResult& result);

// Reads and validates a result file; its name must be <study>.json.
// `stop` (a run's stop flag; nullptr = never) is polled during the JSON parse
// (read_json_file): Interrupted once set.
StudyResult read_result(const std::filesystem::path& file, const std::atomic<bool>* stop = nullptr);

}  // namespace lightsim::report

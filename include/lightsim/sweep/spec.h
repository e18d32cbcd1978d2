// A sweep (docs/sweeps.md): one operation (the target: `prism_cost`, `prefill_plan`,
// `study_run`, ...) run at many points. A point's key is either a field of the operation's
// request (`gpus`, `fabric`) or a key path of a config the operation reads, applied exactly
// like `--set key.path=value` on the command line.
//
// The points come from exactly one of
//   grid:   axes [{key, values}], the cartesian product in file order, last axis fastest;
//   points: an explicit list of {key: value} maps;
//   sample: `count` random points, each key drawn from its own counter-based stream keyed by
//           (sample.seed, point index, key index), so point i is the same whatever runs it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "lightsim/core/config.h"
#include "lightsim/core/json_fwd.h"

namespace lightsim::sweep {

// One axis of a grid: a key path and the values it takes (YAML scalars as written).
struct AxisSpec {
  static constexpr std::string_view kind = "sweep_axis";
  std::string key;
  std::vector<std::string> values;
  static void describe(config::Schema<AxisSpec>& s);
};

// One randomly drawn key: uniform in [min, max] (optionally log-uniform, optionally integer),
// or uniform over `choices`. min and max may carry a unit ("1 pm"); both must use the same.
struct SampleKeySpec {
  static constexpr std::string_view kind = "sweep_sample_key";
  std::string key;
  std::string min, max;
  std::string scale = "linear";  // linear | log
  bool integer = false;
  std::vector<std::string> choices;
  static void describe(config::Schema<SampleKeySpec>& s);
};

struct SampleSpec {
  static constexpr std::string_view kind = "sweep_sample";
  std::int64_t count = 0;
  std::int64_t seed = 1;
  std::vector<SampleKeySpec> keys;
  static void describe(config::Schema<SampleSpec>& s);
};

struct SweepSpec {
  static constexpr std::string_view kind = "sweep";

  std::string name;  // the store is <out>/<name>.jsonl
  std::string description;
  std::string target;  // a registered operation (docs/operations.md), e.g. prism_cost
  // The operation's request fields every point shares, as text (a list field takes
  // comma-separated values); a point key that is a request field overrides its entry.
  std::map<std::string, std::string> request;
  std::int64_t batch = 0;  // points per stored batch; 0 = 4 x threads x ranks
  // Exactly one of:
  std::vector<AxisSpec> grid;
  std::vector<std::map<std::string, std::string>> points;
  SampleSpec sample;

  static void describe(config::Schema<SweepSpec>& s);
};

// The most points a sweep may have (a grid's product of axes, a sample's count).
inline constexpr std::int64_t kMaxSweepPoints = 10'000'000;

// Points of the spec: a grid's product of axis lengths (saturating: kMaxSweepPoints + 1 stands
// for any product above the limit, which the spec's rule refuses), the explicit list's length
// or the sample's count.
std::uint64_t point_count(const SweepSpec& spec);

// One point: its index in the expansion, the assignments ("key=value", in axis/key order) and
// its key values as JSON (numbers and booleans typed, the rest strings).
struct Point {
  std::size_t index = 0;
  std::vector<std::string> keys;
  std::vector<std::string> values;  // YAML scalar text, parallel to keys
  std::vector<std::string> assignments() const;
  // A stable id: FNV-1a of the sorted "key=value" assignments, 16 hex digits. Independent of
  // the index, so the same point in an edited sweep keeps its id.
  std::string id() const;
  Json values_json() const;
};

// Expands the spec into its points, in index order. Throws ConfigError for a sample range
// that cannot be read (min > max, mixed units, log scale through zero).
std::vector<Point> expand(const SweepSpec& spec);

// Every key path the spec sets, in order of first appearance.
std::vector<std::string> key_paths(const SweepSpec& spec);

// JSON of a YAML scalar: integers and doubles as numbers, true/false as booleans, else text.
Json scalar_json(const std::string& text);

// FNV-1a 64 of bytes, as 16 hex digits (spec hashes, point ids; not cryptographic).
std::string fnv1a_hex(std::string_view bytes);

}  // namespace lightsim::sweep

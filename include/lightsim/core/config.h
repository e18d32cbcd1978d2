// Strict config reading: YAML/JSON files into plain, validated spec structs.
//
// A spec is a plain struct with default member values, a `kind`, and a static `describe`
// that lists its fields once. That one list drives reading (unknown keys rejected with a
// "did you mean"), validation (ranges, allowed values, cross-field rules), `lightsim config
// explain`, and docs/config-reference.md.
//
//   struct RingSpec {
//     static constexpr std::string_view kind = "ring";
//     static constexpr std::string_view preset_dir = "devices";  // optional: `preset: NAME`
//     Length radius = parse<dims::length>("20 um");
//     double q_loaded = 1e4;
//     static void describe(config::Schema<RingSpec>& s) {
//       s.help("Add-drop micro-ring resonator.");
//       s.field("radius", &RingSpec::radius, "ring radius").range("1 um", "1 mm");
//       s.field("q_loaded", &RingSpec::q_loaded, "loaded quality factor").range(100, 1e8);
//     }
//   };
//   RingSpec ring = config::load_spec<RingSpec>("configs/devices/tfln_q1e4.yaml", options);
//
// Top-level files carry `schema_version: <int>` and `kind: <spec kind>`. Any mapping read as
// a spec with a preset_dir may say `preset: NAME`: the preset file
// `<config root>/<preset_dir>/NAME.yaml` is loaded and the mapping's other keys override it
// key by key (nested mappings merge recursively; lists are replaced).
// Every failure throws ConfigError (or UnitError) whose message starts with
// "file:line:column: key.path:".
#pragma once

#include <filesystem>

#include "lightsim/core/config_node.h"
#include "lightsim/core/config_reader.h"
#include "lightsim/core/config_schema.h"
#include "lightsim/core/config_value.h"

namespace lightsim::config {

template <Spec S>
void Reader::read_spec(S& out, const Node& node) {
  const Schema<S>& schema = schema_of<S>();
  if (node.find("preset") != nullptr && !schema.info().preset_dir.empty()) {
    const Node expanded = expand_preset(node, schema.info());
    schema.read(out, expanded, *this);
    return;
  }
  schema.read(out, node, *this);
}

// Reads a spec from an already parsed top-level document (with schema_version and kind).
template <Spec S>
S read_spec(const Node& document, const LoadOptions& options = {}) {
  int version = 1;
  if constexpr (requires { S::schema_version; }) version = S::schema_version;
  Node doc = document;
  for (const auto& assignment : options.assignments) apply_assignment(doc, assignment);
  const Node body = strip_header(doc, S::kind, version);
  Reader reader(options);
  S out{};
  reader.read_spec(out, body);
  return out;
}

// Loads a top-level config file of kind S::kind. Throws InputError/ConfigError/UnitError.
template <Spec S>
S load_spec(const std::filesystem::path& file, const LoadOptions& options = {}) {
  return read_spec<S>(load_document(file), options);
}

}  // namespace lightsim::config

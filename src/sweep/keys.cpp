// Key path validation (include/lightsim/sweep/keys.h).
#include "lightsim/sweep/keys.h"

#include <algorithm>

namespace lightsim::sweep {
namespace {

bool is_map_field(const config::FieldInfo& f) {
  return f.type.starts_with("map of");
}
bool is_list_field(const config::FieldInfo& f) {
  return f.type.starts_with("list of");
}

void collect(const config::SchemaInfo& schema, const std::string& prefix, int depth,
             std::vector<std::string>& out) {
  if (depth > 8) return;  // recursive specs: deep enough for any real path
  for (const auto& f : schema.fields) {
    std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
    out.push_back(path);
    if (f.nested == nullptr || is_list_field(f)) continue;
    if (is_map_field(f)) path += ".NAME";
    collect(*f.nested, path, depth + 1, out);
  }
  if (!schema.preset_dir.empty()) out.push_back(prefix.empty() ? "preset" : prefix + ".preset");
}

std::vector<std::string> split(std::string_view path) {
  std::vector<std::string> parts;
  while (true) {
    const auto dot = path.find('.');
    parts.emplace_back(path.substr(0, dot));
    if (dot == std::string_view::npos) return parts;
    path.remove_prefix(dot + 1);
  }
}

}  // namespace

std::vector<std::string> valid_paths(const config::SchemaInfo& schema) {
  std::vector<std::string> out;
  collect(schema, "", 0, out);
  return out;
}

void check_key_path(const config::SchemaInfo& schema, std::string_view path,
                    std::string_view where) {
  const std::vector<std::string> parts = split(path);
  const config::SchemaInfo* at = &schema;
  std::string walked;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    LIGHTSIM_CHECK_AS(ConfigError, !part.empty(), "{}: key '{}' has an empty part", where, path);
    const bool last = i + 1 == parts.size();
    if (last && part == "preset" && !at->preset_dir.empty()) return;
    const auto f = std::find_if(at->fields.begin(), at->fields.end(),
                                [&](const config::FieldInfo& x) { return x.name == part; });
    if (f == at->fields.end()) {
      // Suggest the closest full path; failing that, list the keys valid at this level.
      const std::string guess = config::closest_match(path, valid_paths(schema));
      std::vector<std::string> here;
      for (const auto& x : at->fields) here.push_back(x.name);
      const std::string hint =
          !guess.empty()
              ? fmt::format(" (did you mean '{}'?)", guess)
              : config::suggest(part, here,
                                walked.empty() ? std::string("valid keys")
                                               : fmt::format("valid keys under '{}'", walked));
      LIGHTSIM_THROW(ConfigError, "{}: key '{}' is not a key of the {} config{}", where, path,
                     schema.kind, hint);
    }
    walked = walked.empty() ? part : walked + "." + part;
    if (last) return;
    LIGHTSIM_CHECK_AS(ConfigError, f->nested != nullptr && !is_list_field(*f),
                      "{}: key '{}': '{}' is a {} and has no key '{}' (a list is set whole, "
                      "e.g. {}=\"[1, 2]\")",
                      where, path, walked, f->type, parts[i + 1], walked);
    at = f->nested;
    if (is_map_field(*f)) {  // the next part names an entry of the map
      ++i;
      walked += "." + parts[i];
      if (i + 1 == parts.size()) return;
    }
  }
}

void check_key_paths(const config::SchemaInfo& schema, const std::vector<std::string>& keys,
                     std::string_view where) {
  for (const auto& k : keys) check_key_path(schema, k, where);
  for (const auto& a : keys)
    for (const auto& b : keys)
      LIGHTSIM_CHECK_AS(ConfigError, a == b || !b.starts_with(a + "."),
                        "{}: key '{}' sets a value inside key '{}'; sweep one or the other", where,
                        b, a);
}

}  // namespace lightsim::sweep

// Non-template parts of the strict spec reader: scalars, messages, presets, file headers.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "lightsim/core/config.h"
#include "lightsim/core/config_files.h"

namespace lightsim::config {

std::string Reader::path() const {
  std::string out;
  for (const auto& key : path_) {
    if (!out.empty() && key.front() != '[') out += '.';
    out += key;
  }
  return out;
}

void Reader::fail(const Node& at, std::string_view message) const {
  fail(at.location(), message);
}

void Reader::fail(const Location& at, std::string_view message) const {
  const std::string key = path();
  if (key.empty()) LIGHTSIM_THROW(ConfigError, "{}: {}", at.str(), message);
  LIGHTSIM_THROW(ConfigError, "{}: {}: {}", at.str(), key, message);
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

const std::string& scalar_or_fail(const Node& n, const Reader& r, std::string_view expected) {
  if (!n.is_scalar()) r.fail(n, fmt::format("expected {}, got {}", expected, n.kind_name()));
  return n.scalar();
}

bool parse_double(std::string_view text, double& out) {
  text = trim(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  const std::size_t w = b.size() + 1;
  std::vector<std::size_t> d((a.size() + 1) * w);
  for (std::size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
      std::size_t best =
          std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1, d[(i - 1) * w + j - 1] + cost});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        best = std::min(best, d[(i - 2) * w + j - 2] + 1);
      d[i * w + j] = best;
    }
  }
  return d[a.size() * w + b.size()];
}

}  // namespace

double read_number(const Node& n, const Reader& r) {
  const std::string& text = scalar_or_fail(n, r, "a number");
  double v = 0;
  if (parse_double(text, v)) return v;
  r.fail(n,
         fmt::format("expected a finite plain number (this key takes no unit), got \"{}\"", text));
}

std::int64_t read_integer(const Node& n, const Reader& r) {
  const std::string& text = scalar_or_fail(n, r, "an integer");
  std::string_view t = trim(text);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec == std::errc() && end == t.data() + t.size()) return v;
  double d = 0;  // accept integral values written like 1e4
  if (parse_double(text, d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0)
    return static_cast<std::int64_t>(d);
  r.fail(n, fmt::format("expected an integer, got \"{}\"", text));
}

bool read_bool(const Node& n, const Reader& r) {
  const std::string& text = scalar_or_fail(n, r, "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  r.fail(n, fmt::format("expected true or false, got \"{}\"", text));
}

std::string read_string(const Node& n, const Reader& r) {
  return scalar_or_fail(n, r, "a string");
}

ParsedQuantity read_quantity(const Node& n, const Reader& r, Dim expected) {
  const std::string& text = scalar_or_fail(
      n, r,
      fmt::format("a {} such as \"{}\"", dimension_name(expected), format_quantity(1.0, expected)));
  try {
    ParsedQuantity q = parse_quantity(text, expected);
    if (!(q.dim == expected)) throw_dimension_mismatch(text, expected, q.dim);
    return q;
  } catch (const UnitError& e) {
    const std::string key = r.path();
    LIGHTSIM_THROW(UnitError, "{}: {}: {}", n.location().str(), key, e.what());
  }
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(1, std::min<std::size_t>(3, word.size() / 3));
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d <= best_distance && (best.empty() || d < best_distance)) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string suggest(std::string_view word, const std::vector<std::string>& candidates,
                    std::string_view label) {
  if (const std::string guess = closest_match(word, candidates); !guess.empty())
    return fmt::format(" (did you mean '{}'?)", guess);
  if (candidates.empty()) return "";
  return fmt::format(" ({}: {})", label, fmt::join(candidates, ", "));
}

std::string misspelled_key(const Node& map, std::string_view wanted) {
  if (!map.is_map()) return {};
  const std::vector<std::string> target{std::string(wanted)};
  for (const auto& [key, value] : map.entries())
    if (key != wanted && !closest_match(key, target).empty()) return key;
  return {};
}

std::string format_number(double v) {
  return fmt::format("{}", v);
}

Node strip_header(const Node& document, std::string_view kind, int schema_version) {
  const Reader r({});
  if (!document.is_map())
    r.fail(document, fmt::format("expected a mapping with schema_version, kind and {} keys, got {}",
                                 kind, document.kind_name()));
  const Node* version = document.find("schema_version");
  if (version == nullptr)
    r.fail(document, fmt::format("missing 'schema_version' (this lightsim reads {} files of "
                                 "schema_version {})",
                                 kind, schema_version));
  const std::int64_t v = read_integer(*version, r);
  if (v > schema_version)
    r.fail(*version, fmt::format("schema_version {} is newer than this lightsim reads for {} "
                                 "files ({}); update lightsim",
                                 v, kind, schema_version));
  if (v < schema_version)
    r.fail(*version, fmt::format("schema_version {} of {} files is no longer read (current: {})", v,
                                 kind, schema_version));
  const Node* given_kind = document.find("kind");
  if (given_kind == nullptr) {
    if (const std::string typo = misspelled_key(document, "kind"); !typo.empty())
      LIGHTSIM_THROW(ConfigError, "{}: unknown key '{}' (did you mean 'kind'?)",
                     document.key_location(typo).str(), typo);
    r.fail(document, fmt::format("missing 'kind' (expected kind: {})", kind));
  }
  const std::string k = read_string(*given_kind, r);
  if (k != kind)
    r.fail(*given_kind, fmt::format("this file is a '{}' config; expected a '{}' config", k, kind));
  Node body = document;
  body.erase("schema_version");
  body.erase("kind");
  return body;
}

std::string Reader::ref_scope() const {
  std::string out = options_.scope;
  for (const auto& key : path_) {
    if (key.front() == '[') continue;  // every item of a list of references shares its scope
    out += (out.empty() ? "" : ".") + key;
  }
  return out;
}

std::filesystem::path Reader::ref_file(const std::string& name, const Location& at,
                                       std::string_view dir, std::string_view kind) {
  std::filesystem::path file;
  try {
    file = find_named(name, dir, options_, fmt::format("{} config", kind),
                      std::filesystem::path(at.source).parent_path());
  } catch (const ConfigNotFound& e) {
    const std::string key = path();
    LIGHTSIM_THROW(ConfigNotFound, "{}: {}: {}", at.str(), key, e.what());
  }
  const std::string canonical = std::filesystem::weakly_canonical(file).string();
  if (std::find(ref_chain_.begin(), ref_chain_.end(), canonical) != ref_chain_.end())
    fail(at, fmt::format("reference cycle: {} -> {}", fmt::join(ref_chain_, " -> "), canonical));
  return file;
}

Node Reader::expand_preset(const Node& node, const SchemaInfo& schema) {
  const Node& preset = *node.find("preset");
  std::string name;
  {
    Scope scope(*this, "preset");
    name = read_string(preset, *this);
  }
  std::filesystem::path file;
  try {
    file = find_named(name, schema.preset_dir, options_, fmt::format("{} preset", schema.kind),
                      std::filesystem::path(preset.location().source).parent_path());
  } catch (const ConfigNotFound& e) {
    Scope scope(*this, "preset");
    const std::string key = path();
    LIGHTSIM_THROW(ConfigNotFound, "{}: {}: {}", preset.location().str(), key, e.what());
  }
  const std::string key = std::filesystem::weakly_canonical(file).string();
  if (std::find(preset_chain_.begin(), preset_chain_.end(), key) != preset_chain_.end()) {
    Scope scope(*this, "preset");
    fail(preset, fmt::format("preset cycle: {} -> {}", fmt::join(preset_chain_, " -> "), key));
  }
  preset_chain_.push_back(key);
  Node base = strip_header(load_document(file, options_), schema.kind, schema.schema_version);
  if (base.find("preset") != nullptr) base = expand_preset(base, schema);
  preset_chain_.pop_back();

  // The merged mapping is located where the user wrote it (so cross-field rule errors point
  // there); each key keeps the location of the file that set it.
  Node merged = Node::make_map(node.location());
  merge_into(merged, base);
  Node overlay = node;
  overlay.erase("preset");
  merge_into(merged, overlay);
  return merged;
}

}  // namespace lightsim::config

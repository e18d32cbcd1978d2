// A parsed YAML/JSON document that remembers where every value came from.
//
// The strict spec reader (config.h) walks this tree instead of yaml-cpp's, so that presets
// merged from other files and `--set` overrides keep their own file and line in errors.
// JSON is read by the same YAML 1.2 parser (JSON is a subset of YAML 1.2).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lightsim::config {

// Where a value was written: a file (or "--set" / "<string>") and a 1-based line and column.
struct Location {
  std::string source;
  int line = 0;
  int column = 0;

  // "file:line:column", or just "file" when the line is unknown.
  std::string str() const;
};

class Node {
 public:
  enum class Kind { null, scalar, map, sequence };
  using Entry = std::pair<std::string, Node>;

  Node() = default;
  static Node make_null(Location where);
  static Node make_scalar(std::string value, Location where);
  static Node make_map(Location where);
  static Node make_sequence(Location where);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_map() const { return kind_ == Kind::map; }
  bool is_sequence() const { return kind_ == Kind::sequence; }
  const Location& location() const { return location_; }

  // Scalar text (precondition: is_scalar()).
  const std::string& scalar() const;
  // Map entries in file order (precondition: is_map()). Keys are unique.
  const std::vector<Entry>& entries() const;
  // Sequence items (precondition: is_sequence()).
  const std::vector<Node>& items() const;

  // Map lookup; nullptr when absent or when this is not a map.
  const Node* find(std::string_view key) const;
  Node* find(std::string_view key);
  // Where a map key was written (the value's location when the key's is unknown).
  const Location& key_location(std::string_view key) const;
  // Map insert-or-replace (precondition: is_map()); returns the stored node. `key_at` is
  // where the key was written (default: the value's location).
  Node& set(std::string key, Node value, Location key_at = {});
  // Removes a key if present (precondition: is_map()).
  void erase(std::string_view key);
  // Appends to a sequence (precondition: is_sequence()).
  void push_back(Node value);

  // A word for error messages: "a mapping", "a list", "a value", "nothing".
  std::string_view kind_name() const;

 private:
  Kind kind_ = Kind::null;
  Location location_;
  std::string scalar_;
  std::vector<Entry> entries_;
  std::vector<Location> key_locations_;  // parallel to entries_
  std::vector<Node> items_;
};

// Parses YAML (or JSON) text. `source` names it in locations. Throws ConfigError with the
// position on a syntax error or a duplicated key.
Node parse_document(std::string_view text, const std::string& source);
// Reads and parses a file. A missing or unreadable file is an InputError naming the path.
Node load_document(const std::filesystem::path& file);

// Deep-merges `overlay` onto `base`: maps merge key by key (recursively), anything else in the
// overlay replaces the base value. Locations of overlay values are kept.
void merge_into(Node& base, const Node& overlay);

// Applies one "key.path=value" assignment (as given to `--set`). The value is parsed as YAML
// (so "[1, 2]" is a list); intermediate maps are created. Throws UsageError on a malformed
// assignment.
void apply_assignment(Node& root, std::string_view assignment);
// The same for a value addressed to `path` of `root`; values are located at "--set <label>".
void apply_assignment(Node& root, std::string_view path, std::string_view value_text,
                      std::string_view label);

// Emits the tree as YAML text (for provenance: the effective configuration of a run).
std::string to_yaml(const Node& node);

}  // namespace lightsim::config

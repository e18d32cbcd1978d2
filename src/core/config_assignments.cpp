// Scoped `--set` assignments (include/lightsim/core/config_assignments.h).
#include "lightsim/core/config_assignments.h"

#include <algorithm>

#include "lightsim/core/config_reader.h"
#include "lightsim/core/error.h"

namespace lightsim::config {

namespace {

// Where an assignment's path (scope removed) lands in a schema.
enum class Target { here, referenced, none };

const FieldInfo* find_field(const SchemaInfo& schema, std::string_view name) {
  for (const auto& f : schema.fields)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> keys;
  while (true) {
    const auto dot = path.find('.');
    keys.push_back(path.substr(0, dot));
    if (dot == std::string_view::npos) return keys;
    path.remove_prefix(dot + 1);
  }
}

Target classify(std::string_view path, const SchemaInfo& schema) {
  const std::vector<std::string_view> keys = split_path(path);
  const SchemaInfo* info = &schema;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool last = i + 1 == keys.size();
    if (info == nullptr) return Target::none;
    if (keys[i] == "preset" && !info->preset_dir.empty()) return last ? Target::here : Target::none;
    const FieldInfo* f = find_field(*info, keys[i]);
    if (f == nullptr) return Target::none;
    if (last) return Target::here;
    if (f->referenced != nullptr) return Target::referenced;
    if (f->listed) return Target::none;  // lists are replaced whole
    if (f->keyed) {
      ++i;  // keys[i] is an entry's name
      if (i + 1 == keys.size()) return Target::here;
    }
    info = f->nested;
  }
  return Target::none;
}

// Every key path of a schema (nested specs flattened, Ref fields as their own name).
void key_paths(const SchemaInfo& schema, const std::string& prefix, std::vector<std::string>& out,
               int depth) {
  if (depth > 16) return;
  for (const auto& f : schema.fields) {
    out.push_back(prefix + f.name);
    if (f.nested != nullptr && f.referenced == nullptr && !f.listed && !f.keyed)
      key_paths(*f.nested, prefix + f.name + ".", out, depth + 1);
  }
}

std::string_view key_of(std::string_view text) {
  const auto eq = text.find('=');
  return eq == std::string_view::npos ? text : text.substr(0, eq);
}

}  // namespace

Assignments::Assignments(std::vector<std::string> texts) {
  for (auto& text : texts) push_back(std::move(text));
}

void Assignments::push_back(std::string text) {
  entries_.push_back({std::move(text), std::make_shared<std::atomic<bool>>(false)});
}

std::vector<std::string> Assignments::texts() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const auto& e : entries_) out.push_back(e.text);
  return out;
}

void Assignments::apply(Node& document, const SchemaInfo& schema, std::string_view scope) const {
  {
    const std::lock_guard lock(seen_->mutex);
    const std::pair<std::string, const SchemaInfo*> doc{std::string(scope), &schema};
    if (std::find(seen_->documents.begin(), seen_->documents.end(), doc) == seen_->documents.end())
      seen_->documents.push_back(doc);
  }
  for (const auto& e : entries_) {
    const auto eq = e.text.find('=');
    LIGHTSIM_CHECK_AS(UsageError, eq != std::string::npos && eq > 0,
                      "--set '{}': expected KEY.PATH=VALUE", e.text);
    const std::string_view key = std::string_view(e.text).substr(0, eq);
    std::string_view path = key;
    if (!scope.empty()) {
      if (!(path.size() > scope.size() + 1 && path.starts_with(scope) && path[scope.size()] == '.'))
        continue;
      path.remove_prefix(scope.size() + 1);
    }
    if (classify(path, schema) != Target::here) continue;
    apply_assignment(document, path, std::string_view(e.text).substr(eq + 1), key);
    e.used->store(true);
  }
  const std::lock_guard lock(seen_->mutex);
  if (seen_->record) seen_->contents.push_back(std::string(scope) + "\n" + to_yaml(document));
}

void Assignments::record_contents() const {
  const std::lock_guard lock(seen_->mutex);
  seen_->record = true;
}

std::vector<std::string> Assignments::contents() const {
  const std::lock_guard lock(seen_->mutex);
  return seen_->contents;
}

void Assignments::require_all_used() const {
  for (const auto& e : entries_) {
    if (e.used->load()) continue;
    const std::string key(key_of(e.text));
    LIGHTSIM_CHECK_AS(UsageError, !key.empty() && key.size() < e.text.size(),
                      "--set '{}': expected KEY.PATH=VALUE", e.text);
    std::vector<std::string> known;
    {
      const std::lock_guard lock(seen_->mutex);
      for (const auto& [scope, schema] : seen_->documents)
        key_paths(*schema, scope.empty() ? std::string() : scope + ".", known, 0);
    }
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    if (known.empty())
      LIGHTSIM_THROW(UsageError, "--set {}: this command reads no config that --set addresses",
                     key);
    // A key written without the path of the document that has it: suggest the full path.
    const std::string leaf(split_path(key).back());
    std::string guess;
    for (const auto& k : known)
      if (k.size() > leaf.size() && k.ends_with("." + leaf)) guess = guess.empty() ? k : guess;
    if (guess.empty()) guess = closest_match(key, known);
    LIGHTSIM_THROW(UsageError, "--set {}: no config read by this command has this key{}", key,
                   guess.empty() ? std::string(" (see `lightsim config explain KIND`)")
                                 : fmt::format(" (did you mean '{}'?)", guess));
  }
}

}  // namespace lightsim::config

// Scorers chosen by name (scorer_setup.h).
#include "lightsim/kv/scorer_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "lightsim/core/error.h"
#include "lightsim/kv/register.h"

namespace lightsim::kv {
namespace {

bool names_file(const std::string& label) {
  for (const char* ext : {".yaml", ".yml", ".json"})
    if (label.ends_with(ext)) return true;
  return false;
}

bool has_field(const config::SchemaInfo& schema, std::string_view field) {
  return std::any_of(schema.fields.begin(), schema.fields.end(),
                     [&](const config::FieldInfo& f) { return f.name == field; });
}

// The implementation whose options kind is `kind`.
std::string scorer_of_kind(const ScorerFamily& scorers, const std::string& kind,
                           const std::filesystem::path& file) {
  std::vector<std::string> kinds;
  for (const Implementation& impl : scorers.implementations()) {
    const ScorerFactory& f = scorers.get(impl.name);
    if (f.schema->kind == kind) return impl.name;
    kinds.push_back(f.schema->kind);
  }
  LIGHTSIM_THROW(ConfigError, "{}: kind '{}' is not a scorer options kind{}", file.string(), kind,
                 config::suggest(kind, kinds, "scorer kinds"));
}

struct Choice {
  std::string scorer;
  config::Node document;
};

Choice document_for(const std::string& label, const ScorerFamily& scorers) {
  if (names_file(label)) {
    config::Node doc = config::load_document(label);
    const config::Node* kind = doc.find("kind");
    LIGHTSIM_CHECK_AS(ConfigError, kind != nullptr && kind->is_scalar(),
                      "{}: missing 'kind' (a scorer options kind such as scorer_faiss_ivfpq)",
                      label);
    return {scorer_of_kind(scorers, kind->scalar(), label), std::move(doc)};
  }
  const auto colon = label.find(':');
  Choice c{label.substr(0, colon), {}};
  const ScorerFactory& f = scorers.get(c.scorer);
  const config::Location at{"--scorer " + label, 0, 0};
  c.document = config::Node::make_map(at);
  c.document.set("schema_version", config::Node::make_scalar("1", at));
  c.document.set("kind", config::Node::make_scalar(f.schema->kind, at));
  if (colon != std::string::npos) {
    LIGHTSIM_CHECK_AS(UsageError, has_field(*f.schema, "projection"),
                      "--scorer {}: scorer '{}' takes no projection", label, c.scorer);
    c.document.set("projection", config::Node::make_scalar(label.substr(colon + 1), at));
  }
  return c;
}

std::vector<std::string> expand(std::span<const std::string> labels) {
  std::vector<std::string> out;
  for (const std::string& l : labels) {
    if (l != "all") {
      out.push_back(l);
      continue;
    }
    for (const char* n : {"exact", "mean_key", "quest", "rep_keys", "faiss_ivfpq"})
      out.emplace_back(n);
    for (const char* p : {"pca", "pca_qk", "random", "first"})
      out.push_back(std::string("signature:") + p);
  }
  return out;
}

// The complete options document of every label, `options` set on top.
std::vector<Choice> documents(std::span<const std::string> labels,
                              std::span<const ScorerOption> options, const ScorerFamily& scorers) {
  std::set<std::string> used;
  std::vector<Choice> out;
  for (const std::string& label : expand(labels)) {
    Choice c = document_for(label, scorers);
    const ScorerFactory& f = scorers.get(c.scorer);
    for (const ScorerOption& o : options) {
      if (!has_field(*f.schema, o.field)) continue;
      config::Node value = config::parse_document(o.value, o.source);
      // A scalar is located at the option itself, not at line 1 of its one-line text.
      if (value.is_scalar()) value = config::Node::make_scalar(value.scalar(), {o.source, 0, 0});
      c.document.set(o.field, std::move(value));
      used.insert(o.field);
    }
    out.push_back(std::move(c));
  }
  for (const ScorerOption& o : options)
    LIGHTSIM_CHECK_AS(UsageError, used.contains(o.field),
                      "{}: none of the selected scorers takes '{}' (`lightsim config explain "
                      "scorer_<name>` lists each scorer's options)",
                      o.source, o.field);
  return out;
}

ScorerEnvironment bound_environment(const ScorerEnvironment& env) {
  ScorerEnvironment bound = env;
  bound.load.assignments.clear();  // the documents are complete: options were set on them
  return bound;
}

}  // namespace

std::vector<ScorerSetup> resolve_scorers(std::span<const std::string> labels,
                                         std::span<const ScorerOption> options,
                                         const ScorerFamily& scorers,
                                         const ScorerEnvironment& env) {
  const ScorerEnvironment bound = bound_environment(env);
  std::vector<ScorerSetup> out;
  for (const Choice& c : documents(labels, options, scorers))
    out.push_back(scorers.get(c.scorer).bind(c.document, bound));
  return out;
}

std::vector<BudgetFit> fit_scorers(std::span<const std::string> labels,
                                   std::span<const ScorerOption> options,
                                   const ScorerFamily& scorers, const ScorerEnvironment& env,
                                   const SummaryGeometry& geometry, double budget) {
  const ScorerEnvironment bound = bound_environment(env);
  std::vector<BudgetFit> out;
  for (const Choice& c : documents(labels, options, scorers)) {
    const ScorerFactory& f = scorers.get(c.scorer);
    if (f.fit)
      out.push_back(f.fit(c.document, bound, geometry, budget));
    else
      out.push_back({.reason = fmt::format("scorer '{}' has no metadata size rule", c.scorer)});
  }
  return out;
}

void check_scorers(std::span<const std::string> labels, std::span<const ScorerOption> options,
                   const ScorerFamily& scorers, const ScorerEnvironment& env,
                   const SummaryGeometry& geometry) {
  const ScorerEnvironment bound = bound_environment(env);
  for (const Choice& c : documents(labels, options, scorers)) {
    const ScorerFactory& f = scorers.get(c.scorer);
    if (f.check) f.check(c.document, bound, geometry);
  }
}

const ScorerFamily& scorer_family(const Registry& registry) {
  const ScorerFamily* f = registry.find_family<ScorerFactory>(kScorerFamily);
  LIGHTSIM_CHECK(f != nullptr, "the registry has no {} family", kScorerFamily);
  return *f;
}

const ProjectionFamily& projection_family(const Registry& registry) {
  const ProjectionFamily* f = registry.find_family<ProjectionFitter>(kProjectionFamily);
  LIGHTSIM_CHECK(f != nullptr, "the registry has no {} family", kProjectionFamily);
  return *f;
}

}  // namespace lightsim::kv

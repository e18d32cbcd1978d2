#include "lightsim/ops/operation.h"

#include <algorithm>

namespace lightsim::ops {

OperationFamily& operation_family(Registry& registry) {
  return registry.family<OperationPtr>(std::string(kOperationFamily),
                                       "operations (CLI subcommands, Python functions, sweep "
                                       "targets): docs/operations.md");
}

std::vector<const Operation*> operations(const Registry& registry) {
  std::vector<const Operation*> out;
  const OperationFamily* family = registry.find_family<OperationPtr>(kOperationFamily);
  if (family == nullptr) return out;
  for (const Implementation& impl : family->implementations())
    out.push_back(family->get(impl.name).get());
  return out;
}

const Operation& find_operation(const Registry& registry, std::string_view name) {
  const OperationFamily* family = registry.find_family<OperationPtr>(kOperationFamily);
  LIGHTSIM_CHECK_AS(ConfigError, family != nullptr, "unknown operation '{}' (none registered)",
                    name);
  return *family->get(name);
}

bool has_spec_kind(const Registry& registry, std::string_view kind) {
  const std::vector<std::string> kinds = registry.spec_kinds();
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

void check(const Operation& op, const config::Node& request, Env env) {
  env.check_only = true;
  try {
    (void)op.run(request, env);
  } catch (const InputsChecked&) {
  }
}

bool is_list_field(const config::FieldInfo& field) {
  return field.type.starts_with("list of");
}

bool is_map_field(const config::FieldInfo& field) {
  return field.type.starts_with("map of");
}

const config::FieldInfo* find_field(const config::SchemaInfo& schema, std::string_view name) {
  for (const config::FieldInfo& f : schema.fields)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {

// The field `name` addresses ("FIELD" or "FIELD.KEY" of a map field) and the key ("" for
// the whole field); null when it addresses none.
std::pair<const config::FieldInfo*, std::string> addressed(const config::SchemaInfo& schema,
                                                           std::string_view name) {
  if (const config::FieldInfo* f = find_field(schema, name)) return {f, ""};
  const std::size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == name.size()) return {nullptr, ""};
  const config::FieldInfo* f = find_field(schema, name.substr(0, dot));
  if (f == nullptr || !is_map_field(*f)) return {nullptr, ""};
  return {f, std::string(name.substr(dot + 1))};
}

// Sets `key` = `value` in the map field `field` of `doc` (created when absent).
void set_entry(config::Node& doc, const std::string& field, const std::string& key,
               const std::string& value, const config::Location& at) {
  config::Node* map = doc.find(field);
  if (map == nullptr) map = &doc.set(field, config::Node::make_map(at), at);
  map->set(key, config::Node::make_scalar(value, at), at);
}

}  // namespace

bool addresses_request(const config::SchemaInfo& schema, std::string_view name) {
  return addressed(schema, name).first != nullptr;
}

config::Node request_document(const config::SchemaInfo& schema,
                              const std::vector<FieldValues>& fields, std::string_view origin) {
  config::Node doc = config::Node::make_map({std::string(origin), 0, 0});
  for (const FieldValues& v : fields) {
    const config::Location at{v.where, 0, 0};
    const auto [f, key] = addressed(schema, v.name);
    if (f == nullptr) {
      std::vector<std::string> names;
      for (const config::FieldInfo& x : schema.fields) names.push_back(x.name);
      LIGHTSIM_THROW(UsageError, "{}: '{}' is not a field of the {}{}", v.where, v.name,
                     schema.kind, config::suggest(v.name, names, "fields"));
    }
    if (v.values.empty()) continue;
    if (!key.empty()) {
      set_entry(doc, f->name, key, v.values.back(), at);
    } else if (is_map_field(*f)) {
      for (const std::string& x : v.values) {
        const std::size_t eq = x.find('=');
        LIGHTSIM_CHECK_AS(UsageError, eq != std::string::npos && eq > 0,
                          "{}: expected KEY=VALUE, got '{}'", v.where, x);
        set_entry(doc, f->name, x.substr(0, eq), x.substr(eq + 1), at);
      }
    } else if (is_list_field(*f)) {
      config::Node seq = config::Node::make_sequence(at);
      for (const std::string& x : v.values) seq.push_back(config::Node::make_scalar(x, at));
      doc.set(v.name, std::move(seq), at);
    } else {
      doc.set(v.name, config::Node::make_scalar(v.values.back(), at), at);
    }
  }
  return doc;
}

std::string_view group_help(std::string_view group) {
  static constexpr std::pair<std::string_view, std::string_view> kGroups[] = {
      {"photonics", "Device physics of a micro-ring weight bank"},
      {"prism", "The Prism photonic KV-block selector"},
      {"fabric", "GPU fabrics and collective communication"},
      {"decode", "Per-token decode latency, power and cost"},
      {"serve", "Request-level serving simulation: arrivals, batching, SLOs, goodput"},
      {"model", "Transformer models from config.json"},
      {"prefill", "MoE prefill performance: plans, search, study"},
      {"kv", "KV caches: generate, select blocks, calibrate"},
      {"study", "Named studies: one per seed table or figure"},
  };
  for (const auto& [name, help] : kGroups)
    if (name == group) return help;
  return {};
}

std::string run_json(const Registry& registry, std::string_view name, const config::Node& request,
                     Env& env) {
  return dump_json(find_operation(registry, name).run(request, env).json);
}

}  // namespace lightsim::ops

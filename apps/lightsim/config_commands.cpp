// `lightsim config explain|check|reference`: the strict config reader from the command line.
#include <filesystem>
#include <iostream>

#include "cli.h"
#include "lightsim/core/atomic_file.h"
#include "lightsim/core/json.h"

namespace lightsim::cli {
namespace {

Json schema_json(const config::SchemaInfo& schema) {
  Json fields = Json::array();
  for (const auto& f : schema.fields) {
    Json field = {{"name", f.name},         {"type", f.type},
                  {"unit", f.unit},         {"default", f.required ? Json() : Json(f.default_text)},
                  {"required", f.required}, {"constraint", f.constraint},
                  {"help", f.help}};
    if (f.nested != nullptr) field["fields"] = schema_json(*f.nested)["fields"];
    fields.push_back(std::move(field));
  }
  return {{"kind", schema.kind},
          {"schema_version", schema.schema_version},
          {"help", schema.help},
          {"preset_dir", schema.preset_dir},
          {"fields", fields}};
}

}  // namespace

void add_config_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* config = app.add_subcommand("config", "Explain and check config files");
  config->require_subcommand(1);

  auto* explain_cmd = config->add_subcommand("explain", "Print every field of a config kind");
  auto kind = std::make_shared<std::string>();  // owned by the callback, as are files below
  explain_cmd->add_option("KIND", *kind, "Config kind (see `lightsim list`)")->required();
  explain_cmd->callback([kind, &options, &registry] {
    const auto& schema = registry.spec(*kind);
    if (options.json)
      std::cout << dump_json(schema_json(schema));
    else
      std::cout << explain(schema);
  });

  auto* check_cmd = config->add_subcommand("check", "Validate config files (exit 2 on error)");
  auto files = std::make_shared<std::vector<std::filesystem::path>>();
  check_cmd->add_option("FILE", *files, "Config files to check")->required();
  check_cmd->callback([files, &options, &registry] {
    std::vector<std::string> kinds;
    for (const auto& file : *files)
      kinds.push_back(registry.check_file(file, options.load_options()));
    options.require_all_used();
    Json results = Json::array();
    for (std::size_t i = 0; i < files->size(); ++i) {
      const std::string& file = (*files)[i].string();
      if (options.json)
        results.push_back({{"file", file}, {"kind", kinds[i]}});
      else if (!options.quiet)
        std::cout << file << ": ok (" << kinds[i] << ")\n";
    }
    if (options.json) std::cout << dump_json({{"ok", true}, {"checked", results}});
  });

  auto* reference_cmd =
      config->add_subcommand("reference", "Print the Markdown reference of every config kind");
  auto output = std::make_shared<std::filesystem::path>();
  reference_cmd->add_option("-o,--output", *output, "Write to this file instead of stdout");
  reference_cmd->callback([output, &registry] {
    const std::string text = config_reference_markdown(registry);
    if (output->empty())
      std::cout << text;
    else
      write_file_atomic(*output, text);
  });
}

}  // namespace lightsim::cli

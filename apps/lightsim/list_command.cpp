// `lightsim list`: the registered config kinds and implementation families.
#include <iostream>

#include "cli.h"
#include "lightsim/core/json.h"

namespace lightsim::cli {

void add_list_command(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* cmd = app.add_subcommand("list", "List config kinds and registered implementations");
  cmd->callback([&options, &registry] {
    options.require_all_used();  // it reads no config: any --set is an error
    if (options.json) {
      Json out;
      out["config_kinds"] = registry.spec_kinds();
      Json families = Json::object();
      for (const auto& family : registry.families()) {
        Json impls = Json::array();
        for (const auto& impl : *family.implementations)
          impls.push_back({{"name", impl.name}, {"help", impl.help}});
        families[family.name] = {{"help", family.help}, {"implementations", impls}};
      }
      out["families"] = families;
      std::cout << dump_json(out);
      return;
    }
    std::cout << "Config kinds (lightsim config explain KIND):\n";
    for (const auto& kind : registry.spec_kinds())
      std::cout << "  " << kind << "  " << registry.spec(kind).help << "\n";
    const auto families = registry.families();
    std::cout << "\nImplementation families:\n";
    if (families.empty()) std::cout << "  (none registered in this build)\n";
    for (const auto& family : families) {
      std::cout << "  " << family.name << ": " << family.help << "\n";
      for (const auto& impl : *family.implementations)
        std::cout << "    " << impl.name << "  " << impl.help << "\n";
    }
  });
}

}  // namespace lightsim::cli

// `lightsim study list`: the registered studies. `study run` is an operation
// (src/ops/study_ops.cpp).
#include <iostream>

#include "cli.h"
#include "lightsim/core/json.h"
#include "lightsim/studies/study.h"

namespace lightsim::cli {

void add_study_commands(CLI::App& app, const GlobalOptions& options, const Registry& registry) {
  CLI::App* study = app.add_subcommand("study", "Named studies: one per seed table or figure");
  study->require_subcommand(1);

  CLI::App* list = study->add_subcommand("list", "List the registered studies");
  list->callback([&options, &registry] {
    const auto names = studies::study_names(registry);
    if (options.json) {
      std::cout << dump_json(Json(names));
      return;
    }
    const auto* family = registry.find_family<studies::StudyFunction>(studies::kStudyFamily);
    if (family != nullptr)
      for (const auto& impl : family->implementations())
        fmt::print("{:<14} {}\n", impl.name, impl.help);
  });
}

}  // namespace lightsim::cli

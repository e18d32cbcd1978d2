// lightsim.list_studies and lightsim.run_study (bindings.h, include/lightsim/studies/study.h).
#include <algorithm>
#include <string>

#include "bindings.h"
#include "lightsim/report/result.h"
#include "lightsim/studies/study.h"

namespace lightsim::python {

using namespace pybind11::literals;

void bind_studies(py::module_& m, const RegistryPtr& registry) {
  m.def(
      "list_studies", [registry] { return studies::study_names(*registry); },
      "Names of the registered studies, in registration order (`lightsim study list`).");

  m.def(
      "run_study",
      [registry](const std::string& name, const py::object& config, const std::string& size,
                 std::uint64_t seed, std::size_t threads, const py::object& set,
                 const py::object& config_path, bool progress) -> py::object {
        const config::LoadOptions load = load_options(set, config_path);
        const studies::Size study_size = studies::parse_size(size);
        const auto names = studies::study_names(*registry);
        if (std::find(names.begin(), names.end(), name) == names.end())
          LIGHTSIM_THROW(UsageError, "unknown study '{}'{}", name, config::suggest(name, names));
        const std::filesystem::path file =
            config.is_none() ? studies::default_config(name, load) : to_path(config);
        (void)registry->check_file(file, load);  // the study's config at every size
        load.assignments.require_all_used();     // a `set` key no config read has: InputError
        const Json doc = run_interruptible([&](const std::atomic<bool>* cancel) {
          Context ctx(context_options(seed, threads, progress, cancel));
          const report::StudyResult r =
              studies::run_study(*registry, name, file, load, study_size, ctx);
          return report::to_json(r, name);
        });
        py::object out = to_python(doc);
        py::dict arrays;
        for (const Json& table : doc.at("tables"))
          arrays[py::str(table.at("name").get<std::string>())] = table_arrays(table);
        out["arrays"] = arrays;
        return out;
      },
      "name"_a, "config"_a = py::none(), "size"_a = "default", "seed"_a = 1, "threads"_a = 0,
      "set"_a = py::none(), "config_path"_a = py::none(), "progress"_a = false,
      R"doc(Run a registered study and return its result as a dict (docs/results.md).

config: the study's config file (default configs/studies/NAME.yaml). size: "quick",
"default" or "full" (the config's sizes overlays). seed: seed of every random stream
(results are identical for any `threads`; 0 = all cores). set: {"key.path": value}
overrides applied after the size overlay. progress: show progress bars on stderr.
The dict holds study, title, claims (seed figure, ours, deviation, verdict), tables
(columns, rows), charts (Vega-Lite) and `arrays`: {table: {column: numpy array}}.
Ctrl-C stops the study between work items and raises KeyboardInterrupt.)doc");
}

}  // namespace lightsim::python

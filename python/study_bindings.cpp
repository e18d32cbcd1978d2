// lightsim.list_studies and lightsim.run_study (bindings.h): run_study is the study_run
// operation (src/ops/study_ops.cpp) with the result's tables also as numpy arrays.
#include <string>

#include "bindings.h"
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
        // The study_run operation, writing no files (the dict is the result).
        OperationCall call;
        call.field("name", py::str(name));
        if (!config.is_none()) call.field("config", py::str(to_path(config).string()));
        const studies::Size study_size = studies::parse_size(size);
        if (study_size != studies::Size::standard)
          call.field(std::string(studies::to_string(study_size)), py::bool_(true));
        call.load = load_options(set, config_path);
        call.seed = seed;
        call.threads = threads;
        call.progress = progress;
        const Json doc = run_operation(*registry, "study_run", call);
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

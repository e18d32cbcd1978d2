// Shared pieces of the Python module `lightsim` (python/, docs/python.md): conversions between
// lightsim's JSON/config trees and Python objects, load options from keyword arguments, and
// running long C++ calls without the GIL while Ctrl-C still stops them.
//
// The module binds narrow functions, never the C++ classes: each binding converts its Python
// arguments, releases the GIL, calls the library and converts the result back to plain dicts,
// lists and NumPy arrays. The only state is the Registry built once at import
// (lightsim::register_builtin), shared read-only by every binding.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "lightsim/core/config.h"
#include "lightsim/core/context.h"
#include "lightsim/core/json.h"
#include "lightsim/core/registry.h"

namespace lightsim::python {

namespace py = pybind11;

using RegistryPtr = std::shared_ptr<const Registry>;

// JSON -> Python: object -> dict (key order kept), array -> list, numbers -> int/float,
// string -> str, bool, null -> None.
py::object to_python(const Json& value);
// Python -> JSON: dict (str keys), list/tuple, bool, int, float, str, None, NumPy scalars and
// arrays (through .tolist()). Anything else is a UsageError naming `what` and the type.
Json to_json(py::handle value, const std::string& what);
// A config tree -> Python, scalars resolved as YAML 1.2 core-schema values: true/false -> bool,
// integers -> int, decimal or exponent numbers -> float, anything else (e.g. "20 um") -> str.
py::object to_python(const config::Node& node);

// Preset roots (`config_path`: None, a path or a list of paths, searched first; then the
// data folder's configs/ (lightsim/core/data_dir.h), as the CLI does) and `set` assignments (None,
// a dict
// {"key.path": value} or a list of "key.path=value" strings; non-string values are written as
// JSON, which YAML reads back as the same value).
config::LoadOptions load_options(const py::object& set, const py::object& config_path);
// A path from str or os.PathLike.
std::filesystem::path to_path(const py::handle& value);
// True for str or os.PathLike values that name an existing file or directory.
bool is_existing_path(const py::handle& value);
// A top-level config document from a file path, a preset NAME (<root>/<preset_dir>/NAME.yaml
// of `kind`, when kind has presets), YAML/JSON text (any string with a newline or starting
// with '{') or a dict. With `kind` given, a document without `kind` gets it (and the kind's
// schema_version), so snippets need no header.
config::Node load_document(const py::object& source, const std::string& kind,
                           const Registry& registry, const config::LoadOptions& load);

// A table as {"columns": [{name, unit}], "rows": [...]} -> {column: ndarray}: bool, int64 or
// float64 for homogeneous numeric columns, str arrays for text, object arrays otherwise.
py::dict table_arrays(const Json& table);

// Context options for a binding: seed, threads (0 = all), warnings only, no progress bars
// unless `progress`.
ContextOptions context_options(std::uint64_t seed, std::size_t threads, bool progress,
                               const std::atomic<bool>* cancel);

// Runs fn(cancel) on a worker thread with the GIL released and returns its result (or
// rethrows its exception). Meanwhile the calling thread checks Python's signals every 100 ms;
// on Ctrl-C it sets `cancel` (code that polls Context::cancelled() stops between work items),
// waits for the worker and raises KeyboardInterrupt. Requires the GIL on entry.
template <class F>
auto run_interruptible(F&& fn) -> decltype(fn(static_cast<const std::atomic<bool>*>(nullptr))) {
  using Result = decltype(fn(static_cast<const std::atomic<bool>*>(nullptr)));
  std::atomic<bool> cancel{false};
  std::optional<Result> result;
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false, interrupted = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&] {
      try {
        result.emplace(fn(&cancel));
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_one();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return done; })) {
      if (interrupted) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        // Runs Python's handlers; a raised KeyboardInterrupt stays set until we rethrow it.
        interrupted = PyErr_CheckSignals() != 0;
      }
      if (interrupted) cancel.store(true);
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

void bind_config(py::module_& m, const RegistryPtr& registry);
// Runs operation `name` (include/lightsim/ops/operation.h) on `request` through
// run_interruptible: the one path by which every binding computes. `out` empty: the operation
// writes no files. Returns the operation's JSON (the CLI's --json).
struct OperationCall {
  config::Node request = config::Node::make_map({"keyword arguments", 0, 0});
  config::LoadOptions load{};
  std::uint64_t seed = 1;
  std::size_t threads = 0;
  bool progress = false;
  std::filesystem::path out{};
  // Sets request field `name` to `value` (field_node; located at "keyword NAME"); None
  // leaves the field at its default.
  void field(const std::string& name, py::handle value);
};
Json run_operation(const Registry& registry, std::string_view name, const OperationCall& call);

// The request node of keyword `name`: a str as given (so "10 s" reads as a quantity), any
// other value as its JSON; located at "keyword NAME" for error messages.
config::Node field_node(const std::string& name, py::handle value);

void bind_studies(py::module_& m, const RegistryPtr& registry);
void bind_kv(py::module_& m, const RegistryPtr& registry);
void bind_prefill(py::module_& m, const RegistryPtr& registry);
void bind_operations(py::module_& m, const RegistryPtr& registry);

}  // namespace lightsim::python

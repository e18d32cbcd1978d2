// The compiled module `lightsim._core` of the Python package `lightsim` (python/lightsim/,
// docs/python.md): the exception hierarchy, the Registry built once at import, and the bound
// functions of each *_bindings.cpp file. The package wraps them with real signatures and adds
// one function per operation (python/lightsim/_signatures.py).
#include <memory>
#include <new>

#include "bindings.h"
#include "lightsim/builtin/register.h"
#include "lightsim/core/out_of_memory.h"

namespace lightsim::python {
namespace {

// Raises the lightsim.<name> exception type with `message`. The types are looked up on the
// module (created once in PYBIND11_MODULE), so the translator holds no state of its own.
void raise(const char* name, const char* message) {
  const py::object type = py::module_::import("lightsim._core").attr(name);
  PyErr_SetString(type.ptr(), message);
}

void translate(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const OutOfMemory& e) {
    raise("OutOfMemory", e.what());
  } catch (const std::bad_alloc&) {  // pybind11's own translation would be a bare MemoryError
    raise("OutOfMemory", out_of_memory_message("running a lightsim function").c_str());
  } catch (const ConfigError& e) {
    raise("ConfigError", e.what());
  } catch (const UnitError& e) {
    raise("UnitError", e.what());
  } catch (const UsageError& e) {
    raise("UsageError", e.what());
  } catch (const DataFormatError& e) {
    raise("DataFormatError", e.what());
  } catch (const InputError& e) {
    raise("InputError", e.what());
  } catch (const Interrupted& e) {
    raise("Interrupted", e.what());
  } catch (const Error& e) {
    raise("Error", e.what());
  }
}

// class NAME(bases...) in module `m`, with a docstring.
py::object add_exception(py::module_& m, const char* name, const py::tuple& bases,
                         const char* doc) {
  const std::string qualified = std::string("lightsim.") + name;
  py::object type = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr));
  if (!type) throw py::error_already_set();
  m.attr(name) = type;
  return type;
}

}  // namespace
}  // namespace lightsim::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace lightsim::python;
  m.doc() =
      "The compiled core of the lightsim package (import lightsim, docs/python.md): narrow\n"
      "bindings of the C++ library whose results are dicts, lists and NumPy arrays.";
  m.attr("__version__") = LIGHTSIM_VERSION;

  const py::object error = add_exception(
      m, "Error", py::make_tuple(py::handle(PyExc_RuntimeError)),
      "Root of every lightsim error (internal invariant, numeric fault, I/O failure).");
  const py::object input =
      add_exception(m, "InputError", py::make_tuple(error, py::handle(PyExc_ValueError)),
                    "Bad input: config, unit, usage or data file (the CLI's exit code 2).");
  add_exception(m, "ConfigError", py::make_tuple(input),
                "A config file or value is wrong: unknown key, wrong type, out of range.");
  add_exception(m, "UnitError", py::make_tuple(input),
                "A quantity has a missing, unknown or wrong-dimension unit.");
  add_exception(m, "UsageError", py::make_tuple(input), "A call's arguments are wrong.");
  add_exception(m, "DataFormatError", py::make_tuple(input),
                "A data file is missing, malformed or of the wrong shape or dtype.");
  add_exception(m, "OutOfMemory", py::make_tuple(input, py::handle(PyExc_MemoryError)),
                "An allocation failed: the input asks for more memory than the process can get "
                "(also a MemoryError).");
  add_exception(m, "Interrupted", py::make_tuple(error),
                "The run was asked to stop and stopped between work items.");
  py::register_exception_translator(&translate);

  // The one piece of module state: every registered spec kind and family, built once here
  // and never modified afterwards (each binding holds a shared pointer to it).
  auto registry = std::make_shared<lightsim::Registry>();
  lightsim::register_builtin(*registry);
  const RegistryPtr shared = registry;
  bind_config(m, shared);
  bind_studies(m, shared);
  bind_kv(m, shared);
  bind_prefill(m, shared);
  bind_operations(m, shared);
}

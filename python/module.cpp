// The Python module `lightsim` (docs/python.md): the exception hierarchy, the Registry built
// once at import, and the bound functions of each *_bindings.cpp file.
#include <memory>

#include <pybind11/eval.h>

#include "bindings.h"
#include "lightsim/builtin/register.h"

namespace lightsim::python {
namespace {

// Raises the lightsim.<name> exception type with `message`. The types are looked up on the
// module (created once in PYBIND11_MODULE), so the translator holds no state of its own.
void raise(const char* name, const char* message) {
  const py::object type = py::module_::import("lightsim").attr(name);
  PyErr_SetString(type.ptr(), message);
}

void translate(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
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

PYBIND11_MODULE(lightsim, m) {
  namespace py = pybind11;
  using namespace lightsim::python;
  m.doc() =
      "lightsim: photonic hardware for LLM inference, simulated (docs/python.md).\n\n"
      "Narrow bindings of the C++ library: load_config, list_studies, run_study, score,\n"
      "generate_kv, evaluate_kv, prefill_evaluate, prism_cost. Results are dicts, lists and\n"
      "NumPy arrays; bad input raises lightsim.InputError (a ValueError) naming the file and key.";
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
  // One function per operation, its signature the request's fields (positional fields first),
  // then the reserved keywords; each calls run(NAME, ...). inspect.signature shows the fields.
  py::dict scope;
  py::exec(R"py(
def _define_operation_functions(module):
    import inspect
    P = inspect.Parameter
    reserved = [("set", None), ("config_path", None), ("seed", None), ("threads", 0),
                ("progress", False), ("out", None)]
    for op in module.operations():
        name = op["name"]
        fields = {f["name"]: f for f in op["fields"]}
        params = []
        for p in op["positional"]:
            f = fields[p]
            params.append(P(p, P.POSITIONAL_OR_KEYWORD,
                            default=P.empty if f["required"] else None))
        for f in op["fields"]:
            if f["name"] in op["positional"]:
                continue
            params.append(P(f["name"], P.KEYWORD_ONLY,
                            default=P.empty if f["required"] else None))
        params += [P(k, P.KEYWORD_ONLY, default=d) for k, d in reserved]
        signature = inspect.Signature(params)
        lines = [op["help"] + ".", "", "Operation %r (`lightsim %s`); None means the default." %
                 (name, " ".join(op["command"])), ""]
        for f in op["fields"]:
            unit = " [%s]" % f["unit"] if f["unit"] else ""
            default = "required" if f["required"] else "default %s" % (f["default"] or "none")
            lines.append("%s (%s%s, %s): %s" % (f["name"], f["type"], unit, default, f["help"]))
        def call(*args, __name=name, __signature=signature, **kwargs):
            bound = __signature.bind(*args, **kwargs)
            return module.run(__name, **bound.arguments)
        call.__name__ = call.__qualname__ = name
        call.__signature__ = signature
        call.__doc__ = "\n".join(lines)
        setattr(module, name, call)

)py",
           scope);
  scope["_define_operation_functions"](m);
}

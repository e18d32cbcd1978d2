// The Python adapter of the operations layer (include/lightsim/ops/operation.h):
// lightsim.operations(), lightsim.run(name, **fields), lightsim.run_json(name, **fields), and
// one generated function per operation (lightsim.prism_cost(...), lightsim.photonics_ring(...),
// ...; python/lightsim/_signatures.py) whose signature is the request schema's fields.
//
// Keyword arguments other than the reserved ones below are request fields, written into the
// request document as the CLI's flags are (strings as given, so "10 s" reads as a quantity;
// other values as JSON), each located at "keyword NAME" for error messages. Reserved: set,
// config_path (as load_config), seed (default: the operation's), threads, progress, out.
#include <limits>
#include <set>
#include <string>

#include "bindings.h"
#include "lightsim/ops/operation.h"

namespace lightsim::python {
namespace {

using namespace pybind11::literals;

const std::set<std::string, std::less<>> kReserved = {"set",     "config_path", "seed",
                                                      "threads", "progress",    "out"};

// The integer keyword `name` in [0, max]; anything else (a negative number, a float, a string)
// is a UsageError naming the keyword (pybind's cast was a RuntimeError "Unable to cast").
std::uint64_t keyword_integer(py::handle value, std::string_view name, std::uint64_t max) {
  const bool integer = py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value);
  LIGHTSIM_CHECK_AS(UsageError, integer && !(value < py::int_(0)) && !(value > py::int_(max)),
                    "{}: expected an integer in [0, {}], got {}", name, max,
                    py::repr(value).cast<std::string>());
  return value.cast<std::uint64_t>();
}

OperationCall parse_call(const ops::Operation& op, const py::kwargs& kwargs) {
  OperationCall c;
  c.out = "out";
  c.seed = op.info().default_seed;
  py::object set = py::none(), config_path = py::none();
  for (const auto& [key, value] : kwargs) {
    const std::string name = py::str(key).cast<std::string>();
    if (name == "set") {
      set = py::reinterpret_borrow<py::object>(value);
    } else if (name == "config_path") {
      config_path = py::reinterpret_borrow<py::object>(value);
    } else if (name == "seed") {
      if (!value.is_none())
        c.seed = keyword_integer(value, name, std::numeric_limits<std::uint64_t>::max());
    } else if (name == "threads") {
      // ThreadPool states the real range ([0, 1024]); this bound only keeps the cast exact.
      c.threads = keyword_integer(value, name, std::numeric_limits<std::uint32_t>::max());
    } else if (name == "progress") {
      LIGHTSIM_CHECK_AS(UsageError, py::isinstance<py::bool_>(value),
                        "progress: expected True or False, got {}",
                        py::repr(value).cast<std::string>());
      c.progress = value.cast<bool>();
    } else if (name == "out") {
      if (!value.is_none()) c.out = to_path(value);
    } else {
      c.field(name, value);
    }
  }
  c.load = load_options(set, config_path);
  return c;
}

Json run_keywords(const Registry& registry, const std::string& name, const py::kwargs& kwargs) {
  return run_operation(registry, name, parse_call(ops::find_operation(registry, name), kwargs));
}

// The one positional argument of run/run_json: the operation's name.
std::string operation_name(const py::args& args) {
  LIGHTSIM_CHECK_AS(UsageError, args.size() == 1 && py::isinstance<py::str>(args[0]),
                    "run: expected one positional argument, the operation's name (a str; "
                    "`lightsim.operations()`), then its request fields as keywords");
  return args[0].cast<std::string>();
}

py::dict describe(const ops::Operation& op) {
  py::list fields;
  for (const config::FieldInfo& f : op.request_schema().fields)
    fields.append(py::dict("name"_a = f.name, "type"_a = f.type, "unit"_a = f.unit,
                           "default"_a = f.default_text, "constraint"_a = f.constraint,
                           "help"_a = f.help, "required"_a = f.required));
  const ops::Info& i = op.info();
  return py::dict("name"_a = i.name, "command"_a = i.command, "help"_a = i.help,
                  "positional"_a = i.positional, "request_kind"_a = op.request_schema().kind,
                  "fields"_a = fields);
}

}  // namespace

config::Node field_node(const std::string& name, py::handle value) {
  const std::string where = "keyword " + name;
  if (py::isinstance<py::str>(value))
    return config::Node::make_scalar(value.cast<std::string>(), {where, 0, 0});
  return config::parse_document(to_json(value, name).dump(), where);
}

void OperationCall::field(const std::string& name, py::handle value) {
  if (!value.is_none()) request.set(name, field_node(name, value), {"keyword " + name, 0, 0});
}

Json run_operation(const Registry& registry, std::string_view name, const OperationCall& call) {
  const ops::Operation& op = ops::find_operation(registry, name);
  return run_interruptible([&](const std::atomic<bool>* cancel) {
    Context ctx(context_options(call.seed, call.threads, call.progress, cancel));
    ops::Env env{registry, call.load, ctx, call.out};
    return op.run(call.request, env).json;
  });
}

void bind_operations(py::module_& m, const RegistryPtr& registry) {
  m.def(
      "operations",
      [registry] {
        py::list out;
        for (const ops::Operation* op : ops::operations(*registry)) out.append(describe(*op));
        return out;
      },
      "Every registered operation: name, CLI command, help, positional fields and the request's "
      "fields (name, type, unit, default, constraint, help, required).");
  // run(name, /, **fields) as *args: pybind11 refuses a keyword named like a positional-only
  // parameter, and study_run's request has a field `name`.
  m.def(
      "run",
      [registry](const py::args& args, const py::kwargs& kwargs) {
        return to_python(run_keywords(*registry, operation_name(args), kwargs));
      },
      "run(name, /, **fields): run operation NAME with request fields as keyword arguments; "
      "returns its JSON result as "
      "a dict (the CLI's --json). Reserved keywords: set, config_path, seed, threads, progress, "
      "out.");
  m.def(
      "run_json",
      [registry](const py::args& args, const py::kwargs& kwargs) {
        return dump_json(run_keywords(*registry, operation_name(args), kwargs));
      },
      "run_json(name, /, **fields): as run, but returns the JSON text, byte for byte what the "
      "CLI's --json prints.");
}

}  // namespace lightsim::python

"""Real Python signatures for the compiled functions of lightsim._core (docs/python.md).

Two sources, each the single definition of what it describes:

- a native function (load_config, score, run_study, ...) is described by its pybind11
  declaration, which pybind11 prints as the first line of the docstring,
  ``name(arg: type = default, *, ...) -> type``; native() parses that line into an
  inspect.Signature and wraps the function in a Python function carrying it;
- an operation (prism_cost, prefill_plan, ...) is described by its request spec in the
  operation registry (lightsim._core.operations()); operation() builds a function whose
  parameters are the request's fields (positional fields first), then the reserved keywords
  of lightsim.run.

inspect.signature, help() and the generated stubs (lightsim/__init__.pyi, _stubs.py) read the
signatures built here.
"""
import ast
import functools
import inspect
import typing

import numpy

_P = inspect.Parameter

# Names an annotation text may use, evaluated into real annotation objects.
_ANNOTATION_NAMES = {"numpy": numpy, "typing": typing, "Any": typing.Any,
                     "List": typing.List, "Dict": typing.Dict, "Tuple": typing.Tuple,
                     "Optional": typing.Optional, "Union": typing.Union}


def annotation(text):
    """The annotation object for `text` (``'numpy.ndarray[numpy.float32]'``, ``'str | None'``);
    pybind11's ``object`` means any value and becomes no annotation."""
    if not text or text == "object":
        return _P.empty
    try:
        return eval(text, dict(_ANNOTATION_NAMES))  # names above only, no builtins needed
    except Exception:  # an annotation Python cannot evaluate stays as its text
        return text


def _default(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.unparse(node)  # a repr that is not a literal stays as its text


def _quote_reprs(params):
    """`params` with each default printed as ``<...>`` (pybind11's repr of an object that has
    no literal form) turned into a string literal, so the list parses as Python."""
    out, i = [], 0
    while i < len(params):
        if params[i] == "<" and params[:i].rstrip().endswith("="):
            depth, j = 0, i
            while j < len(params):
                depth += {"<": 1, ">": -1}.get(params[j], 0)
                j += 1
                if depth == 0:
                    break
            out.append(repr(params[i:j]))
            i = j
        else:
            out.append(params[i])
            i += 1
    return "".join(out)


def parse_signature(line):
    """The inspect.Signature of a pybind11 signature line ``name(params) -> returns``; None
    when `line` is not one."""
    head, _, returns = line.partition(" -> ")
    if "(" not in head or not head.endswith(")"):
        return None
    params = head[head.index("(") + 1:-1]
    try:
        tree = ast.parse("def f(%s): pass" % _quote_reprs(params)).body[0].args
    except SyntaxError:
        return None
    out = []

    def add(arg, kind, default=_P.empty):
        text = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        out.append(_P(arg.arg, kind, default=default, annotation=annotation(text)))

    positional = tree.posonlyargs + tree.args
    defaults = [_P.empty] * (len(positional) - len(tree.defaults)) + [
        _default(d) for d in tree.defaults]
    for arg, default in zip(positional, defaults):
        add(arg, _P.POSITIONAL_OR_KEYWORD, default)
    if tree.vararg is not None:
        add(tree.vararg, _P.VAR_POSITIONAL)
    for arg, default in zip(tree.kwonlyargs, tree.kw_defaults):
        add(arg, _P.KEYWORD_ONLY, _P.empty if default is None else _default(default))
    if tree.kwarg is not None:
        add(tree.kwarg, _P.VAR_KEYWORD)
    return inspect.Signature(out, return_annotation=annotation(returns.strip()))


def native(function, module="lightsim"):
    """`function` (a pybind11 builtin) wrapped in a Python function with its real signature and
    its docstring without the signature line."""
    doc = function.__doc__ or ""
    first, _, rest = doc.partition("\n")
    signature = parse_signature(first.strip())

    @functools.wraps(function)
    def call(*args, **kwargs):
        return function(*args, **kwargs)

    call.__module__ = module
    del call.__wrapped__  # inspect.signature reads __signature__, never the builtin
    if signature is not None:
        call.__signature__ = signature
        call.__doc__ = rest.strip("\n")
    return call


# Request field types (config::FieldInfo::type) -> annotations. A quantity ("time",
# "data size", ...) is a string with its unit ("10 s", "8 GiB"); an unknown type is Any.
_FIELD_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


def field_annotation(type_text):
    """The annotation text of a request field type: ``'list of integer'`` -> ``'list[int]'``,
    ``'string (optional)'`` -> ``'str'``, a quantity -> ``'str'``."""
    text = type_text.removesuffix(" (optional)")
    if text.startswith("list of "):
        return "list[%s]" % field_annotation(text[len("list of "):])
    if text.startswith("map of name to "):
        return "dict[str, %s]" % field_annotation(text[len("map of name to "):])
    return _FIELD_TYPES.get(text, "str")


# The reserved keywords of lightsim.run (python/ops_bindings.cpp), after the request fields.
RESERVED = (("set", "dict[str, Any] | list[str] | None", None),
            ("config_path", "str | list[str] | None", None),
            ("seed", "int | None", None), ("threads", "int", 0), ("progress", "bool", False),
            ("out", "str | None", None))


def operation_signature(op):
    """The signature of operation `op` (an entry of lightsim._core.operations())."""
    fields = {f["name"]: f for f in op["fields"]}
    params = []
    for f in [fields[p] for p in op["positional"]] + [
            f for f in op["fields"] if f["name"] not in op["positional"]]:
        kind = _P.POSITIONAL_OR_KEYWORD if f["name"] in op["positional"] else _P.KEYWORD_ONLY
        text = field_annotation(f["type"])
        if f["required"]:
            params.append(_P(f["name"], kind, annotation=annotation(text)))
        else:
            params.append(_P(f["name"], kind, default=None,
                             annotation=annotation(text + " | None")))
    params += [_P(name, _P.KEYWORD_ONLY, default=default, annotation=annotation(text))
               for name, text, default in RESERVED]
    return inspect.Signature(params, return_annotation=annotation("dict[str, Any]"))


def operation_doc(op):
    """The docstring of operation `op`: its help, its CLI command and every field."""
    lines = [op["help"] + ".", "",
             "Operation %r (`lightsim %s`); returns the dict of its --json output. None means "
             "the field's default." % (op["name"], " ".join(op["command"])), ""]
    for f in op["fields"]:
        unit = " [%s]" % f["unit"] if f["unit"] else ""
        default = "required" if f["required"] else "default %s" % (f["default"] or "none")
        lines.append("%s (%s%s, %s): %s" % (f["name"], f["type"], unit, default, f["help"]))
    lines += ["", "set, config_path, seed, threads, progress, out: as lightsim.run."]
    return "\n".join(lines)


def operation(run, op, module="lightsim"):
    """The Python function of operation `op`: binds its arguments to the request's fields and
    calls run(NAME, **fields)."""
    name = op["name"]
    signature = operation_signature(op)

    def call(*args, **kwargs):
        return run(name, **signature.bind(*args, **kwargs).arguments)

    call.__name__ = call.__qualname__ = name
    call.__module__ = module
    call.__signature__ = signature
    call.__doc__ = operation_doc(op)
    return call

#!/usr/bin/env python3
"""Checks the include layering of the library modules against src/CMakeLists.txt.

Usage: check_layering.py [ROOT]   (ROOT: the repository root, default the current directory)

Each module is declared in ROOT/src/CMakeLists.txt as `lightsim_module(NAME DEPS...)`; a DEP
written `lightsim::OTHER` makes OTHER a dependency. A file of module M (under src/M/ or
include/lightsim/M/) may include
  - a public header `lightsim/X/...` only when X is M or one of M's transitive dependencies;
  - a private header `X/...` (resolved under src/) only when X is M.
apps/, python/, tests/, bench/ and fuzz/ sit above every module and are not checked. A folder
of src/ or include/lightsim/ that no lightsim_module declares is an error too (its files would
go unchecked), and so is a dependency on an undeclared module.

Exit 0 when the tree is layered; 1 with one line per violation otherwise:
  FILE:LINE: module M includes "INCLUDE" (module X); M may include: A, B, C
"""
import re
import sys
from pathlib import Path

MODULE_CALL = re.compile(r"^\s*lightsim_module\s*\(([^)]*)\)", re.MULTILINE)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')
SOURCE_SUFFIXES = {".h", ".hpp", ".cpp", ".cc", ".inc"}


def declared_modules(cmake_file):
    """{module: [direct lightsim dependencies]} in declaration order."""
    text = re.sub(r"#[^\n]*", "", cmake_file.read_text())
    modules = {}
    for match in MODULE_CALL.finditer(text):
        name, *deps = match.group(1).split()
        modules[name] = [d[len("lightsim::"):] for d in deps if d.startswith("lightsim::")]
    return modules


def closure(modules):
    """{module: set of modules it may include (itself and its transitive dependencies)}."""
    allowed = {}

    def visit(name, stack):
        if name in allowed:
            return allowed[name]
        if name in stack:
            raise ValueError(f"dependency cycle: {' -> '.join(stack + [name])}")
        seen = {name}
        for dep in modules.get(name, []):
            seen |= visit(dep, stack + [name])
        allowed[name] = seen
        return seen

    for name in modules:
        visit(name, [])
    return allowed


def includes(path):
    """(line number, quote char, include path) of each #include outside block comments."""
    in_comment = False
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if in_comment:
            if "*/" not in line:
                continue
            line = line.split("*/", 1)[1]
            in_comment = False
        match = INCLUDE.match(line)
        if match:
            yield number, match.group(1), match.group(2)
        elif "/*" in line and "*/" not in line.split("/*", 1)[1]:
            in_comment = True


def module_files(root, module_dirs):
    """(module, file) for every source file under src/M/ and include/lightsim/M/."""
    for base in (root / "src", root / "include" / "lightsim"):
        if not base.is_dir():
            continue
        for folder in sorted(p for p in base.iterdir() if p.is_dir()):
            for path in sorted(folder.rglob("*")):
                if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                    yield folder.name, path


def check(root):
    """The list of violation messages for the tree at root (empty when it is layered)."""
    root = Path(root)
    cmake_file = root / "src" / "CMakeLists.txt"
    if not cmake_file.is_file():
        return [f"{cmake_file}: not found (run from the repository root or pass ROOT)"]
    modules = declared_modules(cmake_file)
    if not modules:
        return [f"{cmake_file}: no lightsim_module(...) declarations"]
    problems = []
    for name, deps in modules.items():
        for dep in deps:
            if dep not in modules:
                problems.append(f"{cmake_file.relative_to(root)}: module {name} depends on "
                                f"lightsim::{dep}, which no lightsim_module declares")
    try:
        allowed = closure(modules)
    except ValueError as e:
        return problems + [f"{cmake_file.relative_to(root)}: {e}"]
    for base in (root / "src", root / "include" / "lightsim"):
        if base.is_dir():
            for folder in sorted(p for p in base.iterdir() if p.is_dir()):
                if folder.name not in modules:
                    problems.append(f"{folder.relative_to(root)}/: no lightsim_module({folder.name} "
                                    f"...) in src/CMakeLists.txt")
    for module, path in module_files(root, modules):
        if module not in modules:
            continue
        may = allowed[module]
        listing = ", ".join(sorted(may))
        for number, quote, target in includes(path):
            parts = target.split("/")
            where = f"{path.relative_to(root)}:{number}"
            if len(parts) >= 3 and parts[0] == "lightsim":
                other = parts[1]
                if other not in modules:
                    problems.append(f'{where}: module {module} includes "{target}" of no declared '
                                    f"module; {module} may include: {listing}")
                elif other not in may:
                    problems.append(f'{where}: module {module} includes "{target}" (module '
                                    f"{other}); {module} may include: {listing}")
            elif quote == '"' and len(parts) >= 2 and parts[0] in modules and parts[0] != module \
                    and (root / "src" / target).is_file():
                problems.append(f'{where}: module {module} includes "{target}", a private header '
                                f"of module {parts[0]} (src/{parts[0]}/); only {parts[0]} may")
    return problems


def main(argv):
    root = Path(argv[1]) if len(argv) > 1 else Path.cwd()
    problems = check(root)
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"check_layering: {len(problems)} violation(s); a module includes only its own and "
              f"its dependencies' headers (src/CMakeLists.txt, docs/architecture.md)",
              file=sys.stderr)
        return 1
    count = sum(1 for _ in module_files(root, {}))
    print(f"check_layering: {count} files of {len(declared_modules(root / 'src' / 'CMakeLists.txt'))} "
          f"modules layered")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

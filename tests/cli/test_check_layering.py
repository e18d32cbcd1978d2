"""scripts/check_layering.py on small synthetic trees: a legal include passes, each kind of
violation fails with a message naming the file, line, include and the allowed modules, so the
layering test (ctest layering.includes) cannot pass silently."""
import importlib.util
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
SCRIPT = SOURCE / "scripts" / "check_layering.py"

spec = importlib.util.spec_from_file_location("check_layering", SCRIPT)
check_layering = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layering)

CMAKE = textwrap.dedent("""\
    # Modules, lowest first.
    lightsim_module(core fmt::fmt)
    lightsim_module(phys lightsim::core)
    lightsim_module(sys lightsim::phys
                    Eigen3::Eigen)
    lightsim_module(side lightsim::core)
    """)


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="lightsim-layering-")
        self.root = Path(self._tmp.name)
        self.write("src/CMakeLists.txt", CMAKE)
        for module in ("core", "phys", "sys", "side"):
            self.write(f"include/lightsim/{module}/{module}.h", "#pragma once\n")
            self.write(f"src/{module}/{module}.cpp", f'#include "lightsim/{module}/{module}.h"\n')

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def run_check(self):
        return subprocess.run([sys.executable, "-B", str(SCRIPT), str(self.root)],
                              capture_output=True, text=True, timeout=60)

    def test_legal_tree_passes(self):
        # Transitive dependency (sys -> phys -> core), angle brackets, own private header,
        # and the adapters above every module including anything.
        self.write("src/sys/run.cpp", textwrap.dedent("""\
            #include <lightsim/core/core.h>
            #include "lightsim/phys/phys.h"
            #include "sys/detail.h"
            #include <vector>
            """))
        self.write("src/sys/detail.h", "#pragma once\n")
        self.write("apps/lightsim/main.cpp", '#include "lightsim/side/side.h"\n'
                                             '#include "lightsim/sys/sys.h"\n')
        self.write("tests/unit/core/t.cpp", '#include "lightsim/sys/sys.h"\n')
        proc = self.run_check()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("layered", proc.stdout)

    def test_upward_include_fails_with_file_line_and_allowed_modules(self):
        self.write("src/phys/ring.cpp", '#include <cmath>\n\n#include "lightsim/sys/sys.h"\n')
        proc = self.run_check()
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn('src/phys/ring.cpp:3: module phys includes "lightsim/sys/sys.h" (module sys); '
                      'phys may include: core, phys', proc.stderr)

    def test_sideways_include_from_a_public_header_fails(self):
        self.write("include/lightsim/sys/api.h", '#pragma once\n#include "lightsim/side/side.h"\n')
        proc = self.run_check()
        self.assertEqual(proc.returncode, 1)
        self.assertIn('include/lightsim/sys/api.h:2: module sys includes "lightsim/side/side.h" '
                      '(module side); sys may include: core, phys, sys', proc.stderr)

    def test_private_header_of_another_module_fails(self):
        self.write("src/phys/detail.h", "#pragma once\n")
        self.write("src/sys/run.cpp", '#include "phys/detail.h"\n')
        proc = self.run_check()
        self.assertEqual(proc.returncode, 1)
        self.assertIn('src/sys/run.cpp:1: module sys includes "phys/detail.h", a private header of '
                      'module phys', proc.stderr)

    def test_commented_out_include_is_ignored(self):
        self.write("src/core/old.cpp", '// #include "lightsim/sys/sys.h"\n'
                                       '/*\n#include "lightsim/sys/sys.h"\n*/\n')
        proc = self.run_check()
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_undeclared_module_folder_and_dependency_fail(self):
        self.write("src/stray/x.cpp", "\n")
        self.write("src/CMakeLists.txt", CMAKE + "lightsim_module(top lightsim::missing)\n")
        proc = self.run_check()
        self.assertEqual(proc.returncode, 1)
        self.assertIn("src/stray/: no lightsim_module(stray ...)", proc.stderr)
        self.assertIn("module top depends on lightsim::missing", proc.stderr)

    def test_architecture_table_matches_cmake(self):
        # docs/architecture.md's layer table lists each module's direct dependencies as
        # src/CMakeLists.txt declares them.
        text = (SOURCE / "docs" / "architecture.md").read_text()
        block = text.split("## Layers", 1)[1].split("```", 2)[1]
        lines = block.splitlines()[1:]
        module_col, deps_col = lines[0].index("module"), lines[0].index("depends on")
        documented = {}
        for line in lines[1:]:
            module = line[module_col:deps_col].strip()
            deps = line[deps_col:].split("(", 1)[0].split()
            if module and module not in ("apps/lightsim", "python/"):
                documented[module] = sorted(d for d in deps if d != "-")
        declared = {m: sorted(d) for m, d in
                    check_layering.declared_modules(SOURCE / "src" / "CMakeLists.txt").items()}
        self.assertEqual(documented, declared)

    def test_real_tree_is_layered(self):
        proc = subprocess.run([sys.executable, "-B", str(SCRIPT), str(SOURCE)],
                              capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)


if __name__ == "__main__":
    unittest.main()

"""`pip install --no-build-isolation --target DIR .` with Debian's pip and setuptools (no
download), then `import lightsim` from DIR outside the repository (docs/install.md): real
signatures, help(), the generated stubs, and presets from the package's own data folder.

Reuses the build folder (LIGHTSIM_BUILD_DIR from CTest: setup.py only brings its
lightsim_python_stubs target up to date, which `make` already did), so the test costs pip's
and setuptools' own time, a few seconds.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ["LIGHTSIM_BUILD_DIR"])

CHECK = r'''
import ast, inspect, os, sys
import lightsim
site = sys.argv[1]
assert lightsim.__file__.startswith(site), lightsim.__file__
print(inspect.signature(lightsim.prefill_plan))
help(lightsim.prefill_plan)
assert lightsim.data_dir() == os.path.join(site, "lightsim", "data"), lightsim.data_dir()
stubs = ast.parse(open(os.path.join(site, "lightsim", "__init__.pyi")).read())
stubbed = {f.name for f in stubs.body if isinstance(f, ast.FunctionDef)}
missing = set(lightsim.NATIVE_FUNCTIONS + lightsim.OPERATIONS) - stubbed
assert not missing, missing
for name in lightsim.NATIVE_FUNCTIONS + lightsim.OPERATIONS:
    inspect.signature(getattr(lightsim, name))
cost = lightsim.prism_cost("seed")
print("prism_cost seed dynamic_energy_j", cost["dynamic_energy_j"])
'''


class PythonPackageTest(unittest.TestCase):
    def test_pip_install_then_import_outside_the_repository(self):
        with tempfile.TemporaryDirectory(prefix="lightsim-pip-") as tmp:
            site = Path(tmp) / "site"
            env = {k: v for k, v in os.environ.items()
                   if k not in ("LIGHTSIM_DATA", "PYTHONPATH")}
            env["LIGHTSIM_BUILD_DIR"] = str(BUILD)
            env["PIP_NO_INDEX"] = "1"  # nothing may be downloaded
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                 "--disable-pip-version-check", "--no-cache-dir", "--target", str(site),
                 str(SOURCE)],
                capture_output=True, text=True, env=env, cwd=tmp, timeout=600,
                stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertFalse((SOURCE / "python" / "lightsim.egg-info").exists())
            for part in ("lightsim/__init__.py", "lightsim/__init__.pyi", "lightsim/py.typed",
                         "lightsim/data/configs/accelerators/seed.yaml",
                         "lightsim/data/third_party/vega/vega.min.js"):
                self.assertTrue((site / part).exists(), part)
            self.assertTrue(list((site / "lightsim").glob("_core.*.so")))
            env["PYTHONPATH"] = str(site)
            proc = subprocess.run([sys.executable, "-B", "-c", CHECK, str(site)],
                                  capture_output=True, text=True, env=env, cwd=tmp,
                                  timeout=120, stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn("(scenario: str, *, model: str | None = None, fabric: str | None = None",
                          proc.stdout)
            self.assertIn("Operation 'prefill_plan' (`lightsim prefill plan`)", proc.stdout)
            self.assertIn("prism_cost seed dynamic_energy_j", proc.stdout)


if __name__ == "__main__":
    unittest.main()

"""examples/quickstart.py runs top to bottom as a notebook would run it: each `# %%` cell in
order in one namespace, with a Jupyter kernel's argv, writing its figure to the working
directory (docs/python.md). About 4 s: small sizes throughout.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
ARTIFACTS = os.environ.get("LIGHTSIM_ARTIFACT_DIR")

# Runs the cells of argv[1] in order, as a notebook kernel does (argv: the kernel's own flags).
NOTEBOOK = r'''
import sys
text = open(sys.argv[1], encoding="utf-8").read()
cells = text.split("\n# %%")
sys.argv = ["ipykernel_launcher.py", "-f", "kernel-1234.json"]
namespace = {"__name__": "__main__"}
for number, cell in enumerate(cells):
    print("## cell", number, flush=True)
    exec(compile("# %%" + cell if number else cell, "cell %d" % number, "exec"), namespace)
'''


class QuickstartTest(unittest.TestCase):
    def test_runs_cell_by_cell_and_writes_a_png(self):
        with tempfile.TemporaryDirectory(prefix="lightsim-quickstart-") as tmp:
            proc = subprocess.run([sys.executable, "-B", "-c", NOTEBOOK,
                                   str(SOURCE / "examples/quickstart.py")],
                                  capture_output=True, text=True, timeout=120, cwd=tmp,
                                  stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertGreaterEqual(proc.stdout.count("## cell"), 6)  # setup, 4 parts, plot
            for part in ("TFLN ring: FSR 8.312 nm", "seed device feasible: False",
                         "recall@8 vs exact", "photonic_4x_1152   TP=", "latency_ratio",
                         "rejected as expected", "wrote quickstart.png"):
                self.assertIn(part, proc.stdout)
            self.assertEqual(sorted(p.name for p in Path(tmp).iterdir()), ["quickstart.png"])
            data = (Path(tmp) / "quickstart.png").read_bytes()
            self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertGreater(len(data), 10_000)  # two panels of lines and bars, not blank
            if ARTIFACTS:
                Path(ARTIFACTS).mkdir(parents=True, exist_ok=True)
                (Path(ARTIFACTS) / "quickstart.png").write_bytes(data)


if __name__ == "__main__":
    unittest.main()

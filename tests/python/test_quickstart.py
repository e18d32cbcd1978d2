"""examples/quickstart.py runs with Debian's Python 3 and writes a PNG (issue 9 acceptance)."""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
ARTIFACTS = os.environ.get("LIGHTSIM_ARTIFACT_DIR")


class QuickstartTest(unittest.TestCase):
    def test_runs_and_writes_a_png(self):
        with tempfile.TemporaryDirectory(prefix="lightsim-quickstart-") as tmp:
            png = Path(tmp) / "quickstart.png"
            proc = subprocess.run([sys.executable, str(SOURCE / "examples/quickstart.py"),
                                   str(png)], capture_output=True, text=True, timeout=600,
                                  cwd=tmp, stdin=subprocess.DEVNULL)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            self.assertIn("wrote " + str(png), proc.stdout)
            data = png.read_bytes()
            self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertGreater(len(data), 10_000)  # two panels of lines and bars, not blank
            self.assertIn("recall@16 vs exact", proc.stdout)
            if ARTIFACTS:
                Path(ARTIFACTS).mkdir(parents=True, exist_ok=True)
                (Path(ARTIFACTS) / "quickstart.png").write_bytes(data)


if __name__ == "__main__":
    unittest.main()

"""Shared helpers for the CLI tests: run the lightsim binary as a user would.

The binary comes from $LIGHTSIM_BIN (set by CTest); the source tree from $LIGHTSIM_SOURCE_DIR.
"""
import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path

BIN = os.environ.get("LIGHTSIM_BIN", "build/bin/lightsim")
SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))


# A two-point prism_cost sweep; {name} is its name (the malformed-input and bounded-resource
# tests write it with hostile or ordinary names).
SWEEP = """schema_version: 1
kind: sweep
name: {name}
target: prism_cost
request: {{accelerator: seed, drift_duration: 10 ms}}
grid:
  - key: programming.weight_bits
    values: [4, 5]
"""


class Result:
    def __init__(self, proc):
        self.code = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.out}\n--- stderr\n{self.err}"


def run(*args, cwd=None, timeout=120, env=None):
    """Runs the CLI; `env` adds variables to this process's environment."""
    proc = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, stdin=subprocess.DEVNULL,
                          env=None if env is None else {**os.environ, **env})
    return Result(proc)


class CliTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="lightsim-cli-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, name, text):
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def assertExit(self, result, code):
        self.assertEqual(result.code, code, repr(result))

    def assertInputError(self, result, *fragments):
        """Exit code 2 and exactly one line on stderr containing every fragment."""
        self.assertExit(result, 2)
        lines = result.err.strip().splitlines()
        self.assertEqual(len(lines), 1, repr(result))
        for fragment in fragments:
            self.assertIn(fragment, lines[0], repr(result))
        self.assertNotIn("terminate called", result.err)

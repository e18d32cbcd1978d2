"""`lightsim reproduce`, the main job behind `make demo`."""
import json
import unittest

from clitest import CliTest, run


# Every registered study at its quick size (the default size is the minutes-long demo).
QUICK = "schema_version: 1\nkind: reproduce\nsize: quick\n"


class Reproduce(CliTest):
    def test_writes_run_manifest_and_prints_where(self):
        out = self.tmp / "out"
        r = run("reproduce", self.write("quick.yaml", QUICK), "--out", out, "--quiet")
        self.assertExit(r, 0)
        self.assertIn(str(out), r.out.strip().splitlines()[-1])
        manifest = json.loads((out / "run.json").read_text())
        self.assertEqual(manifest["kind"], "reproduce")
        self.assertIn("lightsim_version", manifest)
        self.assertEqual(manifest["seed"], 1)

    def test_same_inputs_same_bytes_for_any_thread_count(self):
        texts = []
        for threads in (1, 2):
            out = self.tmp / f"out{threads}"
            self.assertExit(run("reproduce", self.write("quick.yaml", QUICK), "--out", out,
                                "--threads", threads, "--seed", 7, "-q"), 0)
            texts.append((out / "run.json").read_text())
        self.assertEqual(texts[0], texts[1])
        self.assertEqual(json.loads(texts[0])["seed"], 7)

    def test_unwritable_output_is_an_input_error_before_work(self):
        blocker = self.write("file", "x")
        self.assertInputError(run("reproduce", "--out", blocker / "sub"), "not writable")

    def test_bad_config(self):
        cfg = self.write("r.yaml", "schema_version: 1\nkind: reproduce\nstudies: [nope]\n")
        self.assertInputError(run("reproduce", cfg, "--out", self.tmp / "o"), "studies[0]",
                              "unknown study 'nope'")
        self.assertFalse((self.tmp / "o" / "run.json").exists())


if __name__ == "__main__":
    unittest.main()

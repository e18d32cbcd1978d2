"""`lightsim reproduce`, the main job behind `make demo`."""
import json
import unittest

from clitest import SOURCE, CliTest, run


QUICK = "schema_version: 1\nkind: reproduce\nsize: quick\n"


class Reproduce(CliTest):
    # Every registered study runs at its quick size here (seconds); the default size is the
    # demo's (minutes) and is not a unit of the test suite.
    def test_writes_run_manifest_and_prints_where(self):
        out = self.tmp / "out"
        r = run("reproduce", self.write("r.yaml", QUICK), "--out", out, "--quiet", timeout=600)
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
            self.assertExit(run("reproduce", self.write("r.yaml", QUICK), "--out", out,
                                "--threads", threads, "--seed", 7, "-q", timeout=600), 0)
            texts.append((out / "run.json").read_text())
        self.assertEqual(texts[0], texts[1])
        self.assertEqual(json.loads(texts[0])["seed"], 7)

    def test_resume_keeps_complete_results_and_runs_the_rest(self):
        # `reproduce` could not resume after a kill: every study ran again.
        cfg = self.write("r.yaml", QUICK + "studies: [prism, decode]\n")
        out = self.tmp / "out"
        self.assertExit(run("reproduce", cfg, "--out", out, "-q", timeout=600), 0)
        kept, rerun = out / "prism.json", out / "decode.json"
        kept_time, rerun_bytes = kept.stat().st_mtime_ns, rerun.read_bytes()
        rerun.unlink()  # as a kill during the second study leaves it
        r = run("reproduce", cfg, "--out", out, "--resume", timeout=600)
        self.assertExit(r, 0)
        self.assertIn("study prism is complete", r.err)
        self.assertEqual(kept.stat().st_mtime_ns, kept_time)  # not run again
        self.assertEqual(rerun.read_bytes(), rerun_bytes)
        # A kept result of another run (here another seed) is refused before anything is
        # written, as is a table that is not the result's.
        r = run("reproduce", cfg, "--out", out, "--resume", "--seed", "9", "-q")
        self.assertInputError(r, "prism.json", "seed")
        self.assertEqual(json.loads((out / "run.json").read_text())["seed"], 1)
        table = sorted(out.glob("prism_*.csv"))[0]
        table.write_text(table.read_text() + "1\n")
        self.assertInputError(run("reproduce", cfg, "--out", out, "--resume", "-q"),
                              table.name, "prism.json")

    def test_shadowed_presets_are_recorded_reported_and_rerun(self):
        # A --config-path preset of a shipped name left no trace in a study's result, and
        # --resume kept results computed without it.
        shipped = SOURCE / "configs" / "devices" / "soi.yaml"
        root = self.tmp / "root"
        self.write("root/devices/soi.yaml", shipped.read_text())
        cfg = self.write("r.yaml", QUICK + "studies: [prism, decode]\n")
        out = self.tmp / "out"
        self.assertExit(run("reproduce", cfg, "--out", out, "-q", timeout=600), 0)
        self.assertNotIn("shadowed_presets", json.loads((out / "prism.json").read_text()))
        r = run("--config-path", root, "reproduce", cfg, "--out", out, "--resume", timeout=600)
        self.assertExit(r, 0)
        for study in ("prism", "decode"):
            self.assertIn(f"not complete, study {study} runs again", r.err)
            shadows = json.loads((out / f"{study}.json").read_text())["shadowed_presets"]
            self.assertEqual(len(shadows), 1, shadows)
            self.assertEqual({k: shadows[0][k] for k in ("name", "kind", "used")},
                             {"name": "devices/soi", "kind": "devices",
                              "used": str(root / "devices" / "soi.yaml")})
            self.assertTrue(shadows[0]["shadowed"].endswith("configs/devices/soi.yaml"), shadows)
        self.assertEqual(json.loads((out / "run.json").read_text())["shadowed_presets"][0]["kind"],
                         "devices")
        # The same shadows: complete, kept; none again: not complete, run again.
        r = run("--config-path", root, "reproduce", cfg, "--out", out, "--resume", timeout=600)
        self.assertExit(r, 0)
        self.assertIn("study prism is complete", r.err)
        self.assertIn("study decode is complete", r.err)
        # `lightsim report` shows them.
        html = self.tmp / "r.html"
        self.assertExit(run("report", out, "-o", html), 0)
        text = html.read_text()
        self.assertIn("Presets read from --config-path", text)
        self.assertIn(str(root / "devices" / "soi.yaml"), text)
        r = run("reproduce", cfg, "--out", out, "--resume", timeout=600)
        self.assertExit(r, 0)
        self.assertIn("not complete, study prism runs again", r.err)
        self.assertNotIn("shadowed_presets", json.loads((out / "prism.json").read_text()))
        # `study run` records them too.
        one = self.tmp / "one"
        self.assertExit(run("--config-path", root, "study", "run", "prism", "--quick", "--out",
                            one, "-q", timeout=600), 0)
        self.assertEqual(json.loads((one / "prism.json").read_text())["shadowed_presets"][0]
                         ["name"], "devices/soi")

    def test_eta_is_weighted_by_each_study_s_cost(self):
        # The ETA counted studies as equal (predicted 3m21s, took 1m04s). The progress now
        # counts estimated seconds: declared in the study configs (`cost:`), replaced by the
        # times a previous run measured in the same --out (study_times.csv); checked through
        # the weights logged and the progress total, never through timings.
        cfg = self.write("r.yaml", QUICK + "studies: [prism, decode]\n")
        out = self.tmp / "out"
        r = run("reproduce", cfg, "--out", out, timeout=600)
        self.assertExit(r, 0)
        # prism and decode declare 0.05 s at default (no quick figure): 1 s each, at least.
        self.assertIn("study prism (1/2, ETA weight 1 s declared)", r.err)
        self.assertIn("study decode (2/2, ETA weight 1 s declared)", r.err)
        self.assertIn("reproduce (est. s): 2/2 (100%)", r.err)
        times = (out / "study_times.csv").read_text().splitlines()
        self.assertEqual(times[0], "study,size,wall_s")
        self.assertEqual([line.split(",")[:2] for line in times[1:]],
                         [["decode", "quick"], ["prism", "quick"]])
        # Measured times of this size are the weights of the next run...
        (out / "study_times.csv").write_text(
            "study,size,wall_s\nprism,quick,89.2\ndecode,quick,10\n")
        r = run("reproduce", cfg, "--out", out, timeout=600)
        self.assertExit(r, 0)
        self.assertIn("study prism (1/2, ETA weight 90 s measured)", r.err)
        self.assertIn("study decode (2/2, ETA weight 10 s measured)", r.err)
        self.assertIn("reproduce (est. s): 100/100 (100%)", r.err)
        # ... those of another size are not, and a study kept by --resume weighs nothing.
        (out / "study_times.csv").write_text(
            "study,size,wall_s\nprism,default,50\ndecode,quick,10\n")
        (out / "decode.json").unlink()
        r = run("reproduce", cfg, "--out", out, "--resume", timeout=600)
        self.assertExit(r, 0)
        self.assertIn("study prism is complete", r.err)
        self.assertIn("study decode (2/2, ETA weight 10 s measured)", r.err)
        self.assertIn("reproduce (est. s): 10/10 (100%)", r.err)

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

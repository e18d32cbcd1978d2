"""scripts/bench_report.py (make bench): parsing Google Benchmark JSON, comparing with the
targets of bench/targets.json and rendering docs/performance.md, on a canned JSON
(tests/data/bench_report/bench_demo.json). No timing is asserted: the figures are fixed."""
import importlib.util
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2]
SCRIPT = SOURCE / "scripts" / "bench_report.py"
CANNED = SOURCE / "tests" / "data" / "bench_report"

spec = importlib.util.spec_from_file_location("bench_report", SCRIPT)
bench_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_report)


def row_of(text, name):
    rows = [l for l in text.splitlines() if l.startswith(f"| `{name}` |")]
    assert len(rows) == 1, f"{name}: {rows}"
    return rows[0]


class BenchReportTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="lightsim-bench-")
        self.tmp = Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def render(self, document, targets=SOURCE / "bench" / "targets.json"):
        out = self.tmp / "performance.md"
        out.write_text(document)
        proc = subprocess.run([sys.executable, "-B", str(SCRIPT), "--from-json", str(CANNED),
                               "--out", str(out), "--targets", str(targets)],
                              capture_output=True, text=True, timeout=60)
        return proc, out.read_text()

    def test_parse_takes_the_median_and_the_cv(self):
        rows = bench_report.parse_run(json.loads((CANNED / "bench_demo.json").read_text()))
        by_name = {r["name"]: r for r in rows}
        self.assertEqual(list(by_name), ["BM_MvmQueryFixedState", "BM_MvmQueryDriftPerQuery",
                                         "BM_NormalFloatBulk", "BM_Unlisted/8", "BM_Broken"])
        fixed = by_name["BM_MvmQueryFixedState"]
        self.assertAlmostEqual(fixed["cpu_ns"], 4200.0)  # median, 4.2 us
        self.assertAlmostEqual(fixed["real_ns"], 4400.0)
        self.assertEqual(fixed["repetitions"], 3)
        self.assertAlmostEqual(fixed["cv"], 0.05)
        self.assertAlmostEqual(by_name["BM_NormalFloatBulk"]["items_per_second"], 7.4e8)
        self.assertAlmostEqual(by_name["BM_Unlisted/8"]["cpu_ns"], 2.0e6)  # 2 ms, one run
        self.assertEqual(by_name["BM_Broken"]["error"], "no data file")

    def test_verdicts_against_the_targets(self):
        targets, _ = bench_report.load_targets(SOURCE / "bench" / "targets.json")
        row = {"name": "BM_PrismQuery", "cpu_ns": 5990.0, "error": None, "items_per_second": None}
        t = bench_report.find_target("BM_PrismQuery", targets)
        self.assertEqual(bench_report.verdict(row, t), "met")
        row["cpu_ns"] = 6010.0
        self.assertEqual(bench_report.verdict(row, t), "not met")
        t = bench_report.find_target("BM_ImpairmentsChain/64", targets)
        self.assertEqual(bench_report.verdict({"name": "x", "cpu_ns": 1.0, "error": None,
                                               "items_per_second": 9e3}, t), "not met")
        # Patterns match whole names: /1024 has a target, /8192 has none.
        self.assertIsNotNone(bench_report.find_target("BM_SignatureScoreTopK/1024", targets))
        self.assertIsNone(bench_report.find_target("BM_SignatureScoreTopK/8192", targets))

    def test_formatting(self):
        self.assertEqual(bench_report.fmt_time(4200.0), "4.2 us")
        self.assertEqual(bench_report.fmt_time(2.29e8), "229 ms")
        self.assertEqual(bench_report.fmt_time(12.5), "12.5 ns")
        self.assertEqual(bench_report.fmt_rate(7.4e8), "740 M/s")

    def test_renders_tables_and_keeps_the_hand_written_part(self):
        doc = "# Performance\n\nIntro.\n\n## core\n\nHand-written notes.\n"
        proc, text = self.render(doc)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("Intro.", text)
        self.assertTrue(text.endswith("## core\n\nHand-written notes.\n"), text[-200:])
        self.assertLess(text.index(bench_report.BEGIN), text.index("## core"))
        self.assertIn("**met**", row_of(text, "BM_MvmQueryFixedState"))
        self.assertIn("4.2 us", row_of(text, "BM_MvmQueryFixedState"))
        self.assertIn("**not met**", row_of(text, "BM_MvmQueryDriftPerQuery"))
        self.assertIn("740 M/s", row_of(text, "BM_NormalFloatBulk"))
        self.assertIn("#2", row_of(text, "BM_NormalFloatBulk"))
        self.assertNotIn("met", row_of(text, "BM_Unlisted/8"))
        self.assertIn("error: no data file", row_of(text, "BM_Broken"))
        self.assertIn("| cpu | `lscpu`:", text)
        self.assertIn("### demo", text)
        self.assertIn("BM_FaissIvfPqStep/32768", text)  # the skip list is stated

        # A second run replaces the generated block only: same document.
        proc2, text2 = self.render(text)
        self.assertEqual(proc2.returncode, 0, proc2.stderr)
        self.assertEqual(text2, text)
        edited = text.replace("Hand-written notes.", "Edited notes.")
        _, text3 = self.render(edited)
        self.assertIn("Edited notes.", text3)
        self.assertEqual(text3.count(bench_report.BEGIN), 1)

    def test_a_bad_target_names_the_file_and_key(self):
        bad = self.tmp / "targets.json"
        bad.write_text(json.dumps({"targets": [{"benchmark": "BM_X", "metric": "time",
                                                "value": 1, "unit": "parsec", "source": "#0",
                                                "text": "x"}]}))
        proc, _ = self.render("# Performance\n\nIntro.\n", targets=bad)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("targets.json", proc.stderr)
        self.assertIn("unit", proc.stderr)


if __name__ == "__main__":
    unittest.main()

"""`lightsim report RESULTS_DIR [-o FILE]` and the report written by `lightsim reproduce`."""
import json
import shutil
import unittest

from clitest import SOURCE, CliTest, run

FIXTURES = SOURCE / "tests" / "data" / "report"


class Report(CliTest):
    def copy_fixtures(self):
        results = self.tmp / "results"
        shutil.copytree(FIXTURES, results, ignore=shutil.ignore_patterns("*.md"))
        return results

    def test_renders_golden_set_into_one_self_contained_file(self):
        results = self.copy_fixtures()
        r = run("report", results)
        self.assertExit(r, 0)
        report = results / "report.html"
        self.assertIn(str(report), r.out)
        self.assertIn("3 studies, 5 claim(s), 4 chart(s)", r.out)
        html = report.read_text()
        self.assertNotIn('src="http', html)    # no network: libraries are inlined
        self.assertNotIn("<script src", html)
        self.assertIn("vegaEmbed", html)
        self.assertEqual(html.count('class="chart"'), 4)

    def test_output_option_and_json(self):
        out = self.tmp / "sub" / "dir" / "r.html"
        r = run("report", FIXTURES, "-o", out, "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json(), {"report": str(out), "studies": 3, "claims": 5, "charts": 4})
        self.assertTrue(out.is_file())

    def test_same_results_same_bytes(self):
        a, b = self.tmp / "a.html", self.tmp / "b.html"
        self.assertExit(run("report", FIXTURES, "-o", a), 0)
        self.assertExit(run("report", FIXTURES, "-o", b), 0)
        self.assertEqual(a.read_bytes(), b.read_bytes())

    def test_bad_result_names_file_and_key(self):
        results = self.copy_fixtures()
        doc = json.loads((results / "fixture_energy.json").read_text())
        doc["claims"][0]["verdict"] = "mostly"
        (results / "fixture_energy.json").write_text(json.dumps(doc))
        self.assertInputError(run("report", results), "fixture_energy.json", "claims[0].verdict",
                              "'mostly'")
        self.assertFalse((results / "report.html").exists())

    def test_malformed_json_names_file(self):
        results = self.copy_fixtures()
        (results / "fixture_recall.json").write_text("{\n")
        self.assertInputError(run("report", results), "fixture_recall.json")

    def test_missing_folder(self):
        self.assertInputError(run("report", self.tmp / "absent"), "absent", "does not exist")

    def test_memory_estimated_from_file_sizes_before_parsing(self):
        # A 2 MB result (not even JSON: the estimate must come before any parse) beside the
        # fixtures: 32 MiB + 19 bytes per JSON byte is ~70 MiB (src/report/results_dir.cpp).
        results = self.copy_fixtures()
        (results / "huge.json").write_text("{" + " " * 2_000_000)
        out = self.tmp / "r.html"
        r = run("--memory-budget", "64 MiB", "report", results, "-o", out)
        self.assertInputError(r, f"report of '{results}'", "4 result files",
                              f"the largest '{results / 'huge.json'}' of 1.91 MiB", "needs ~",
                              "more than the memory budget of 64 MiB", "--memory-budget")
        self.assertFalse(out.exists())
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()), ["results"])
        # Within the budget the file is read, and its parse error is what is reported.
        r = run("--memory-budget", "128 MiB", "report", results, "-o", out)
        self.assertInputError(r, "huge.json")
        self.assertNotIn("memory budget", r.err)
        (results / "huge.json").unlink()
        self.assertExit(run("--memory-budget", "64 MiB", "report", results, "-o", out), 0)

    def test_reproduce_ends_with_the_report_path(self):
        out = self.tmp / "out"
        # Every registered study at its quick size (seconds; the default size is the demo's).
        cfg = self.tmp / "r.yaml"
        cfg.write_text("schema_version: 1\nkind: reproduce\nsize: quick\n")
        r = run("reproduce", cfg, "--out", out, "--quiet", timeout=600)
        self.assertExit(r, 0)
        report = out / "report.html"
        self.assertEqual(r.out.strip().splitlines()[-1], f"lightsim reproduce: report {report}")
        html = report.read_text()
        for study in json.loads((out / "run.json").read_text())["studies"]:
            self.assertTrue((out / f"{study}.json").exists(), study)
            self.assertIn(study, html)
        self.assertIn("Produced by <code>lightsim reproduce</code>", html)
        # The first screen is the summary block: right after the page heading.
        body = html[html.index("</head>\n<body>") + len("</head>\n"):]
        self.assertTrue(body.startswith('<body>\n<h1>lightsim report</h1>\n<section id="summary"'),
                        body[:200])
        self.assertIn("Headline findings", body)
        # Every table is stored once, shared by its charts; numbers at 6 significant digits, long
        # uncharted tables left to their CSV (the default size measured 1.43 MB, 2 Dec 2026).
        self.assertLessEqual(report.stat().st_size, 1_500_000)


if __name__ == "__main__":
    unittest.main()

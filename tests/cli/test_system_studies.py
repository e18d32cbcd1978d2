"""The system studies (prefill, prism, thermal) through `lightsim study run NAME --quick`, and
`lightsim reproduce` at size quick writing every result and the report."""
import csv
import json
import unittest

from clitest import SOURCE, CliTest, run

SYSTEM_STUDIES = ("prefill", "prism", "thermal")
VERDICTS = {"holds", "holds under conditions", "does not hold", "not comparable"}


class SystemStudies(CliTest):
    def run_quick(self, name):
        out = self.tmp / name
        r = run("study", "run", name, "--quick", "--out", out, "--quiet", timeout=300)
        self.assertExit(r, 0)
        result = json.loads((out / f"{name}.json").read_text())
        self.assertEqual(result["study"], name)
        for claim in result["claims"]:
            self.assertIn(claim["verdict"], VERDICTS, claim)
            if claim["verdict"] != "holds":
                self.assertTrue(claim["explanation"] or claim["conditions"], claim)
        tables = {t["name"]: t for t in result["tables"]}
        for chart in result["charts"]:
            self.assertIn(chart["table"], tables)
            self.assertTrue(tables[chart["table"]]["rows"], chart["title"])
        return out, result, tables

    def test_listed(self):
        r = run("study", "list", "--json")
        self.assertExit(r, 0)
        for name in SYSTEM_STUDIES:
            self.assertIn(name, r.json())

    def test_prefill(self):
        out, result, tables = self.run_quick("prefill")
        # The stacked latency bars name their fabric (they once had no x labels at all).
        stacked = next(c for c in result["charts"] if c["table"] == "breakdown")
        self.assertEqual(stacked["vega_lite"]["encoding"]["x"]["field"], "fabric")
        self.assertNotIn("axis", stacked["vega_lite"]["encoding"]["x"])
        ids = {c["id"] for c in result["claims"]}
        self.assertIn("speedup_8k_photonic_4x_1152", ids)
        # Quick: seed_8k only, so the 128K figure has no counterpart of ours.
        by_id = {c["id"]: c for c in result["claims"]}
        self.assertIsNone(by_id["speedup_128k_photonic_4x_1152"]["ours"])
        self.assertEqual(by_id["speedup_8k_photonic_4x_1152"]["seed_value"], 2.2)
        # The breakdown stacks to the latency of each best plan.
        cols = [c["name"] for c in tables["points"]["columns"]]
        latency = {}
        for row in tables["points"]["rows"]:
            r = dict(zip(cols, row))
            if r["feasible"]:
                latency[(r["gpus"], r["fabric"])] = r["latency"]
        self.assertEqual({r["gpus"] for r in map(lambda x: dict(zip(cols, x)),
                                                 tables["points"]["rows"])}, {72, 144})
        sums = {}
        for _, gpus, fabric, _, ms in tables["breakdown"]["rows"]:
            sums[(gpus, fabric)] = sums.get((gpus, fabric), 0) + ms
        self.assertEqual(set(sums), set(latency))
        for key, total in sums.items():
            self.assertAlmostEqual(total, latency[key], delta=1e-9 * latency[key])
        self.assertTrue((out / "prefill_breakdown.csv").exists())
        # The copper model against DeepSeek's published H800 figure: a table, not a claim,
        # with the measured figure read from configs/references/prefill_measured.yaml.
        cols = [c["name"] for c in tables["validation"]["columns"]]
        rows = {r["id"]: r for r in (dict(zip(cols, row)) for row in tables["validation"]["rows"])}
        v = rows["deepseek_h800"]
        self.assertEqual((v["scenario"], v["gpus"], v["note"]), ("deepseek_h800", 32, ""))
        self.assertEqual(v["measured_tokens_per_s_per_gpu"], 7839.1)
        self.assertGreater(v["ours_tokens_per_s_per_gpu"], 0)
        self.assertAlmostEqual(v["error"], v["ours_tokens_per_s_per_gpu"] / 7839.1 - 1, places=9)
        self.assertAlmostEqual(v["compute_share"] + v["exposed_share"], 1.0, delta=0.05)
        self.assertTrue(v["kernel_efficiency"].startswith("kernel table 'h800'"))
        self.assertNotIn("deepseek", " ".join(c["id"] for c in result["claims"]))
        # Every measurement of the file is a row; the summary is over the rows not fitted.
        self.assertGreaterEqual(len(rows), 5)
        free = sorted(abs(r["error"]) for r in rows.values() if r["fitted"] == "no")
        scols = [c["name"] for c in tables["validation_summary"]["columns"]]
        (summary,) = [dict(zip(scols, row)) for row in tables["validation_summary"]["rows"]]
        self.assertEqual(summary["rows"], len(free))
        self.assertAlmostEqual(summary["worst_abs_error"], free[-1], places=12)
        n = len(free)
        median = free[n // 2] if n % 2 else (free[n // 2 - 1] + free[n // 2]) / 2
        self.assertAlmostEqual(summary["median_abs_error"], median, places=12)
        # Each row's breakdown: compute, exposed and other stack to our latency, and with the
        # gap to the latency the measured throughput implies (error = ours / measured - 1).
        bcols = [c["name"] for c in tables["validation_breakdown"]["columns"]]
        parts = {}
        for row in tables["validation_breakdown"]["rows"]:
            b = dict(zip(bcols, row))
            parts.setdefault(b["id"], {}).setdefault(b["kind"], 0.0)
            parts[b["id"]][b["kind"]] += b["time"]
        self.assertEqual(set(parts), set(rows))
        for id_, p in parts.items():
            ours = p["compute"] + p.get("exposed", 0.0) + p.get("other", 0.0)
            self.assertAlmostEqual((ours + p["gap"]) / ours, 1 + rows[id_]["error"], places=9)
        # The sensitivity table: every seed figure under every assumption, and the summary
        # names the assumptions that move a verdict.
        scols = [c["name"] for c in tables["sensitivity"]["columns"]]
        sens = [dict(zip(scols, row)) for row in tables["sensitivity"]["rows"]]
        assumptions = {r["assumption"] for r in sens}
        self.assertEqual(assumptions, {"as_modelled", "compute_efficiency_half", "free_overlap",
                                       "no_two_microbatch_overlap", "no_ring_overlap",
                                       "skewed_routing", "skewed_routing_eplb"})
        modelled = {(r["claim"]): r["verdict"] for r in sens if r["assumption"] == "as_modelled"}
        for c in result["claims"]:
            if c["id"] in modelled:
                self.assertEqual(modelled[c["id"]], c["verdict"].replace("_", " "), c["id"])
        ucols = [c["name"] for c in tables["sensitivity_summary"]["columns"]]
        for row in tables["sensitivity_summary"]["rows"]:
            u = dict(zip(ucols, row))
            moved = {r["assumption"] for r in sens
                     if r["claim"] == u["claim"] and r["verdict"] != u["verdict"]}
            self.assertEqual(set(u["moved_by"].split()), moved)
            self.assertEqual(u["robust"], "no" if moved else "yes")

    def test_prefill_validation_summary_excludes_fitted_rows(self):
        text = (SOURCE / "configs/references/prefill_measured.yaml").read_text()
        self.assertIn("fitted: false", text)
        self.write("root/references/prefill_measured.yaml",
                   text.replace("fitted: false", "fitted: true", 1))  # the first row
        out = self.tmp / "fit"
        r = run("--config-path", self.tmp / "root", "study", "run", "prefill", "--quick",
                "--out", out, "--quiet", "--set", "scenarios=[seed_8k]", timeout=300)
        self.assertExit(r, 0)
        tables = {t["name"]: t for t in json.loads((out / "prefill.json").read_text())["tables"]}
        cols = [c["name"] for c in tables["validation"]["columns"]]
        rows = [dict(zip(cols, row)) for row in tables["validation"]["rows"]]
        self.assertEqual(rows[0]["fitted"], "yes")
        scols = [c["name"] for c in tables["validation_summary"]["columns"]]
        (summary,) = [dict(zip(scols, row)) for row in tables["validation_summary"]["rows"]]
        self.assertEqual(summary["rows"], len(rows) - 1)
        free = sorted(abs(r["error"]) for r in rows[1:])
        self.assertAlmostEqual(summary["worst_abs_error"], free[-1], places=12)

    def test_prefill_validation_unknown_is_config_error(self):
        r = run("study", "run", "prefill", "--quick", "--out", self.tmp / "v",
                "--set", "validations=[nowhere]")
        self.assertExit(r, 2)
        self.assertIn("nowhere", r.err)
        self.assertIn("prefill_measured.yaml", r.err)

    def test_prism(self):
        _, result, tables = self.run_quick("prism")
        by_id = {c["id"]: c for c in result["claims"]}
        for claim in ("dynamic_energy", "energy_with_tec", "latency", "switch_energy",
                      "tec_power", "soi_power_ratio", "multiplexed_latency"):
            self.assertIn(claim, by_id)
        self.assertEqual(by_id["dynamic_energy"]["seed_value"], 1570.0)
        # Quick runs seed and soi only: no 8-pass preset, stated rather than invented.
        self.assertIsNone(by_id["multiplexed_latency"]["ours"])
        self.assertEqual(by_id["multiplexed_latency"]["verdict"], "not comparable")
        # Energy components add to the total; the timeline ends at the latency.
        cols = [c["name"] for c in tables["summary"]["columns"]]
        summary = {row[0]: dict(zip(cols, row)) for row in tables["summary"]["rows"]}
        energy = {}
        for preset, _, pj, _, _ in tables["energy"]["rows"]:
            energy[preset] = energy.get(preset, 0) + pj
        ends = {}
        for preset, _, _, _, end, _ in tables["timeline"]["rows"]:
            ends[preset] = max(ends.get(preset, 0), end)
        for preset in ("seed", "soi"):
            self.assertAlmostEqual(energy[preset], summary[preset]["total_energy"],
                                   delta=1e-9 * energy[preset])
            self.assertAlmostEqual(ends[preset], summary[preset]["latency"], delta=1e-9)
        self.assertGreater(by_id["soi_power_ratio"]["ours"], 1)  # SOI heaters cost more

    def test_thermal(self):
        out, result, tables = self.run_quick("thermal")
        by_id = {c["id"]: c for c in result["claims"]}
        self.assertEqual(set(by_id), {"tec_stability", "control_needed", "tec_power",
                                      "lock_target"})
        # Quick: 0.5 s at 10 ms = 51 samples, under max_rows so none dropped.
        self.assertEqual(len(tables["trace"]["rows"]), 51)
        self.assertEqual(tables["events"]["rows"][0][1], "initial")
        with open(out / "thermal_trace.csv") as f:
            self.assertEqual(len(list(csv.reader(f))), 52)
        # Recall@k under the run's drift: k, ideal, calibrated, uncalibrated, each in [0, 1].
        recall = tables["recall"]["rows"]
        self.assertEqual([row[0] for row in recall], [8, 32])
        for row in recall:
            self.assertTrue(all(0.0 <= v <= 1.0 for v in row[1:]), row)

    def test_thermal_trace_is_decimated_to_max_rows(self):
        out = self.tmp / "dec"
        r = run("study", "run", "thermal", "--quick", "--set", "max_rows=10", "--out", out,
                "--quiet")
        self.assertExit(r, 0)
        result = json.loads((out / "thermal.json").read_text())
        trace = next(t for t in result["tables"] if t["name"] == "trace")
        self.assertLessEqual(len(trace["rows"]), 11)
        self.assertAlmostEqual(trace["rows"][-1][0], 0.5)

    def test_bad_study_config_names_file_and_key(self):
        cfg = self.write("p.yaml", "schema_version: 1\nkind: prism_study\npresets: []\n")
        self.assertInputError(run("study", "run", "prism", "--config", cfg, "--out",
                                  self.tmp / "o"), "p.yaml", "presets")
        cfg = self.write("t.yaml", "schema_version: 1\nkind: thermal_study\naccelerator: seed\n"
                         "duration: 5 m\n")
        self.assertInputError(run("study", "run", "thermal", "--config", cfg, "--out",
                                  self.tmp / "o"), "t.yaml", "duration")


class ReproduceQuick(CliTest):
    def test_reproduce_quick_writes_every_result_and_the_report(self):
        cfg = self.write("r.yaml", "schema_version: 1\nkind: reproduce\nsize: quick\n")
        out = self.tmp / "out"
        r = run("reproduce", cfg, "--out", out, "--quiet", timeout=600)
        self.assertExit(r, 0)
        manifest = json.loads((out / "run.json").read_text())
        self.assertEqual(manifest["size"], "quick")
        for name in manifest["studies"]:
            self.assertTrue((out / f"{name}.json").exists(), name)
        for name in SYSTEM_STUDIES:
            self.assertIn(name, manifest["studies"])
        self.assertTrue((out / "report.html").exists())
        lines = r.out.strip().splitlines()
        self.assertTrue(lines[-1].endswith("report.html"), lines[-1])
        self.assertTrue(any("holds" in line for line in lines), r.out)


if __name__ == "__main__":
    unittest.main()

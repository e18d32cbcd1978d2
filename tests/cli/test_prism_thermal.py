"""`lightsim prism thermal|calibrate` as a user runs them."""
import csv
import unittest

from clitest import SOURCE, CliTest, run

ACCEL = SOURCE / "configs" / "accelerators"


class PrismThermal(CliTest):
    def test_thermal_json_and_csv_traces(self):
        r = run("prism", "thermal", ACCEL / "seed.yaml", "--duration", "2 s", "--out", self.tmp,
                "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertTrue(j["steady_state"]["feasible"], j["steady_state"])
        self.assertGreater(j["steady_state"]["tec_power_w"], 0)
        self.assertEqual(j["initial_calibration"]["failed"], 0)
        self.assertEqual(j["recalibrations"], 2)  # periodic, every 1 s
        self.assertLessEqual(j["initial_calibration"]["max_iterations"], 16)
        self.assertAlmostEqual(j["impairments"]["calibration_residual_pm"],
                               j["initial_calibration"]["residual_rms_pm"])
        with open(self.tmp / "thermal_trace.csv") as f:
            rows = list(csv.reader(f))
        self.assertIn("error_rms", ",".join(rows[0]))
        self.assertEqual(len(rows), 1 + 201)  # header + t = 0 .. 2 s every 10 ms
        with open(self.tmp / "thermal_events.csv") as f:
            events = list(csv.reader(f))
        self.assertEqual(len(events), 1 + 3)  # initial + 2 periodic

    def test_thermal_reports_recall_under_its_drift(self):
        r = run("prism", "thermal", "seed_fit", "--duration", "0.5 s", "--out", self.tmp,
                "--recall-tokens", "4096", "--recall-steps", "2", "--json")
        self.assertExit(r, 0)
        rec = r.json()["recall"]
        self.assertEqual(rec["tokens"], 4096)
        self.assertEqual(rec["blocks"], 32)
        self.assertEqual([x["k"] for x in rec["recall_at_k"]], [8, 32])
        for x in rec["recall_at_k"]:
            for key in ("ideal", "calibrated", "uncalibrated"):
                self.assertGreaterEqual(x[key], 0.0)
                self.assertLessEqual(x[key], 1.0)
        text = run("prism", "thermal", "seed_fit", "--duration", "0.2 s", "--out", self.tmp,
                   "--recall-tokens", "4096", "--recall-steps", "2")
        self.assertExit(text, 0)
        self.assertIn("Retrieval under this drift", text.out)

    def test_thermal_table_by_preset_name(self):
        r = run("prism", "thermal", "seed_fit", "--duration", "0.5 s", "--out", self.tmp)
        self.assertExit(r, 0)
        for text in ("TEC power", "Bias calibration", "recalibrations", "seed"):
            self.assertIn(text, r.out)

    def test_infeasible_tec_stops_the_run_with_the_reason(self):
        # SOI: ~100 W of heater power on the chip, more than the two-stage TEC can pump.
        r = run("prism", "thermal", "soi", "--duration", "0.5 s", "--out", self.tmp, "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertFalse(j["feasible"])
        self.assertFalse(j["steady_state"]["feasible"])
        self.assertIn("at t = 0 s", j["reason"])
        self.assertIn(j["steady_state"]["reason"], j["reason"])
        with open(self.tmp / "thermal_trace.csv") as f:
            self.assertEqual(len(list(csv.reader(f))), 1)  # header only: nothing simulated
        r = run("prism", "thermal", "soi", "--duration", "0.5 s", "--out", self.tmp)
        self.assertExit(r, 0)
        self.assertIn("NOT simulated", r.out)
        r = run("prism", "calibrate", "soi", "--json")
        self.assertExit(r, 0)
        self.assertFalse(r.json()["feasible"])

    def test_thermal_spec_override_tec_off(self):
        spec = self.write("hot.yaml", "schema_version: 1\nkind: thermal\ntec:\n  enabled: false\n")
        r = run("prism", "thermal", "seed", "--thermal", spec, "--duration", "0.2 s",
                "--out", self.tmp, "--json")
        self.assertExit(r, 0)
        s = r.json()["steady_state"]
        # No TEC: the chip sits R (package + heat sink) x the cost model's heat above ambient.
        cost = run("prism", "cost", "seed", "--json")
        self.assertExit(cost, 0)
        heat = cost.json()["thermal"]["dissipated_power_w"]
        self.assertGreater(heat, 0.0)
        self.assertAlmostEqual(s["chip_c"], 25.0 + 0.6 * heat, delta=1e-6)
        self.assertEqual(s["tec_power_w"], 0)

    def test_nested_thermal_section_with_set(self):
        r = run("prism", "thermal", "seed", "--set", "thermal.tec.enabled=false",
                "--duration", "0.1 s", "--out", self.tmp, "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json()["steady_state"]["tec_power_w"], 0)
        r = run("prism", "calibrate", "seed", "--set", "calibration.max_iterations=2", "--json")
        self.assertExit(r, 0)
        self.assertIn("the bound is 2", r.json()["first_failure"])

    def test_bad_duration_and_bad_thermal_key(self):
        r = run("prism", "thermal", "seed", "--duration", "10 m", "--out", self.tmp)
        self.assertInputError(r, "--duration", "time")
        spec = self.write("bad.yaml", "schema_version: 1\nkind: thermal\nambient: 298 K\n")
        r = run("prism", "thermal", "seed", "--thermal", spec, "--out", self.tmp)
        self.assertInputError(r, "bad.yaml", "ambient")
        r = run("prism", "calibrate", self.tmp / "missing.yaml")
        self.assertExit(r, 2)
        self.assertIn("missing.yaml", r.err)


class PrismCalibrate(CliTest):
    def test_calibrate_per_ring_json(self):
        r = run("prism", "calibrate", "seed_fit", "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertEqual(len(j["rings"]), j["rows"] * j["channels"])
        self.assertEqual(j["failed"], 0)
        for ring in j["rings"][:64]:
            self.assertTrue(ring["locked"])
            self.assertLessEqual(abs(ring["residual_pm"]), 2.0 + 1.0)  # target + noise
        self.assertIn("calibration_residual_pm", j["impairments"])

    def test_calibrate_fails_with_reason_when_drift_exceeds_range(self):
        cal = self.write("cal.yaml", "schema_version: 1\nkind: calibration\ninitial_error: 80 pm\n")
        r = run("prism", "calibrate", "seed", "--calibration", cal, "--json")
        self.assertExit(r, 0)  # a result, not a crash
        j = r.json()
        self.assertGreater(j["failed"], 0)
        self.assertIn("outside the tuner's correction range", j["first_failure"])


if __name__ == "__main__":
    unittest.main()

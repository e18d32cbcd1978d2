"""`lightsim photonics ring|crosstalk|feasibility` as a user runs them."""
import unittest

from clitest import SOURCE, CliTest, run

DEVICES = SOURCE / "configs" / "devices"


class PhotonicsRing(CliTest):
    def test_ring_json_has_derived_figures_with_units_in_keys(self):
        r = run("photonics", "ring", DEVICES / "tfln.yaml", "--json")
        self.assertExit(r, 0)
        j = r.json()
        for key in ("fsr_nm", "fwhm_pm", "finesse", "q_loaded", "extinction_ratio_db",
                    "max_weight_slope_per_pm", "tuning_pm_per_v", "thermal_shift_pm_per_k"):
            self.assertIn(key, j)
        self.assertAlmostEqual(j["fwhm_pm"], 155.0, places=3)
        self.assertAlmostEqual(j["q_loaded"], 1e4, delta=1e-2)
        self.assertAlmostEqual(j["fsr_nm"], 8.31, delta=0.01)
        self.assertAlmostEqual(j["finesse"], j["fsr_nm"] * 1e3 / j["fwhm_pm"], places=6)

    def test_ring_table_and_preset_name(self):
        r = run("photonics", "ring", "soi")
        self.assertExit(r, 0)
        self.assertIn("FSR", r.out)
        self.assertIn("FWHM", r.out)
        self.assertIn("pm/mW", r.out)

    def test_set_override(self):
        r = run("photonics", "ring", "tfln", "--set", "ring.q_loaded=2e4", "--json")
        self.assertExit(r, 0)
        self.assertAlmostEqual(r.json()["fwhm_pm"], 77.5, places=3)


class PhotonicsCrosstalk(CliTest):
    def test_crosstalk_matrix(self):
        r = run("photonics", "crosstalk", "tfln", "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertEqual(len(j["leak"]), 8)
        self.assertEqual(len(j["leak"][0]), 8)
        self.assertLess(j["worst_db"], -20.0)
        r = run("photonics", "crosstalk", "tfln")
        self.assertExit(r, 0)
        self.assertIn("aggregate", r.out)


class PhotonicsLinkBudget(CliTest):
    def test_link_budget_json_and_table(self):
        r = run("photonics", "link-budget", "tfln", "--json")
        self.assertExit(r, 0)
        j = r.json()
        for key in ("total_loss_db", "row_power_uw", "signal_current_ua", "snr_db", "enob",
                    "required_line_power_dbm", "required_wall_power_w"):
            self.assertIn(key, j)
        for term in ("shot", "thermal", "tia", "nep", "rin", "adc", "total"):
            self.assertGreater(j["noise_rms_na"][term], 0.0)
        self.assertAlmostEqual(j["enob"], (j["snr_db"] - 1.76) / 6.02, places=9)
        r = run("photonics", "link-budget", "tfln", "--set", "noise.rin=false", "--json")
        self.assertEqual(r.json()["noise_rms_na"]["rin"], 0.0)
        r = run("photonics", "link-budget", "soi")
        self.assertExit(r, 0)
        self.assertIn("ENOB", r.out)


class PhotonicsFeasibility(CliTest):
    def test_seed_is_flagged_with_numbers(self):
        r = run("photonics", "feasibility", DEVICES / "seed_tfln.yaml", "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertFalse(j["feasible"])
        self.assertTrue(any("alias" in s and "FSR" in s and "8.5" in s for s in j["reasons"]),
                        j["reasons"])
        self.assertTrue(any("tuner reaches 40 pm" in s for s in j["reasons"]), j["reasons"])
        r = run("photonics", "feasibility", "seed_tfln")
        self.assertExit(r, 0)
        self.assertIn("NOT feasible", r.out)
        self.assertIn("FAIL", r.out)

    def test_corrected_seed_fits(self):
        r = run("photonics", "feasibility", DEVICES / "seed_tfln_fit.yaml", "--json")
        self.assertExit(r, 0)
        self.assertTrue(r.json()["feasible"], r.out)
        self.assertEqual(r.json()["reasons"], [])

    def test_bad_input_names_key_path(self):
        head = "schema_version: 1\nkind: device\npreset: {}\n".format(DEVICES / "tfln.yaml")
        cases = {
            "ring:\n  q_loaded: -1e4\n": ["ring.q_loaded", "out of range"],
            "grid:\n  channels: 0\n": ["grid.channels", "out of range"],
            "grid:\n  spacing: 1.6 mW\n": ["grid.spacing", "expected a length"],
            "tuning:\n  max_voltage: 8 pm\n": ["tuning.max_voltage", "expected a voltage"],
        }
        for body, fragments in cases.items():
            with self.subTest(body=body):
                path = self.write("bad.yaml", head + body)
                for command in ("ring", "crosstalk", "feasibility"):
                    self.assertInputError(run("photonics", command, path), "bad.yaml",
                                          *fragments)

    def test_missing_config(self):
        self.assertInputError(run("photonics", "ring", self.tmp / "nope.yaml"), "nope.yaml")
        self.assertExit(run("photonics", "ring"), 2)


if __name__ == "__main__":
    unittest.main()

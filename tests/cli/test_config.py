"""`lightsim config check|explain|reference` as a user runs them."""
import unittest

from clitest import SOURCE, CliTest, run

GOOD = "schema_version: 1\nkind: reproduce\nsize: quick\nprogress_interval: 2 s\n"


class ConfigCheck(CliTest):
    def test_shipped_configs_are_valid(self):
        files = sorted(p for p in (SOURCE / "configs").rglob("*.yaml"))
        self.assertTrue(files)
        r = run("config", "check", *files)
        self.assertExit(r, 0)
        self.assertEqual(r.out.count(": ok ("), len(files), r.out)

    def test_good_file(self):
        path = self.write("good.yaml", GOOD)
        r = run("config", "check", path)
        self.assertExit(r, 0)
        self.assertIn("ok (reproduce)", r.out)
        r = run("config", "check", path, "--json")
        self.assertEqual(r.json()["checked"][0]["kind"], "reproduce")

    def test_misspelled_key_names_file_line_path_and_suggestion(self):
        path = self.write("typo.yaml", "schema_version: 1\nkind: reproduce\nsise: quick\n")
        r = run("config", "check", path)
        self.assertInputError(r, f"{path}:3:1:", "sise", "unknown key", "did you mean 'size'?")

    def test_wrong_unit_names_expected_unit(self):
        path = self.write("unit.yaml", "schema_version: 1\nkind: reproduce\n"
                                       "progress_interval: 5 m\n")
        self.assertInputError(run("config", "check", path), f"{path}:3:20:",
                              "progress_interval", "expected a time", "s")
        path = self.write("bare.yaml", "schema_version: 1\nkind: reproduce\n"
                                       "progress_interval: 5\n")
        self.assertInputError(run("config", "check", path), "progress_interval", "time")

    def test_bad_values(self):
        cases = {
            "size: huge\n": ["size", "'huge' is not one of"],
            "progress_interval: 0 s\n": ["progress_interval", "out of range"],
            "studies: prism\n": ["studies", "expected a list"],
            "size: [a, b]\n": ["size", "expected a string"],
        }
        for body, fragments in cases.items():
            with self.subTest(body=body):
                path = self.write("bad.yaml", "schema_version: 1\nkind: reproduce\n" + body)
                self.assertInputError(run("config", "check", path), *fragments)

    def test_header_errors(self):
        cases = {
            "kind: reproduce\n": "missing 'schema_version'",
            "schema_version: 1\n": "missing 'kind'",
            "schema_version: 9\nkind: reproduce\n": "newer than this lightsim",
            "schema_version: 1\nkind: reproduc\n": "did you mean 'reproduce'?",
            "": "missing 'kind'",
            "schema_version: 1\nkind: reproduce\nsize: [\n": "syntax error",
        }
        for body, fragment in cases.items():
            with self.subTest(body=body):
                path = self.write("h.yaml", body)
                self.assertInputError(run("config", "check", path), fragment)

    def test_a_scenario_naming_no_fabric_fails_at_its_line(self):
        # The scenario's fabrics are typed references, read and checked with it (a misspelled
        # fabric passed `config check` and failed only when a prefill command ran).
        text = (SOURCE / "configs/scenarios/seed_8k.yaml").read_text()
        lines = [l for l in text.splitlines() if l.startswith("fabrics:")]
        self.assertEqual(len(lines), 1)
        path = self.write("s.yaml", text.replace(lines[0], "fabrics: [seed_copper_1152, "
                                                           "photonic_4x_115]"))
        line = text.splitlines().index(lines[0]) + 1
        self.assertInputError(run("config", "check", path), f"{path}:{line}:", "fabrics[1]",
                              "no fabric config 'photonic_4x_115'",
                              "did you mean 'photonic_4x_1152'")
        # --set reaches them as fabrics.KEY.
        self.assertExit(run("config", "check", self.write("ok.yaml", text), "--set",
                            "fabrics.gpu.hbm_capacity=100 GB"), 0)

    def test_missing_file(self):
        self.assertInputError(run("config", "check", self.tmp / "nope.yaml"), "nope.yaml",
                              "no such file")

    def test_set_overrides(self):
        path = self.write("good.yaml", GOOD)
        self.assertExit(run("config", "check", path, "--set", "size=full"), 0)
        self.assertInputError(run("config", "check", path, "--set", "size=tiny"),
                              "--set size", "'tiny' is not one of")
        self.assertInputError(run("config", "check", path, "--set", "sizee=full"),
                              "did you mean 'size'?")
        self.assertInputError(run("config", "check", path, "--set", "oops"), "KEY.PATH=VALUE")


class ConfigExplain(CliTest):
    def test_explain(self):
        r = run("config", "explain", "reproduce")
        self.assertExit(r, 0)
        self.assertIn("progress_interval: time [s]", r.out)
        self.assertIn("default: 5 s", r.out)
        r = run("config", "explain", "reproduce", "--json")
        names = [f["name"] for f in r.json()["fields"]]
        self.assertIn("size", names)

    def test_unknown_kind(self):
        self.assertInputError(run("config", "explain", "reproduc"), "did you mean 'reproduce'?")


class ConfigReference(CliTest):
    def test_generated_reference_is_fresh(self):
        r = run("config", "reference")
        self.assertExit(r, 0)
        committed = (SOURCE / "docs" / "config-reference.md").read_text()
        self.assertEqual(r.out, committed,
                         "docs/config-reference.md is stale: run `make docs` and commit it")

    def test_reference_to_file(self):
        out = self.tmp / "ref.md"
        self.assertExit(run("config", "reference", "-o", out), 0)
        self.assertTrue(out.read_text().startswith("# Config reference"))


if __name__ == "__main__":
    unittest.main()

"""The lightsim program's basic contract: help, version, usage errors, list."""
import unittest

from clitest import CliTest, run


class Basic(CliTest):
    def test_version(self):
        r = run("--version")
        self.assertExit(r, 0)
        self.assertRegex(r.out, r"^lightsim \d+\.\d+\.\d+")

    def test_help_everywhere(self):
        for args in [["--help"], ["list", "--help"], ["config", "--help"],
                     ["config", "check", "--help"], ["config", "explain", "--help"],
                     ["reproduce", "--help"]]:
            r = run(*args)
            self.assertExit(r, 0)
            self.assertIn("Usage", r.out)
        self.assertIn("--seed", run("--help").out)

    def test_usage_errors_exit_2(self):
        self.assertInputError(run(), "A subcommand is required")
        r = run("frobnicate")
        self.assertExit(r, 2)
        self.assertIn("lightsim: error:", r.err)
        r = run("list", "--no-such-flag")
        self.assertExit(r, 2)
        self.assertIn("--no-such-flag", r.err)
        r = run("--threads", "-3", "list")
        self.assertExit(r, 2)

    def test_global_options_after_subcommand(self):
        r = run("list", "--json")
        self.assertExit(r, 0)
        self.assertIn("reproduce", r.json()["config_kinds"])

    def test_list(self):
        r = run("list")
        self.assertExit(r, 0)
        self.assertIn("Config kinds", r.out)
        self.assertIn("reproduce", r.out)
        self.assertIn("Implementation families", r.out)


if __name__ == "__main__":
    unittest.main()

"""SIGTERM and SIGINT stop a long-running command within 1 s with exit code 130 (issue 24,
docs/hardening.md "Exit codes"), and out-of-range durations are refused up front."""
import signal
import subprocess
import time
import unittest

from clitest import BIN, CliTest, run

# Reaction time allowed after the signal.
GRACE_SECONDS = 1.0


class Interrupts(CliTest):
    def assert_stops(self, argv, sig):
        proc = subprocess.Popen([BIN, "-q", *map(str, argv)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            time.sleep(1.5)  # well into the run (it takes minutes uninterrupted)
            self.assertIsNone(proc.poll(), "the command ended before the signal")
            sent = time.monotonic()
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=30)
            waited = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        self.assertEqual(proc.returncode, 130, err)
        self.assertLess(waited, GRACE_SECONDS, err)
        self.assertIn("interrupted", err)

    def test_prism_thermal_stops_on_sigterm_and_sigint(self):
        # Once ran on for 41 s after SIGTERM and exited 0.
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(signal=sig.name):
                self.assert_stops(["prism", "thermal", "seed", "--duration", "1000 s",
                                   "--recall-tokens", "0", "--out", self.tmp / "th"], sig)

    def test_prism_thermal_duration_is_bounded(self):
        r = run("-q", "prism", "thermal", "seed", "--duration", "1e9 s", "--recall-tokens", "0",
                "--out", self.tmp / "th")
        self.assertInputError(r, "--duration", "out of range")
        # Within the duration's range, the trace is still capped (1e8 samples asked).
        r = run("-q", "prism", "thermal", "seed", "--duration", "1e5 s", "--trace-interval",
                "1 ms", "--recall-tokens", "0", "--out", self.tmp / "th")
        self.assertInputError(r, "samples", "at most 1e+07")


if __name__ == "__main__":
    unittest.main()

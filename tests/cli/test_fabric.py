"""`lightsim fabric show|collective` as a user runs them."""
import unittest

from clitest import CliTest, run


class FabricCli(CliTest):
    def test_collective_json(self):
        r = run("fabric", "collective", "--fabric", "seed_copper_1152", "--op", "all-to-all",
                "--gpus", "144", "--bytes", "256MiB", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["algorithm"], "direct")
        self.assertEqual(doc["bounding_tier"], "scale_out")
        self.assertAlmostEqual(doc["busbw_Bps"], doc["algbw_Bps"] * 143 / 144, delta=1.0)
        r = run("fabric", "collective", "--fabric", "photonic_4x_1152", "--op", "all-to-all",
                "--gpus", "144", "--bytes", "256MiB", "--json")
        self.assertEqual(r.json()["bounding_tier"], "photonic")

    def test_text_and_sweep(self):
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "8", "--bytes", "8 GiB")
        self.assertExit(r, 0)
        self.assertIn("in-switch", r.out)
        r = run("fabric", "collective", "--fabric", "gb200_nvl72", "--gpus", "72", "--sweep",
                "--min-bytes", "1MiB", "--max-bytes", "8GiB", "--json")
        self.assertExit(r, 0)
        curve = [p["busbw_Bps"] for p in r.json()]
        self.assertEqual(len(curve), 14)
        self.assertEqual(curve, sorted(curve))  # busbw grows with size

    def test_show_derives_cpo(self):
        r = run("fabric", "show", "photonic_4x_1152")
        self.assertExit(r, 0)
        self.assertIn("4.00x the GPU's 900 GB/s scale-up | 4.0x", r.out)
        self.assertIn("1.60 Tb/s | 1.60 Tb/s", r.out)
        r = run("fabric", "show", "photonic_cpo_1152", "--json")
        self.assertAlmostEqual(r.json()["tiers"][0]["ratio_to_gpu_scale_up"], 14.22, delta=0.01)

    def test_bad_input(self):
        r = run("fabric", "collective", "--fabric", "seed_copper_1152", "--gpus", "2000")
        self.assertInputError(r, "holds at most 1152 GPUs")
        r = run("fabric", "collective", "--fabric", "nope", "--gpus", "8")
        self.assertInputError(r, "no fabric 'nope'")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--op", "allreduce")
        self.assertInputError(r, "unknown collective 'allreduce'")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--bytes", "5 m")
        self.assertInputError(r, "--bytes", "data size")
        r = run("fabric", "collective", "--fabric", "gb200_nvl72", "--gpus", "8",
                "--algorithm", "nvls")
        self.assertInputError(r, "not available", "in-switch")


if __name__ == "__main__":
    unittest.main()

"""`lightsim decode run` as a user runs it."""
import json
import unittest

from clitest import CliTest, run


class DecodeCli(CliTest):
    def test_run_prints_every_gpu_and_infeasible_points(self):
        r = run("decode", "run", "qwen2_5_7b")
        self.assertExit(r, 0)
        for text in ("A100 SXM4 40GB", "A100 SXM4 80GB", "H100 SXM", "p4d.24xlarge",
                     "does not fit", "prism ms"):
            self.assertIn(text, r.out)

    def test_run_json_full_vs_prism(self):
        r = run("decode", "run", "qwen2_5_7b", "--json")
        self.assertExit(r, 0)
        points = r.json()["points"]
        self.assertEqual(len(points), 2 * 3 * 7 * 6)  # (full, prism) x GPUs x batches x contexts
        by_key = {(p["gpu"], p["attention"], p["batch"], p["context"]): p for p in points}
        full = by_key[("H100 SXM", "full", 1, 131072)]
        prism = by_key[("H100 SXM", "prism", 1, 131072)]
        # Qwen2.5-7B BF16: 2 x 28 layers x 4 KV heads x 128 x 2 B per token.
        self.assertEqual(full["kv_bytes_read_b"], 2 * 28 * 4 * 128 * 2 * 131072)
        self.assertLess(prism["kv_bytes_read_b"], full["kv_bytes_read_b"])
        self.assertLess(prism["step_time_s"], full["step_time_s"])
        self.assertEqual(prism["prism_queries"], 28 * 4)
        self.assertIn("prism", prism)
        self.assertFalse(by_key[("A100 SXM4 40GB", "full", 64, 131072)]["feasible"])

    def test_set_overrides_a_key(self):
        r = run("decode", "run", "qwen2_5_7b", "--json", "--set", "prism.recent_tokens=8192")
        self.assertExit(r, 0)
        points = r.json()["points"]
        p = [p for p in points if p["attention"] == "prism" and p["context"] == 131072
             and p["batch"] == 1 and p["gpu"] == "H100 SXM"][0]
        self.assertEqual(p["attended_tokens"], 128 + 8192 + 32 * 128)

    def test_study_quick(self):
        out = self.tmp / "out"
        r = run("study", "run", "decode", "--quick", "--out", out)
        self.assertExit(r, 0)
        doc = json.loads((out / "decode.json").read_text())
        claims = {c["id"]: c for c in doc["claims"]}
        self.assertEqual(set(claims), {"latency_ratio", "power_full", "power_prism",
                                       "power_change", "cost_change"})
        self.assertEqual(claims["latency_ratio"]["seed_value"], 2.8)
        self.assertGreater(claims["latency_ratio"]["ours"], 1.0)
        self.assertTrue((out / "decode_grid.csv").exists())
        self.assertTrue((out / "decode_infeasible.csv").exists())
        self.assertIn("latency_ratio", r.out)

    def test_bad_input(self):
        r = run("decode", "run", "no_such_scenario")
        self.assertExit(r, 2)
        self.assertIn("no_such_scenario", r.err)
        r = run("decode", "run", "qwen2_5_7b", "--set", "power.memory_share=1.5")
        self.assertExit(r, 2)
        self.assertIn("memory_share", r.err)


if __name__ == "__main__":
    unittest.main()


class DecodeAtScaleCli(CliTest):
    def test_step_prints_the_breakdown_and_json(self):
        r = run("decode", "step", "sglang_h100_ep72")
        self.assertExit(r, 0)
        for text in ("TP=1,DPA=72,EP=72", "TPOT", "ep_dispatch", "per GPU", "holds"):
            self.assertIn(text, r.out)
        r = run("decode", "step", "qwen2_5_7b_h100", "--plan", "TP=2,DPA=4", "--batch", "64",
                "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertTrue(j["feasible"])
        self.assertEqual(j["comm"]["ep_dispatch_s"], 0)
        self.assertGreater(j["tokens_per_s_per_gpu"], 0)

    def test_plan_search_meets_the_target(self):
        r = run("decode", "plan", "qwen2_5_7b_h100", "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertTrue(j["best"]["feasible"])
        self.assertLessEqual(j["best"]["tpot_s"], j["tpot_target_s"])

    def test_validate_prints_every_row_with_its_error(self):
        r = run("decode", "validate", "--json")
        self.assertExit(r, 0)
        rows = r.json()["rows"]
        self.assertGreaterEqual(len(rows), 4)
        self.assertTrue(all(not row["fitted"] for row in rows))
        r = run("decode", "validate")
        self.assertIn("median |error|", r.out)

    def test_bad_plan_is_exit_2(self):
        r = run("decode", "step", "sglang_h100_ep72", "--plan", "TP=0")
        self.assertExit(r, 2)
        self.assertIn("TP=0", r.err)
        r = run("decode", "step", "sglang_h100_ep72", "--plan", "XY=3")
        self.assertExit(r, 2)
        self.assertIn("XY", r.err)
        r = run("decode", "step", "sglang_h100_ep72", "--plan", "TP=3")
        self.assertExit(r, 2)
        self.assertIn("TP=3", r.err)
        r = run("decode", "step", "sglang_h100_ep72", "--plan", "TP=8,DPA=8")  # 64 of 72 GPUs
        self.assertExit(r, 2)
        self.assertIn("72", r.err)
        r = run("decode", "step", "deepseek_v3_gb200_nvl72")  # names no plan
        self.assertExit(r, 2)
        self.assertIn("--plan", r.err)
        r = run("decode", "step", "sglang_h100_ep72", "--set", "expert_skew=0.5")
        self.assertExit(r, 2)
        self.assertIn("expert_skew", r.err)

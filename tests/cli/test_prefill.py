"""`lightsim prefill run|plan|study` as a user runs them."""
import unittest

from clitest import CliTest, run


class PrefillCli(CliTest):
    def test_run_fixed_plan_json(self):
        r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,EP=32",
                "--json")
        self.assertExit(r, 0)
        doc = r.json()
        for key in ("ttft_s", "latency_s", "tokens_per_s_per_gpu", "mfu", "plan", "breakdown"):
            self.assertIn(key, doc)
        self.assertEqual(doc["plan"]["ep"], 32)
        self.assertEqual(doc["breakdown"]["communication"]["ep_dispatch"]["tier"], "scale_out")
        self.assertGreater(doc["tokens_per_s_per_gpu"], 0)

    def test_run_scenario_prints_fabrics_and_seed(self):
        r = run("prefill", "run", "seed_8k", "--gpus", "144")
        self.assertExit(r, 0)
        for text in ("seed_copper_1152", "photonic_4x_1152", "photonic_cpo_1152", "speedup",
                     "beside the seed's figures", "2.2"):
            self.assertIn(text, r.out)

    def test_infeasible_plan_names_the_term(self):
        r = run("prefill", "run", "deepseek_h800", "--gpus", "1", "--plan", "TP=1,EP=1",
                "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertFalse(doc["feasible"])
        self.assertIn("weights overflows", doc["reason"])

    def test_plan_search(self):
        r = run("prefill", "plan", "deepseek_h800", "--gpus", "16", "32", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(len(doc["searches"]), 2)
        self.assertGreater(doc["searches"][0]["evaluated"], 10)
        self.assertTrue(doc["searches"][1]["best"]["feasible"])
        self.assertGreaterEqual(len(doc["pareto_front"]), 1)

    def test_crossover_and_kv(self):
        r = run("prefill", "crossover", "llama3_8b", "seed_r1_840b_a42b", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual([d["model"] for d in doc], ["llama3_8b", "seed_r1_840b_a42b"])
        # dense GQA closed form 2 (6 h I + 5 I) / (4 H d + 5 H) - 1 ~ 42,600 tokens
        self.assertAlmostEqual(doc[0]["crossover_tokens"], 42600, delta=5)
        # MLA: 576 values x 60 layers x 1 B x 2^20 tokens
        self.assertAlmostEqual(doc[1]["kv_cache_1m_tokens_fp8_B"], 576 * 60 * 2**20, delta=1)

    def test_bad_input(self):
        r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,XP=2")
        self.assertExit(r, 2)
        self.assertIn("XP", r.err)
        r = run("prefill", "run", "no_such_scenario")
        self.assertExit(r, 2)
        self.assertIn("no_such_scenario", r.err)
        r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,EP=16,DP=1")
        self.assertExit(r, 2)

    def test_per_operator_formats_and_moe_layout_are_checked(self):
        # expert_dtype names a number format; MOE names a routed-expert layout.
        r = run("prefill", "run", "sglang_gb200_nvfp4moe_ep8_2k", "--plan", "TP=1,EP=8",
                "--set", "expert_dtype=fp6")
        self.assertExit(r, 2)
        self.assertIn("expert_dtype", r.err)
        r = run("prefill", "run", "deepseek_h800", "--plan", "TP=1,EP=32,MOE=dp")
        self.assertExit(r, 2)
        self.assertIn("MOE=dp", r.err)
        # NVFP4 experts beside FP8 layers are faster than FP8 experts; MOE=tp has no all-to-all.
        def tokens(*extra):
            r = run("prefill", "run", "sglang_gb200_nvfp4moe_ep8_2k", "--json", *extra)
            self.assertExit(r, 0)
            return r.json()
        fp4 = tokens("--plan", "TP=1,EP=8")
        fp8 = tokens("--plan", "TP=1,EP=8", "--set", "expert_dtype=fp8")
        self.assertGreater(fp4["tokens_per_s_per_gpu"], fp8["tokens_per_s_per_gpu"])
        tp = tokens("--plan", "TP=8,EP=8,MOE=tp")
        self.assertEqual(tp["plan"]["text"], "TP=8,CP=1,EP=8,PP=1,DP=1,MOE=tp")
        self.assertNotIn("ep_dispatch", tp["breakdown"]["communication"])

    def test_communication_sms_are_checked_against_the_gpu(self):
        # The expert all-to-all cannot hold more SMs than the GPU has (H800: 132).
        r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,EP=32",
                "--set", "ep_comm_sms=200")
        self.assertExit(r, 2)
        for text in ("ep_comm_sms = 200", "sm_count = 132", "H800"):
            self.assertIn(text, r.err)
        r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,EP=32",
                "--set", "ep_comm_sms=-1")
        self.assertExit(r, 2)
        self.assertIn("ep_comm_sms", r.err)
        # More SMs held by the all-to-all: the hidden part costs more compute time.
        def tokens(sms):
            r = run("prefill", "run", "deepseek_h800", "--gpus", "32", "--plan", "TP=1,EP=32",
                    "--set", f"ep_comm_sms={sms}", "--json")
            self.assertExit(r, 0)
            return r.json()["tokens_per_s_per_gpu"]
        self.assertGreater(tokens(0), tokens(20))
        self.assertGreater(tokens(20), tokens(40))


if __name__ == "__main__":
    unittest.main()

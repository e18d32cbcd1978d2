"""`lightsim model show` as a user runs it."""
import unittest

from clitest import SOURCE, CliTest, run

MODELS = SOURCE / "configs" / "models"
HF = SOURCE / "tests" / "data" / "hf_configs"


class ModelShow(CliTest):
    def test_every_shipped_model_reads(self):
        files = sorted(MODELS.glob("*.json"))
        self.assertGreaterEqual(len(files), 8)
        for f in files:
            r = run("model", "show", f, "--tokens", "128", "--json")
            self.assertExit(r, 0)
            self.assertGreater(r.json()["totals"]["flops"], 0)

    def test_deepseek_json_totals(self):
        r = run("model", "show", MODELS / "deepseek_v3.json", "--json", "--tokens", "4096")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertAlmostEqual(doc["parameters"]["total"] / 671e9, 1.0, delta=0.02)
        self.assertEqual(doc["kv_values_per_token_per_layer"], 576)
        self.assertEqual(doc["mla_form"], "unabsorbed")
        self.assertEqual(sum(g["count"] for g in doc["groups"]), 61 + 2)
        names = {op["name"] for g in doc["groups"] for op in g["operators"]}
        for name in ("q_b_proj", "kv_b_proj", "attn_score", "softmax", "router",
                     "experts_gate_up", "shared_down", "lm_head", "embed_lookup"):
            self.assertIn(name, names)

    def test_table_and_decode(self):
        r = run("model", "show", MODELS / "kimi_k2.json", "--decode", "32768",
                "--sequences", "16", "--kv", "fp8", "--ops")
        self.assertExit(r, 0)
        self.assertIn("MLA absorbed", r.out)
        self.assertIn("q_absorb", r.out)
        self.assertIn("   60  moe layer, MLA", r.out)

    def test_dtype_preset_and_override(self):
        seed = MODELS / "seed_r1_840b_a42b.json"
        r = run("model", "show", seed, "--dtypes", "fp4", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["dtypes"], {"weights": "fp4", "activations": "fp4", "kv_cache": "fp8"})
        self.assertEqual(doc["kv_bytes_per_token"], 576 * 60)
        self.assertAlmostEqual(doc["parameters"]["total"] / 840e9, 1.0, delta=0.01)
        r = run("model", "show", seed, "--dtypes", "fp4", "--kv", "bf16", "--json")
        self.assertEqual(r.json()["dtypes"]["kv_cache"], "bf16")
        self.assertInputError(run("model", "show", seed, "--dtypes", "fp5"), "fp5")

    def test_bad_config_names_field(self):
        path = self.write("config.json", '{"model_type": "llama", "hidden_size": 64}\n')
        self.assertInputError(run("model", "show", path), str(path), "missing required field")
        path = self.write("arch.json", '{"model_type": "rwkv"}\n')
        self.assertInputError(run("model", "show", path), "model_type", "unknown architecture")

    def test_missing_file(self):
        self.assertInputError(run("model", "show", self.tmp / "nope.json"), "nope.json")


class RealConfigs(CliTest):
    def test_every_real_config_shows_its_parameters(self):
        files = sorted(HF.glob("*.json"))
        self.assertEqual(len(files), 30)
        for f in files:
            r = run("model", "show", f, "--tokens", "16", "--json")
            self.assertExit(r, 0)
            doc = r.json()
            self.assertGreater(doc["parameters"]["total"], 0)
            # Either an operator list, or the feature the cost model lacks, named.
            self.assertTrue(doc["groups"] or doc["cost_unavailable"], f.name)

    def test_unmodelled_cost_feature_is_named_in_text(self):
        r = run("model", "show", HF / "gpt_oss_120b.json")
        self.assertExit(r, 0)
        self.assertIn("116.83 B total", r.out)
        self.assertIn("checkpoint: 65.19 GB (mxfp4", r.out)
        self.assertIn("cost: not available", r.out)
        self.assertIn("sliding_window", r.out)


class ModelFlag(CliTest):
    """`prefill plan|run` and `decode run` take --model NAME|FILE instead of the scenario's."""

    def test_prefill_plan_and_run_take_a_config_file(self):
        base = run("prefill", "plan", "deepseek_h800", "--gpus", "16", "--json")
        same = run("prefill", "plan", "deepseek_h800", "--gpus", "16", "--json",
                   "--model", HF / "deepseek_r1.json")  # R1 has V3's shapes
        other = run("prefill", "plan", "deepseek_h800", "--gpus", "16", "--json",
                    "--model", HF / "qwen3_235b_a22b.json")
        for r in (base, same, other):
            self.assertExit(r, 0)
        self.assertEqual(base.json()["searches"], same.json()["searches"])
        self.assertNotEqual(base.json()["searches"], other.json()["searches"])
        r = run("prefill", "run", "deepseek_h800", "--gpus", "8", "--plan", "TP=8,EP=8",
                "--json", "--model", HF / "mixtral_8x7b.json")
        self.assertExit(r, 0)
        self.assertGreater(r.json()["tokens_per_s_per_gpu"], 0)

    def test_decode_run_takes_a_config_file(self):
        base = run("decode", "run", "qwen2_5_7b", "--json")
        same = run("decode", "run", "qwen2_5_7b", "--json", "--model", HF / "qwen2_5_7b.json")
        other = run("decode", "run", "qwen2_5_7b", "--json", "--model", HF / "qwen3_8b.json")
        for r in (base, same, other):
            self.assertExit(r, 0)
        self.assertEqual(base.json(), same.json())
        self.assertNotEqual(base.json(), other.json())

    def test_unmodelled_features_and_missing_files_exit_2_naming_them(self):
        r = run("decode", "run", "qwen2_5_7b", "--model", HF / "gpt_oss_20b.json")
        self.assertExit(r, 2)
        self.assertIn("sliding_window", r.err)
        r = run("prefill", "plan", "deepseek_h800", "--gpus", "8",
                "--model", HF / "qwen3_next_80b_a3b.json")
        self.assertExit(r, 2)
        self.assertIn("linear_attention", r.err)
        r = run("prefill", "plan", "deepseek_h800", "--model", "no_such_model.json")
        self.assertExit(r, 2)
        self.assertIn("no_such_model.json", r.err)


if __name__ == "__main__":
    unittest.main()

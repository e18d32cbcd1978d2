"""`lightsim model show` as a user runs it."""
import unittest

from clitest import SOURCE, CliTest, run

MODELS = SOURCE / "configs" / "models"


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


if __name__ == "__main__":
    unittest.main()

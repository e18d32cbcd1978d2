"""lightsim kv generate | select | stats, run as a user runs them."""
import json
import unittest

from clitest import CliTest, SOURCE, run

TINY = """schema_version: 1
kind: kv_synthetic
preset: qwen2.5-7b
model_layers: 2
layers: []
kv_heads: 2
q_heads: 4
head_dim: 32
tokens: 1024
steps: 4
key_rank: 8
needle_tokens: 16
"""

KEYS = ["recall_at_k", "mass_recall", "output_rel_error", "needle_hit_rate",
        "fetched_fraction", "bytes_per_step", "traffic_reduction"]


class Kv(CliTest):
    def generate(self, name="cache", *extra):
        config = self.write("tiny.yaml", TINY)
        out = self.tmp / name
        r = run("kv", "generate", config, "--out", out, "-q", *extra)
        self.assertExit(r, 0)
        return out

    def test_generate_writes_the_documented_format(self):
        out = self.generate()
        manifest = json.loads((out / "manifest.json").read_text())
        self.assertEqual(manifest["format"], "lightsim-kv")
        self.assertEqual(manifest["layer_ids"], [0, 1])
        self.assertEqual(manifest["dtype"], "float16")
        self.assertEqual(manifest["rope_base"], 1e6)
        self.assertEqual(len(manifest["needles"]), 3)
        for name in ["keys.npy", "values.npy", "queries.npy"]:
            self.assertTrue((out / name).exists())

    def test_generate_is_identical_across_thread_counts(self):
        a = self.generate("a", "--threads", "1")
        b = self.generate("b", "--threads", "2")
        for name in ["keys.npy", "values.npy", "queries.npy", "manifest.json"]:
            self.assertEqual((a / name).read_bytes(), (b / name).read_bytes(), name)

    def test_select_json_has_the_issue_keys(self):
        out = self.generate()
        r = run("kv", "select", "--cache", out, "--scorer", "exact,quest,signature:random",
                "--k", "2,4", "--dim", "8", "--json", "--recent", "128")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(set(doc["results"]), {"exact", "quest", "signature:random:d8"})
        for scorer, per_k in doc["results"].items():
            self.assertEqual(set(per_k), {"2", "4"})
            for k, m in per_k.items():
                for key in KEYS:
                    self.assertIn(key, m, f"{scorer} k={k}")
        self.assertEqual(doc["results"]["exact"]["4"]["recall_at_k"], 1.0)
        self.assertEqual(doc["results"]["exact"]["4"]["mass_recall"], 1.0)
        self.assertEqual(doc["candidate_blocks"], 7)  # 8 blocks; the last is all recent window

    def test_select_table_lists_every_scorer(self):
        out = self.generate()
        r = run("kv", "select", "--cache", out, "--k", "4", "--dim", "8", "--pq-nbits", "6")
        self.assertExit(r, 0)
        self.assertEqual(r.err, "")
        for name in ["exact", "mean_key", "quest", "rep_keys", "faiss_ivfpq", "signature:pca:d8",
                     "signature:random:d8", "signature:first:d8"]:
            self.assertIn(name, r.out)

    def test_stats_report(self):
        out = self.generate()
        r = run("kv", "stats", out, "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(len(doc["heads"]), 4)
        self.assertLess(doc["summary"]["rank90_pre_rope"]["mean"],
                        doc["summary"]["rank90_post_rope"]["mean"])
        self.assertIn("sink_mass", run("kv", "stats", out).out)

    def test_bad_input_exits_2(self):
        self.assertInputError(run("kv", "select", "--cache", self.tmp / "none", "--scorer", "exact"),
                              "no such KV cache folder")
        out = self.generate()
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "qest"),
                              "did you mean 'quest'")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "signature:pcx"),
                              "unknown kv_projection 'pcx'")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "signature",
                                  "--dim", "64"), "projection dimension")
        bad = self.write("bad.yaml", "schema_version: 1\nkind: kv_synthetic\nkv_heads: 2\n"
                                     "q_heads: 3\n")
        self.assertInputError(run("kv", "generate", bad, "--out", self.tmp / "x"),
                              "bad.yaml", "multiple of kv_heads")
        (out / "values.npy").write_bytes((out / "keys.npy").read_bytes()[:200])
        self.assertInputError(run("kv", "stats", out), "values.npy")

    def test_presets_are_shipped(self):
        for name in ["qwen2.5-7b", "llama-3-8b"]:
            self.assertTrue((SOURCE / "configs" / "kv" / f"{name}.yaml").exists())


if __name__ == "__main__":
    unittest.main()

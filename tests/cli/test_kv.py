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

# Every estimate is {mean, ci95, n} (kv::to_json, the same schema as Python evaluate_kv).
ESTIMATES = ["recall", "recall_projected", "mass_recall", "mass_coverage", "output_rel_error",
             "needle_hit", "needle_hit_union", "fetched_fraction", "union_fetched_fraction"]
KEYS = ESTIMATES + ["recall_k_at_K", "bytes_per_step", "traffic_reduction"]


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
                for key in ESTIMATES:
                    self.assertEqual(set(m[key]), {"mean", "ci95", "n"}, f"{scorer} k={k} {key}")
        self.assertEqual(doc["results"]["exact"]["4"]["recall"]["mean"], 1.0)
        self.assertEqual(doc["results"]["exact"]["4"]["mass_recall"]["mean"], 1.0)
        self.assertEqual(doc["results"]["exact"]["2"]["recall_k_at_K"]["4"]["mean"], 1.0)
        self.assertEqual(doc["candidate_blocks"], 7)  # 8 blocks; the last is all recent window
        self.assertEqual(doc["block_tokens"], 128)

    def test_select_resolves_every_registered_projection(self):
        # `lightsim list` shows the prism module's qat projection; kv select takes it (it
        # built private scorer and projection families and rejected it, exit 2).
        self.assertIn("qat", run("list").out)
        out = self.generate()
        r = run("kv", "select", "--cache", out, "--scorer", "prism:qat,signature:qat",
                "--accelerator", "seed_fit", "--k", "2", "--recent", "128", "--json")
        self.assertExit(r, 0)
        self.assertEqual(set(r.json()["results"]), {"prism:qat:d32", "signature:qat:d32"})

    def test_select_scorer_options(self):
        out = self.generate()
        # An options file of a scorer's spec kind selects it; `config explain` lists its fields.
        conf = self.write("faiss.yaml", "schema_version: 1\nkind: scorer_faiss_ivfpq\n"
                                        "nlist: 8\npq_m: 8\npq_nbits: 6\nnprobe: 8\n")
        self.assertExit(run("config", "check", conf), 0)
        r = run("kv", "select", "--cache", out, "--scorer", str(conf), "--k", "2", "--recent",
                "128", "--json")
        self.assertExit(r, 0)
        self.assertEqual(set(r.json()["results"]), {"faiss_ivfpq"})
        explained = run("config", "explain", "scorer_faiss_ivfpq").out
        for field in ["nlist", "pq_m", "pq_nbits", "nprobe", "retrieve"]:
            self.assertIn(field, explained)
        # A flag no selected scorer takes is an error, not ignored; a bad value names its key.
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "exact",
                                  "--nprobe", "4"), "scorer_options.nprobe",
                              "none of the selected scorers")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "exact",
                                  "--scorer-options", "nprobe"), "--scorer-options",
                              "KEY=VALUE")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "faiss_ivfpq",
                                  "--pq-nbits", "40"), "pq_nbits")

    def test_select_table_lists_every_scorer(self):
        out = self.generate()
        r = run("kv", "select", "--cache", out, "--k", "4", "--dim", "8", "--pq-nbits", "6")
        self.assertExit(r, 0)
        # stderr (not a terminal) holds only progress lines: over (layer, KV head) pairs, and
        # FAISS training's nested task (plain lines of their own when not a terminal).
        lines = r.err.strip().splitlines()
        progress = [line for line in lines if line.startswith("kv select: layer x KV head: ")]
        self.assertTrue(progress, "no progress line")
        self.assertTrue(all(line.startswith(("kv select: layer x KV head: ",
                                             "faiss training (Mflop): ")) for line in lines),
                        r.err)
        self.assertIn("(100%)", progress[-1])
        self.assertIn("done in", progress[-1])
        for name in ["exact", "mean_key", "quest", "rep_keys", "faiss_ivfpq", "signature:pca:d8",
                     "signature:random:d8", "signature:first:d8"]:
            self.assertIn(name, r.out)

    def test_cache_dependent_options_name_the_flag_and_the_range(self):
        # They leaked FAISS's internal error or named internal parameters; now each is checked
        # against the cache (1024 tokens, head_dim 32, 8 blocks of 128) before any work.
        out = self.generate()
        select = ["kv", "select", "--cache", out, "--scorer", "faiss_ivfpq"]
        cases = [
            (["--pq-m", "3"], ["scorer_options.pq_m (--pq-m): 3 does not divide this cache's "
                               "head_dim 32", "allowed: 1, 2, 4, 8, 16, 32"]),
            (["--nlist", "2000"], ["scorer_options.nlist (--nlist): 2000 is out of range "
                                   "[0, 1024] for this cache"]),
            (["--nprobe", "27"], ["scorer_options.nprobe (--nprobe): 27 is out of range [1, 26]",
                                  "nlist = 26 lists"]),
            (["--nlist", "8", "--nprobe", "9"], ["(--nprobe): 9 is out of range [1, 8]"]),
            (["--pq-nbits", "11"], ["(--pq-nbits): 11 is out of range [1, 10]"]),
            (["--retrieve", "1025"], ["(--retrieve): 1025 is out of range [1, 1024]"]),
        ]
        for extra, fragments in cases:
            with self.subTest(extra=extra):
                self.assertInputError(run(*select, *extra), *fragments)
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "signature",
                                  "--dim", "33"),
                              "scorer_options.dim (--dim): 33 is out of range [1, 32]",
                              "head_dim = 32")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "exact", "--k",
                                  "4", "--k", "9"),
                              "k (--k): 9 is out of range [1, 8] for this cache",
                              "1024 tokens in 8 blocks of 128 (--block)")
        # The same flags on a KV profile are checked before it is generated (no progress).
        profile = self.write("tiny.yaml", TINY)
        r = run("kv", "select", "--cache", profile, "--scorer", "faiss_ivfpq", "--pq-m", "5")
        self.assertInputError(r, "(--pq-m): 5 does not divide this cache's head_dim 32")
        # An options file names its line; a default that does not fit is named as the default.
        conf = self.write("f.yaml", "schema_version: 1\nkind: scorer_faiss_ivfpq\nnlist: 4096\n")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", conf),
                              f"{conf}:3:8: nlist: 4096 is out of range [0, 1024]")
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "faiss_ivfpq",
                                  "--pq-m", "8", "--pq-nbits", "6", "--block", "2048", "--k",
                                  "2"), "k (--k): 2 is out of range [1, 1]")
        # Within range: runs (the default k of 8, 16, 32 is clipped to the candidates).
        r = run("kv", "select", "--cache", out, "--scorer", "faiss_ivfpq", "--pq-m", "8",
                "--nlist", "8", "--nprobe", "8", "--pq-nbits", "6", "--json")
        self.assertExit(r, 0)
        self.assertEqual(set(r.json()["results"]["faiss_ivfpq"]), {"8", "16", "32"})

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
                                  "--dim", "64"), "--dim", "64 is out of range [1, 32]")
        bad = self.write("bad.yaml", "schema_version: 1\nkind: kv_synthetic\nkv_heads: 2\n"
                                     "q_heads: 3\n")
        self.assertInputError(run("kv", "generate", bad, "--out", self.tmp / "x"),
                              "bad.yaml", "multiple of kv_heads")
        (out / "values.npy").write_bytes((out / "keys.npy").read_bytes()[:200])
        self.assertInputError(run("kv", "stats", out), "values.npy")

    def test_presets_are_shipped(self):
        for name in ["qwen2.5-7b", "llama-3-8b", "llama-2-7b", "mistral-7b"]:
            self.assertTrue((SOURCE / "configs" / "kv" / f"{name}.yaml").exists())


TARGETS = """schema_version: 1
kind: kv_measurements
statistics:
  - id: streaming
    model: M
    profiles: [tiny]
    context_tokens: 1024
    setting: s
    kind: streaming_head_fraction
    value: 0.5
    band: [0.0, 1.0]
    source: paper
    where: Fig. 1
  - id: rank
    model: M
    profiles: [tiny, other]
    context_tokens: 1024
    setting: s
    kind: key_rank90_post_rope
    value: 1000
    band: [999, 1001]
    use: check
    source: paper
    where: Table 2
"""


class KvCalibrate(CliTest):
    def calibrate(self, targets=TARGETS, *extra):
        profile = self.write("tiny.yaml", TINY.replace("layers: []", "model: tiny\nlayers: []"))
        measured = self.write("targets.yaml", targets)
        return run("kv", "calibrate", profile, "--measurements", measured, *extra)

    def test_compares_each_target_of_the_profile(self):
        r = self.calibrate(TARGETS, "--json", "-q")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["profile"], "tiny")
        self.assertEqual(doc["layers"], [0, 1])
        self.assertEqual([t["id"] for t in doc["targets"]], ["streaming", "rank"])
        streaming, rank = doc["targets"]
        self.assertEqual(streaming["verdict"], "within band")
        self.assertEqual(set(streaming["ours"]), {"mean", "ci95", "n"})
        self.assertEqual(streaming["ours"]["n"], 4)  # 2 layers x 2 KV heads
        self.assertEqual(rank["verdict"], "outside band")  # D = 32 < 999
        self.assertAlmostEqual(rank["deviation"], rank["ours"]["mean"] - 1000)
        self.assertEqual(doc["summary"], {"within": 1, "outside": 1, "not_computable": 0})
        self.assertEqual(self.calibrate(TARGETS, "--json", "-q", "--threads", "1").out,
                         self.calibrate(TARGETS, "--json", "-q", "--threads", "2").out)
        text = self.calibrate().out
        self.assertIn("within band", text)
        self.assertIn("1 of 2 targets within band", text)

    def test_shipped_targets_are_valid(self):
        self.assertExit(run("config", "check", SOURCE / "configs/references/kv_measured.yaml"), 0)

    def test_bad_targets_exit_2_naming_file_and_key(self):
        unknown = TARGETS.replace("kind: streaming_head_fraction", "kind: sink_magic")
        self.assertInputError(self.calibrate(unknown), "targets.yaml", "statistics[0].kind",
                              "sink_magic")
        no_source = TARGETS.replace("    source: paper\n    where: Table 2\n",
                                    "    where: Table 2\n")
        self.assertInputError(self.calibrate(no_source), "targets.yaml", "statistics[1]",
                              "source")
        no_where = TARGETS.replace("    where: Fig. 1\n", "")
        self.assertInputError(self.calibrate(no_where), "targets.yaml", "statistics[0]", "where")
        # A band that does not hold its own value was not stated around the measurement.
        off_band = TARGETS.replace("band: [999, 1001]", "band: [0, 10]")
        self.assertInputError(self.calibrate(off_band), "targets.yaml", "statistics[1]", "band",
                              "does not contain value 1000")
        nobody = TARGETS.replace("[tiny]", "[other]").replace("[tiny, other]", "[other]")
        self.assertInputError(self.calibrate(nobody), "targets.yaml", "profile 'tiny'")
        self.assertInputError(self.calibrate(TARGETS, "--set", "kv_head=3"), "kv_head")


class KvFit(CliTest):
    def generate(self, *extra):
        config = self.write("tiny.yaml", TINY)
        out = self.tmp / "cache"
        self.assertExit(run("kv", "generate", config, "--out", out, "-q", *extra), 0)
        return out

    def test_writes_a_profile_that_generates(self):
        cache = self.generate("--set", "sink_logit=8")
        folder = self.tmp / "fit"
        r = run("kv", "fit", cache, "--max-evaluations", "8", "--tolerance", "1e9", "--name",
                "mine", "--out", folder, "--json", "-q")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["evaluations"], 8)
        self.assertEqual([s["name"] for s in doc["statistics"]],
                         ["rank90_post_rope", "value_rank90", "sink_mass", "recent_mass",
                          "tokens90_fraction", "adjacent_value_cos_centered"])
        self.assertEqual(doc["written"], str(folder / "mine.yaml"))
        text = (folder / "mine.yaml").read_text()
        self.assertEqual(text, doc["profile"])
        self.assertIn('model: "mine"', text)
        self.assertExit(run("kv", "generate", folder / "mine.yaml", "--out", self.tmp / "again",
                            "-q"), 0)
        self.assertIn("sink_mass", run("kv", "fit", cache, "--max-evaluations", "2",
                                       "--tolerance", "1e9", "--out", folder).out)

    def test_bad_input_exits_2_with_the_reason(self):
        cache = self.generate("--set", "noise_scale=10")  # beyond the fit's range [0, 2]
        self.assertInputError(run("kv", "fit", cache, "--max-evaluations", "10"),
                              "cannot reach the cache's", "noise_scale at its bound 2")
        self.assertInputError(run("kv", "fit", cache, "--name", "a/b"), "name")
        short = self.generate("--set", "tokens=32")  # too few tokens for the statistics
        self.assertInputError(run("kv", "fit", short), "32 tokens", "at least 64")
        (cache / "queries.npy").unlink()
        self.assertInputError(run("kv", "fit", cache), "queries.npy")


if __name__ == "__main__":
    unittest.main()

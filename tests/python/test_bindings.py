"""The Python module `lightsim` (python/, docs/python.md), run with Debian's Python 3.

CTest puts the built module on PYTHONPATH. Scores are checked against NumPy oracles and the
scorers' analytic limits; errors must be lightsim.InputError (a ValueError) naming the key.
"""
import os
import tempfile
import unittest
from pathlib import Path

import numpy as np

import lightsim

SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def synthetic_head(tokens=600, dim=16, group=2, steps=3, seed=0):
    rng = np.random.default_rng(seed)
    keys = rng.standard_normal((tokens, dim)).astype(np.float32)
    queries = rng.standard_normal((group, steps, dim)).astype(np.float32)
    return keys, queries


class ConfigTest(unittest.TestCase):
    def test_module_identity(self):
        self.assertRegex(lightsim.__version__, r"^\d+\.\d+\.\d+$")
        self.assertTrue(issubclass(lightsim.InputError, ValueError))
        self.assertTrue(issubclass(lightsim.InputError, lightsim.Error))
        self.assertTrue(issubclass(lightsim.ConfigError, lightsim.InputError))
        self.assertTrue(issubclass(lightsim.UnitError, lightsim.InputError))
        # std::bad_alloc becomes OutOfMemory: bad input (the CLI's exit 2) and a MemoryError.
        self.assertTrue(issubclass(lightsim.OutOfMemory, lightsim.InputError))
        self.assertTrue(issubclass(lightsim.OutOfMemory, MemoryError))
        self.assertIn("accelerator", lightsim.config_kinds())
        self.assertIn("exact", lightsim.families()["kv_scorer"])
        self.assertIn("prism", lightsim.families()["kv_scorer"])

    def test_load_file_preset_name_and_text_agree(self):
        from_file = lightsim.load_config(SOURCE / "configs/accelerators/seed.yaml")
        self.assertEqual(from_file["kind"], "accelerator")
        by_name = lightsim.load_config("seed", kind="accelerator")
        self.assertEqual(by_name, from_file)
        text = (SOURCE / "configs/accelerators/seed.yaml").read_text()
        self.assertEqual(lightsim.load_config(text), from_file)

    def test_scalars_are_typed(self):
        doc = lightsim.load_config("preset: seed\nlogical_rows: 512\n", kind="accelerator")
        self.assertEqual(doc["kind"], "accelerator")
        self.assertEqual(doc["logical_rows"], 512)
        self.assertIsInstance(doc["logical_rows"], int)

    def test_set_overrides_and_is_checked(self):
        doc = lightsim.load_config("seed", kind="accelerator", set={"logical_rows": 256})
        self.assertEqual(doc["logical_rows"], 256)
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config("seed", kind="accelerator", set={"logical_rowz": 256})
        self.assertIn("logical_rowz", str(caught.exception))
        self.assertIn("logical_rows", str(caught.exception))  # the suggestion

    def test_bad_key_names_file_and_key(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bad.yaml"
            path.write_text("schema_version: 1\nkind: accelerator\npreset: seed\nlogical_rowz: 3\n")
            with self.assertRaises(lightsim.InputError) as caught:
                lightsim.load_config(path)
        message = str(caught.exception)
        self.assertIn("bad.yaml:4", message)
        self.assertIn("logical_rowz", message)
        self.assertIsInstance(caught.exception, ValueError)
        self.assertIsInstance(caught.exception, lightsim.ConfigError)

    def test_bad_unit_and_kind_mismatch(self):
        with self.assertRaises(lightsim.UnitError):
            lightsim.load_config({"preset": "seed", "selection": {"mac_delay": "3 kg"}},
                                 kind="accelerator")
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config(SOURCE / "configs/accelerators/seed.yaml", kind="ring")
        self.assertIn("expected a 'ring' config", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config(SOURCE / "configs/no_such_file.yaml")
        self.assertIn("no_such_file.yaml", str(caught.exception))

    def test_cycles_nan_and_huge_integers_are_input_errors(self):
        cyclic = {"kind": "ring"}
        cyclic["ring"] = cyclic  # used to recurse until the interpreter crashed
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config(cyclic)
        self.assertIn("contains itself", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config({"preset": "seed", "logical_rows": float("nan")},
                                 kind="accelerator")
        self.assertIn("finite", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.load_config({"preset": "seed", "logical_rows": 2**70}, kind="accelerator")
        self.assertIn("logical_rows", str(caught.exception))


class ScoreTest(unittest.TestCase):
    def test_exact_is_the_softmax_mass_of_non_resident_tokens(self):
        keys, queries = synthetic_head()
        block, sink, recent = 64, 4, 100
        scores = lightsim.score("exact", keys, queries, block_tokens=block, sink_tokens=sink,
                                recent_tokens=recent)
        tokens, dim = keys.shape
        self.assertEqual(scores.shape, (queries.shape[1], -(-tokens // block)))
        self.assertEqual(scores.dtype, np.float32)
        resident = np.zeros(tokens, bool)
        resident[:sink] = True
        resident[tokens - recent:] = True
        for step in range(queries.shape[1]):
            logits = queries[:, step, :].astype(np.float64) @ keys.T.astype(np.float64)
            p = np.exp((logits - logits.max(axis=1, keepdims=True)) / np.sqrt(dim))
            p /= p.sum(axis=1, keepdims=True)
            p = p.sum(axis=0) * ~resident
            expected = np.add.reduceat(p, np.arange(0, tokens, block))
            np.testing.assert_allclose(scores[step], expected, rtol=1e-4, atol=1e-7)

    def test_mean_key_and_full_rank_signature_agree(self):
        keys, queries = synthetic_head()
        block = 50
        mean_key = lightsim.score("mean_key", keys, queries, block_tokens=block)
        means = np.stack([keys[b:b + block].mean(axis=0) for b in range(0, len(keys), block)])
        expected = queries.sum(axis=0) @ means.T
        np.testing.assert_allclose(mean_key, expected, rtol=1e-4, atol=1e-4)
        # PCA with d = D is an orthonormal basis: (P q) . (P m) = q . m.
        signature = lightsim.score("signature", keys, queries, block_tokens=block,
                                   projection="pca", dim=keys.shape[1])
        np.testing.assert_allclose(signature, mean_key, rtol=1e-3, atol=1e-3)

    def test_quest_bounds_every_key_of_the_block(self):
        keys, queries = synthetic_head(group=1)
        block = 40
        quest = lightsim.score("quest", keys, queries[0], block_tokens=block)
        logits = queries[0] @ keys.T
        for b, start in enumerate(range(0, len(keys), block)):
            best = logits[:, start:start + block].max(axis=1)
            self.assertTrue(np.all(quest[:, b] >= best - 1e-4))

    def test_one_query_vector_and_float64_input(self):
        keys, queries = synthetic_head(group=1, steps=1)
        a = lightsim.score("mean_key", keys.astype(np.float64), queries[0, 0])
        b = lightsim.score("mean_key", keys, queries)
        np.testing.assert_array_equal(a, b)

    def test_faiss_and_prism_score_every_block(self):
        keys, queries = synthetic_head(tokens=4096, dim=64)
        faiss = lightsim.score("faiss_ivfpq", keys, queries, block_tokens=128)
        self.assertEqual(faiss.shape, (3, 32))
        self.assertTrue(np.all(np.isfinite(faiss)))
        prism = lightsim.score("prism", keys, queries, block_tokens=128, accelerator="seed")
        self.assertEqual(prism.shape, (3, 32))
        self.assertTrue(np.all(np.isfinite(prism)))
        again = lightsim.score("prism", keys, queries, block_tokens=128, accelerator="seed")
        np.testing.assert_array_equal(prism, again)  # one seeded impairment draw

    def test_bad_arguments(self):
        keys, queries = synthetic_head()
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.score("exakt", keys, queries)
        self.assertIn("did you mean 'exact'", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.score("exact", keys, queries[:, :, :8])
        self.assertIn("head_dim", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.score("prism", keys, queries)
        self.assertIn("accelerator", str(caught.exception))
        with self.assertRaises(lightsim.InputError):
            lightsim.score("signature", keys, queries, projection="pcb")
        bad = keys.copy()
        bad[3, 1] = float("nan")
        with self.assertRaises(lightsim.InputError) as caught:  # used to return zeros
            lightsim.score("exact", bad, queries)
        self.assertIn("keys", str(caught.exception))


class KvTest(unittest.TestCase):
    SMALL = {"tokens": 2048, "steps": 4}

    def test_generate_shapes(self):
        cache = lightsim.generate_kv("llama-3-8b", set=self.SMALL)
        self.assertEqual(cache["keys"].shape, (1, 8, 2048, 128))
        self.assertEqual(cache["values"].shape, (1, 8, 2048, 128))
        self.assertEqual(cache["queries"].shape, (1, 32, 4, 128))
        self.assertEqual(cache["layer_ids"], [16])
        self.assertEqual(len(cache["needles"]), 3)

    def test_evaluate_exact_recall_is_one_and_thread_count_free(self):
        one = lightsim.evaluate_kv("llama-3-8b", ["exact", "mean_key"], ks=[8], threads=1,
                                   set=self.SMALL)
        two = lightsim.evaluate_kv("llama-3-8b", ["exact", "mean_key"], ks=[8], threads=2,
                                   set=self.SMALL)
        self.assertEqual(one, two)
        self.assertEqual(one["results"]["exact"]["8"]["recall"]["mean"], 1.0)
        recall = one["results"]["mean_key"]["8"]["recall"]
        self.assertGreater(recall["mean"], 0.0)
        self.assertLessEqual(recall["mean"], 1.0)
        self.assertEqual(recall["n"], 8 * 4)  # KV heads x steps

    def test_evaluate_kv_gives_the_cli_json(self):
        # One report, one schema (kv::to_json), and the same scorer and projection names: the
        # CLI's private families rejected prism:qat while Python ran it, and the two printed
        # different keys (recall_at_k vs recall: {mean, ci95, n}).
        binary = os.environ.get("LIGHTSIM_BIN")
        if not binary:
            self.skipTest("LIGHTSIM_BIN not set (run through ctest)")
        import json
        import subprocess
        with tempfile.TemporaryDirectory() as tmp:
            config = Path(tmp) / "tiny.yaml"
            config.write_text("schema_version: 1\nkind: kv_synthetic\npreset: qwen2.5-7b\n"
                              "model_layers: 2\nlayers: []\nkv_heads: 2\nq_heads: 4\n"
                              "head_dim: 32\ntokens: 1024\nsteps: 4\nkey_rank: 8\n"
                              "needle_tokens: 16\n")
            cache = Path(tmp) / "cache"
            subprocess.run([binary, "-q", "kv", "generate", str(config), "--out", str(cache)],
                           check=True)
            scorers = ["exact", "signature:pca", "prism:qat"]
            cli = subprocess.run([binary, "kv", "select", "--cache", str(cache), "--scorer",
                                  ",".join(scorers), "--accelerator", "seed_fit", "--k", "2,4",
                                  "--recent", "128", "--json"],
                                 check=True, capture_output=True, text=True)
            py = lightsim.evaluate_kv(str(cache), scorers, ks=[2, 4], recent_tokens=128,
                                      accelerator="seed_fit")
            self.assertEqual(py, json.loads(cli.stdout))
            self.assertEqual(set(py["results"]), {"exact", "signature:pca:d32", "prism:qat:d32"})
            self.assertEqual(set(py["results"]["exact"]["2"]["needle_hit"]), {"mean", "ci95", "n"})
            with self.assertRaises(lightsim.InputError) as caught:
                lightsim.evaluate_kv(str(cache), ["exact"], dim=8)
            self.assertIn("none of the selected scorers", str(caught.exception))
            faiss = lightsim.evaluate_kv(str(cache), ["faiss_ivfpq"], ks=[2], recent_tokens=128,
                                         options={"nlist": 8, "pq_m": 8, "pq_nbits": 6})
            self.assertIn("faiss_ivfpq", faiss["results"])
            # Equal bytes: mean_key (32 x 2 = 64 B per block) fits 64 B as its equal-k row.
            same = lightsim.evaluate_kv(str(cache), ["mean_key"], ks=[2], recent_tokens=128,
                                        budget_bytes=[32, 64])
            below, at = same["equal_bytes"]
            self.assertFalse(below["results"]["mean_key"]["fits"])
            self.assertEqual(at["results"]["mean_key"]["recall"]["2"],
                             same["results"]["mean_key"]["2"]["recall"])


class PrefillPrismTest(unittest.TestCase):
    def test_plan_as_string_or_dict(self):
        a = lightsim.prefill_evaluate("seed_8k", "TP=1,CP=1,EP=144", gpus=144,
                                      fabric="seed_copper_1152")
        b = lightsim.prefill_evaluate("seed_8k", {"tp": 1, "cp": 1, "ep": 144},
                                      fabric="seed_copper_1152")  # gpus: the plan's 144
        self.assertEqual(a, b)
        every = lightsim.prefill_evaluate("seed_8k", "TP=1,CP=1,EP=144")  # as the CLI: all fabrics
        self.assertEqual([r["fabric"] for r in every],
                         ["seed_copper_1152", "photonic_4x_1152", "photonic_cpo_1152"])
        self.assertEqual(every[0], a)
        self.assertTrue(a["feasible"])
        self.assertEqual(a["gpus"], 144)
        self.assertEqual(a["fabric"], "seed_copper_1152")
        breakdown = a["breakdown"]
        self.assertAlmostEqual(sum(breakdown["compute_s"].values()), breakdown["compute_total_s"])
        self.assertGreater(a["latency_s"], breakdown["compute_total_s"] * 0.999)
        photonic = lightsim.prefill_evaluate("seed_8k", a["plan"]["text"], gpus=144,
                                             fabric="photonic_4x_1152")
        self.assertEqual(photonic["fabric"], "photonic_4x_1152")
        self.assertLessEqual(photonic["latency_s"], a["latency_s"])

    def test_infeasible_plan_is_a_result_and_bad_key_an_error(self):
        r = lightsim.prefill_evaluate("seed_8k", "TP=7,EP=7", gpus=7, fabric="seed_copper_1152")
        self.assertFalse(r["feasible"])
        self.assertTrue(r["reason"])
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.prefill_evaluate("seed_8k", "TQ=1", gpus=8)
        self.assertIn("TQ", str(caught.exception))
        with self.assertRaises(lightsim.InputError) as caught:  # the CLI's range, not MemoryError
            lightsim.prefill_evaluate("seed_8k", "TP=1,EP=8", gpus=2**40)
        self.assertIn("gpus", str(caught.exception))

    def test_prism_cost_components_sum(self):
        cost = lightsim.prism_cost("seed")
        self.assertEqual(cost["accelerator"], "seed")
        self.assertIn("dynamic_energy_j", cost["seed"])
        text = repr(cost)
        self.assertIn("laser", text)
        more_rows = lightsim.prism_cost("seed", set={"logical_rows": 4096})
        self.assertNotEqual(more_rows, cost)


class StudyTest(unittest.TestCase):
    def test_unknown_study_and_size(self):
        with self.assertRaises(lightsim.InputError) as caught:
            lightsim.run_study("no_such_study")
        self.assertIn("no_such_study", str(caught.exception))
        for name in lightsim.list_studies()[:1]:
            with self.assertRaises(lightsim.InputError) as caught:
                lightsim.run_study(name, size="huge")
            self.assertIn("quick, default or full", str(caught.exception))
            with self.assertRaises(lightsim.InputError) as caught:  # not an abort
                lightsim.run_study(name, size="quick", threads=100000)
            self.assertIn("threads", str(caught.exception))

    def test_run_first_study_quick(self):
        names = lightsim.list_studies()
        if not names:
            self.skipTest("no study is registered in this build")
        result = lightsim.run_study(names[0], size="quick", threads=2)
        self.assertEqual(result["study"], names[0])
        for table in result["tables"]:
            arrays = result["arrays"][table["name"]]
            self.assertEqual(list(arrays), [c["name"] for c in table["columns"]])
            for column in arrays.values():
                self.assertEqual(len(column), len(table["rows"]))
        for claim in result["claims"]:
            self.assertIn(claim["verdict"], ("holds", "holds under conditions", "does not hold",
                                             "not comparable"))


if __name__ == "__main__":
    unittest.main()

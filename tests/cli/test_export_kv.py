"""scripts/export_kv.py: its numpy-only writer against the C++ loader (always runs), and the
Hugging Face path on a tiny randomly initialized Llama (skipped without torch + transformers,
which Debian 12 does not package: the HF path is untested on the development machine)."""
import importlib.util
import json
import py_compile
import subprocess
import sys
import unittest

from clitest import CliTest, SOURCE, run

HAVE_HF = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "numpy"))
SCRIPT = SOURCE / "scripts" / "export_kv.py"


def load_script():
    spec = importlib.util.spec_from_file_location("export_kv", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rotate_half_rope(x, positions, base):
    """Half-split RoPE, pairs (i, i + D/2) rotated by pos * base^(-2i/D) (docs/kv-data.md)."""
    import numpy as np

    d = x.shape[-1]
    inv = base ** (-2.0 * np.arange(d // 2) / d)
    ang = positions[:, None] * inv[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)


class ExportKvWriter(CliTest):
    """The writer with numpy arrays standing in for a model's tensors (no model, no torch)."""

    def test_script_compiles_and_prints_help_without_torch(self):
        py_compile.compile(str(SCRIPT), doraise=True)
        proc = subprocess.run([sys.executable, str(SCRIPT), "--help"], capture_output=True,
                              text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("--needle-depth", proc.stdout)

    def test_written_cache_loads_with_its_geometry_and_rope_convention(self):
        import numpy as np

        exp = load_script()
        rng = np.random.default_rng(0)
        layers, kv_heads, q_heads, tokens, steps, dim, base = 2, 2, 4, 300, 3, 16, 10000.0
        # Pre-RoPE keys of rank 2 (+ tiny noise), then RoPE at positions 0..T-1: the loader's
        # `kv stats` must undo it with the manifest's rope_base and find rank <= 2 again.
        basis = rng.standard_normal((layers, kv_heads, 2, dim))
        z = rng.standard_normal((layers, kv_heads, tokens, 2))
        pre = np.einsum("lhtr,lhrd->lhtd", z, basis) + 1e-3 * rng.standard_normal(
            (layers, kv_heads, tokens, dim))
        keys = rotate_half_rope(pre, np.arange(tokens, dtype=float), base)
        values = rng.standard_normal((layers, kv_heads, tokens, dim))
        queries = rotate_half_rope(rng.standard_normal((layers, q_heads, steps, dim)),
                                   np.arange(tokens, tokens + steps, dtype=float), base)
        for dtype in ("float32", "float16"):
            out = self.tmp / dtype
            exp.write_cache(out, keys, values, queries, source="test:numpy", dtype=dtype,
                            layer_ids=[3, 7], rope_base=base, needles=[{"begin": 100, "end": 104}])
            manifest = json.loads((out / "manifest.json").read_text())
            self.assertEqual((manifest["tokens"], manifest["q_heads"], manifest["steps"]),
                             (tokens, q_heads, steps))
            self.assertEqual(np.load(out / "keys.npy").dtype, np.dtype(dtype))
            r = run("kv", "stats", out, "--json", "--recent", "32")
            self.assertExit(r, 0)
            doc = r.json()
            self.assertEqual((doc["layers"], doc["kv_heads"], doc["head_dim"]), (2, 2, dim))
            self.assertLessEqual(doc["summary"]["rank90_pre_rope"]["max"], 2)
            self.assertGreater(doc["summary"]["rank90_post_rope"]["min"], 2)
            r = run("kv", "select", "--cache", out, "--scorer", "exact", "mean_key", "--k", "2",
                    "--block", "16", "--recent", "32", "--json")
            self.assertExit(r, 0)
            res = r.json()
            self.assertEqual(res["needles"], 1)
            self.assertEqual(res["results"]["exact"]["2"]["recall"]["mean"], 1.0)

    def test_writer_rejects_inconsistent_arrays(self):
        import numpy as np

        exp = load_script()
        k = np.zeros((1, 2, 10, 4))
        with self.assertRaisesRegex(ValueError, "multiple of kv_heads"):
            exp.write_cache(self.tmp / "a", k, k, np.zeros((1, 3, 2, 4)), source="t",
                            dtype="float32", layer_ids=[0], rope_base=0, needles=[])
        with self.assertRaisesRegex(ValueError, "values"):
            exp.write_cache(self.tmp / "b", k, np.zeros((1, 2, 9, 4)), np.zeros((1, 2, 2, 4)),
                            source="t", dtype="float32", layer_ids=[0], rope_base=0, needles=[])
        with self.assertRaisesRegex(ValueError, "needle"):
            exp.write_cache(self.tmp / "c", k, k, np.zeros((1, 2, 2, 4)), source="t",
                            dtype="float32", layer_ids=[0], rope_base=0,
                            needles=[{"begin": 8, "end": 12}])


@unittest.skipUnless(HAVE_HF, "torch/transformers not importable")
class ExportKv(CliTest):
    def test_tiny_llama_round_trip(self):
        import torch
        from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
        from tokenizers import Tokenizer, models, pre_tokenizers

        torch.manual_seed(0)
        cfg = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=128,
                          num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                          max_position_embeddings=512, rope_theta=10000.0)
        model_dir = self.tmp / "tiny"
        LlamaForCausalLM(cfg).save_pretrained(model_dir)
        vocab = {f"w{i}": i for i in range(64)}
        t = Tokenizer(models.WordLevel(vocab, unk_token="w0"))
        t.pre_tokenizer = pre_tokenizers.Whitespace()
        PreTrainedTokenizerFast(tokenizer_object=t, unk_token="w0").save_pretrained(model_dir)
        out = self.tmp / "cache"
        proc = subprocess.run([sys.executable, str(SOURCE / "scripts" / "export_kv.py"),
                               "--model", str(model_dir), "--tokens", "200", "--steps", "3",
                               "--needle", "w5 w6 w7", "--out", str(out)],
                              capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        r = run("kv", "stats", out, "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["tokens"], 200)
        self.assertEqual(doc["q_heads"], 4)
        r = run("kv", "select", "--cache", out, "--scorer", "exact", "--k", "1", "--block", "16",
                "--recent", "32", "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json()["results"]["exact"]["1"]["recall"]["mean"], 1.0)


if __name__ == "__main__":
    unittest.main()

"""The KV exporters against the C++ loader: the shared numpy-only writer (scripts/kv_format.py,
always runs); the pure-PyTorch path (scripts/export_kv_torch.py) end to end on tiny randomly
initialized Qwen2 and Llama checkpoints the test builds, checked against an independent numpy
forward pass (needs python3-torch, installed by scripts/setup: fails, never skips, without it);
and the Hugging Face path (skipped without transformers, which Debian 12 does not package)."""
import importlib.util
import json
import py_compile
import subprocess
import sys
import unittest

from clitest import CliTest, SOURCE, run

HAVE_HF = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "numpy"))
SCRIPT = SOURCE / "scripts" / "export_kv.py"
TORCH_SCRIPT = SOURCE / "scripts" / "export_kv_torch.py"


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


TINY = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 96,
        "rms_norm_eps": 1e-6, "rope_theta": 10000.0, "hidden_act": "silu"}


def tiny_state(config, seed):
    """A random state dict (numpy float32) of the Llama/Qwen2 layout for `config`."""
    import numpy as np

    rng = np.random.default_rng(seed)
    H, V, I = config["hidden_size"], config["vocab_size"], config["intermediate_size"]
    D = H // config["num_attention_heads"]
    q, kv = config["num_attention_heads"] * D, config["num_key_value_heads"] * D

    def mat(rows, cols, scale):
        return (scale * rng.standard_normal((rows, cols))).astype(np.float32)

    sd = {"model.embed_tokens.weight": mat(V, H, 1.0),
          "model.norm.weight": (1 + 0.1 * rng.standard_normal(H)).astype(np.float32)}
    if not config.get("tie_word_embeddings"):
        sd["lm_head.weight"] = mat(V, H, 0.2)
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        for norm in ("input_layernorm", "post_attention_layernorm"):
            sd[p + norm + ".weight"] = (1 + 0.1 * rng.standard_normal(H)).astype(np.float32)
        # q/k large enough that attention is peaked (logits of several nats), not uniform
        sd[p + "self_attn.q_proj.weight"] = mat(q, H, 0.3)
        sd[p + "self_attn.k_proj.weight"] = mat(kv, H, 0.3)
        sd[p + "self_attn.v_proj.weight"] = mat(kv, H, 0.2)
        sd[p + "self_attn.o_proj.weight"] = mat(H, q, 0.1)
        if config["model_type"] == "qwen2":
            sd[p + "self_attn.q_proj.bias"] = mat(1, q, 0.5)[0]
            sd[p + "self_attn.k_proj.bias"] = mat(1, kv, 0.5)[0]
            sd[p + "self_attn.v_proj.bias"] = mat(1, kv, 0.5)[0]
        sd[p + "mlp.gate_proj.weight"] = mat(I, H, 0.15)
        sd[p + "mlp.up_proj.weight"] = mat(I, H, 0.15)
        sd[p + "mlp.down_proj.weight"] = mat(H, I, 0.1)
    return sd


def to_bf16(a):
    """float32 -> bfloat16 bits (round to nearest even) and the float32 it stands for."""
    import numpy as np

    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32)


def save_safetensors(path, state, bf16=False):
    """Writes the safetensors layout (u64 header length, JSON header, raw tensors) by hand,
    independently of the exporter's reader; returns the float32 values stored."""
    import numpy as np

    header, blobs, stored, offset = {}, [], {}, 0
    for name, a in state.items():
        if bf16:
            bits, stored[name] = to_bf16(a)
            blob, dtype = bits.tobytes(), "BF16"
        else:
            stored[name] = np.asarray(a, dtype=np.float32)
            blob, dtype = stored[name].tobytes(), "F32"
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + b"".join(blobs))
    return stored


def reference_forward(config, w, ids):
    """An independent float64 numpy forward of the Llama/Qwen2 block (RMSNorm, RoPE as complex
    rotation of the half-split pairs, GQA causal softmax, SwiGLU): per layer the post-RoPE keys
    and values [kv_heads, T, D], and the last position's logits."""
    import numpy as np

    H, nq, nkv = config["hidden_size"], config["num_attention_heads"], config["num_key_value_heads"]
    D, eps, theta = H // nq, config["rms_norm_eps"], config["rope_theta"]
    T = len(ids)
    w = {k: np.asarray(v, dtype=np.float64) for k, v in w.items()}
    pos = np.arange(T, dtype=np.float64)

    def norm(x, g):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g

    def rot(x):  # x [heads, T, D]: pair j = (x_j, x_{j + D/2}) as x_j + i x_{j + D/2}
        z = (x[..., : D // 2] + 1j * x[..., D // 2:]) * np.exp(
            1j * pos[:, None] * theta ** (-2.0 * np.arange(D // 2) / D))
        return np.concatenate([z.real, z.imag], axis=-1)

    def lin(x, name):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    x = w["model.embed_tokens.weight"][ids]
    keys, values = [], []
    for i in range(config["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = norm(x, w[p + "input_layernorm.weight"])
        q = rot(lin(h, p + "self_attn.q_proj").reshape(T, nq, D).transpose(1, 0, 2))
        k = rot(lin(h, p + "self_attn.k_proj").reshape(T, nkv, D).transpose(1, 0, 2))
        v = lin(h, p + "self_attn.v_proj").reshape(T, nkv, D).transpose(1, 0, 2)
        keys.append(k)
        values.append(v)
        out = np.zeros((T, nq * D))
        for g in range(nq):
            kh = g // (nq // nkv)
            s = q[g] @ k[kh].T / np.sqrt(D)
            s[np.triu_indices(T, 1)] = -np.inf
            a = np.exp(s - s.max(-1, keepdims=True))
            out[:, g * D:(g + 1) * D] = (a / a.sum(-1, keepdims=True)) @ v[kh]
        x = x + lin(out, p + "self_attn.o_proj")
        h = norm(x, w[p + "post_attention_layernorm.weight"])
        gate = lin(h, p + "mlp.gate_proj")
        x = x + lin(gate / (1 + np.exp(-gate)) * lin(h, p + "mlp.up_proj"), p + "mlp.down_proj")
    head = w["lm_head.weight"] if "lm_head.weight" in w else w["model.embed_tokens.weight"]
    logits = norm(x[-1], w["model.norm.weight"]) @ head.T
    return np.stack(keys), np.stack(values), logits


class ExportKvTorch(CliTest):
    """scripts/export_kv_torch.py on tiny random checkpoints. Needs torch: without it these
    tests fail (scripts/setup installs python3-torch), they never skip."""

    def checkpoint(self, model_type, fmt="safetensors", bf16=False, **overrides):
        config = dict(TINY, model_type=model_type, **overrides)
        folder = self.tmp / f"{model_type}-{fmt}"
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
        state = tiny_state(config, seed=3)
        if fmt == "safetensors":
            stored = save_safetensors(folder / "model.safetensors", state, bf16=bf16)
        else:
            import torch

            torch.save({k: torch.from_numpy(v) for k, v in state.items()},
                       folder / "pytorch_model.bin")
            stored = state
        return folder, config, stored

    def export(self, folder, out, *extra):
        return subprocess.run([sys.executable, str(TORCH_SCRIPT), "--checkpoint", str(folder),
                               "--out", str(out), *map(str, extra)],
                              capture_output=True, text=True, timeout=300)

    def test_qwen2_bf16_round_trip_matches_an_independent_forward(self):
        import numpy as np

        folder, config, stored = self.checkpoint("qwen2", bf16=True)
        ids = [int(t) for t in np.random.default_rng(5).integers(0, 96, 256)]
        self.write("ids.txt", " ".join(map(str, ids)))
        out = self.tmp / "cache"
        proc = self.export(folder, out, "--ids", self.tmp / "ids.txt", "--steps", 4,
                           "--needle-ids", "5,6,7", "--needle-depth", 0.25, "--dtype", "float32")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        manifest = json.loads((out / "manifest.json").read_text())
        self.assertEqual((manifest["tokens"], manifest["q_heads"], manifest["kv_heads"],
                          manifest["head_dim"], manifest["steps"], manifest["layer_ids"]),
                         (259, 4, 2, 16, 4, [0, 1]))
        self.assertEqual(manifest["needles"], [{"begin": 64, "end": 67}])
        self.assertEqual(manifest["rope_base"], 10000.0)
        # The exporter's forward (torch, float32) against the numpy float64 reference on the
        # same bf16-rounded weights: both layers' post-RoPE keys (layer 1's depend on layer 0's
        # attention and MLP), the values, and layer 0's first decode query, whose token is the
        # reference's own greedy choice.
        context = ids[:64] + [5, 6, 7] + ids[64:]
        ref_k, ref_v, logits = reference_forward(config, stored, context)
        keys, values = np.load(out / "keys.npy"), np.load(out / "values.npy")
        queries = np.load(out / "queries.npy")
        self.assertEqual(keys.shape, (2, 2, 259, 16))
        self.assertEqual(queries.shape, (2, 4, 4, 16))
        for got, want in ((keys, ref_k), (values, ref_v)):
            err = np.abs(got - want).max() / np.abs(want).max()
            self.assertLess(err, 1e-4)
        tok = int(np.argmax(logits))
        w = {k: np.asarray(v, dtype=np.float64) for k, v in stored.items()}
        h = w["model.embed_tokens.weight"][tok]
        h = h / np.sqrt((h * h).mean() + 1e-6) * w["model.layers.0.input_layernorm.weight"]
        q = (h @ w["model.layers.0.self_attn.q_proj.weight"].T
             + w["model.layers.0.self_attn.q_proj.bias"]).reshape(4, 16)
        z = (q[:, :8] + 1j * q[:, 8:]) * np.exp(1j * 259 * 1e4 ** (-2.0 * np.arange(8) / 16))
        want_q = np.concatenate([z.real, z.imag], axis=-1)
        self.assertLess(np.abs(queries[0, :, 0] - want_q).max() / np.abs(want_q).max(), 1e-4)

        # The C++ side reads the export: stats, select and fit.
        r = run("kv", "stats", out, "--json", "--recent", "32")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual((doc["layers"], doc["kv_heads"], doc["q_heads"], doc["tokens"]),
                         (2, 2, 4, 259))
        r = run("kv", "select", "--cache", out, "--scorer", "exact", "mean_key", "--k", "2",
                "--block", "16", "--recent", "32", "--json")
        self.assertExit(r, 0)
        res = r.json()
        self.assertEqual(res["needles"], 1)
        self.assertEqual(res["results"]["exact"]["2"]["recall"]["mean"], 1.0)
        # kv fit reads the export and writes a profile that generates a cache of the export's
        # geometry (a fit's quality on a random model is not a claim: the tolerance is open).
        folder = self.tmp / "fit"
        r = run("kv", "fit", out, "--max-evaluations", "8", "--tolerance", "1e9", "--name",
                "tiny_qwen2", "--out", folder, "--json", "-q")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["evaluations"], 8)
        self.assertIn("sink_mass", [s["name"] for s in doc["statistics"]])
        again = self.tmp / "again"
        self.assertExit(run("kv", "generate", folder / "tiny_qwen2.yaml", "--out", again, "-q"), 0)
        regenerated = json.loads((again / "manifest.json").read_text())
        self.assertEqual([regenerated[k] for k in ("kv_heads", "q_heads", "head_dim", "tokens")],
                         [2, 4, 16, 259])

    def test_llama_bin_tied_embeddings_and_layer_subset(self):
        import numpy as np

        folder, config, state = self.checkpoint("llama", fmt="bin", tie_word_embeddings=True)
        out = self.tmp / "cache"
        proc = self.export(folder, out, "--tokens", 128, "--steps", 2, "--layers", 1,
                           "--seed", 4)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        manifest = json.loads((out / "manifest.json").read_text())
        self.assertEqual((manifest["layer_ids"], manifest["dtype"], manifest["tokens"]),
                         ([1], "float16", 128))
        ids = np.random.default_rng(4).integers(0, 96, 128).tolist()
        ref_k, _, _ = reference_forward(config, state, ids)
        keys = np.load(out / "keys.npy").astype(np.float64)
        self.assertLess(np.abs(keys[0] - ref_k[1]).max() / np.abs(ref_k[1]).max(), 2e-3)
        self.assertExit(run("kv", "stats", out, "--json"), 0)

    def test_bad_checkpoints_exit_2_naming_file_and_key(self):
        import numpy as np

        folder, config, state = self.checkpoint("qwen2")
        out = self.tmp / "cache"

        def fails(*fragments, extra=()):
            proc = self.export(folder, out, "--tokens", 64, "--steps", 1, *extra)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            lines = proc.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, proc.stderr)
            for f in fragments:
                self.assertIn(f, lines[0])
            self.assertFalse(out.exists(), "nothing may be written on bad input")

        broken = dict(state)
        del broken["model.layers.1.mlp.up_proj.weight"]
        save_safetensors(folder / "model.safetensors", broken)
        fails("model.safetensors", "missing tensor 'model.layers.1.mlp.up_proj.weight'")
        del broken["model.layers.0.self_attn.k_proj.bias"]
        broken["model.layers.0.self_attn.k_proj.weight"] = np.zeros((24, 64), np.float32)
        save_safetensors(folder / "model.safetensors", dict(broken, **{
            "model.layers.1.mlp.up_proj.weight": state["model.layers.1.mlp.up_proj.weight"],
            "model.layers.0.self_attn.k_proj.bias": state["model.layers.0.self_attn.k_proj.bias"]}))
        fails("model.safetensors", "tensor 'model.layers.0.self_attn.k_proj.weight'",
              "[24, 64]", "[32, 64]")
        (folder / "model.safetensors").write_bytes(b"\x10\x00")
        fails("model.safetensors", "truncated")
        for key, value, fragment in (("model_type", "gpt2", "unsupported architecture"),
                                     ("hidden_size", None, "missing key 'hidden_size'"),
                                     ("num_key_value_heads", 3, "does not divide"),
                                     ("rope_scaling", {"type": "yarn", "factor": 4.0},
                                      "rope_scaling.type")):
            bad = dict(config)
            if value is None:
                del bad[key]
            else:
                bad[key] = value
            (folder / "config.json").write_text(json.dumps(bad))
            fails("config.json", key.split(".")[0], fragment)
        (folder / "config.json").write_text(json.dumps(config))
        fails("--ids", extra=("--ids", self.write("ids.txt", "1 2 999")))
        fails("--layers", "num_hidden_layers", extra=("--layers", "2"))


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

#!/usr/bin/env python3
"""Export a KV cache from a Llama/Mistral/Qwen2 checkpoint with PyTorch alone (no transformers).

Needs PyTorch (Debian: python3-torch) and numpy. Reads a checkpoint folder as Hugging Face
publishes it: config.json plus the weights (model.safetensors, sharded
model.safetensors.index.json, pytorch_model.bin or its index; or --weights FILE, a .safetensors,
.bin or .pt state dict). safetensors files are read by this script (the format is an 8-byte
header length, a JSON header and raw little-endian tensors), so no safetensors package is needed.
Token ids are given directly (no tokenizer): --ids FILE, or --tokens N random ids (--seed).

The forward pass is the transformers reference one, written out (docs/kv-data.md section 1):
  x = embed[ids]; per layer: h = RMSNorm(x) (x / sqrt(mean(x^2) + eps) * w, Zhang & Sennrich
  2019); q, k, v = h W^T (+ b: Qwen2's q/k/v bias, Llama's attention_bias); RoPE on q and k,
  half-split pairs (i, i + D/2) rotated by pos * rope_theta^(-2i/D) (Su et al. 2021,
  transformers' rotate_half; rope_scaling "linear" or "llama3" supported); causal softmax
  attention with GQA (query head g reads KV head g / (q_heads / kv_heads), scale 1/sqrt(D));
  x += o_proj(attn); x += down(silu(gate(RMSNorm(x))) * up(RMSNorm(x))) (SwiGLU, Shazeer 2020);
  logits = lm_head(RMSNorm(x)) (tied to embed_tokens when tie_word_embeddings).
Computed in float32 (or --compute float64).

Written (scripts/kv_format.py, the one writer shared with scripts/export_kv.py):
  keys.npy, values.npy [layers, kv_heads, tokens, head_dim], the prefill cache, post-RoPE
  queries.npy [layers, q_heads, steps, head_dim], post-RoPE queries of `steps` greedy decode
  steps at positions tokens .. tokens + steps - 1
  manifest.json; rope_base is rope_theta, or 0 (unknown) when rope_scaling changes the angles

Bad input (missing config key or tensor, wrong shape, unsupported architecture or option, bad
token ids) exits with code 2 and one line naming the file and key; nothing is written.

Example:
  python3 scripts/export_kv_torch.py --checkpoint ~/models/Qwen2.5-0.5B --tokens 4096 \\
      --steps 16 --layers 0,1,12,23 --needle-ids 1234,5678,91 --out kv/qwen05-4k
"""
import argparse
import json
import math
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kv_format import place_needle, write_cache  # noqa: E402  (the one writer of the format, shared)

SUPPORTED = ("llama", "mistral", "qwen2")


class ExportError(Exception):
    """Bad input: the message names the file and key; main prints it and exits 2."""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, type=Path,
                   help="folder with config.json and the weights")
    p.add_argument("--weights", type=Path, action="append", default=[],
                   help="weights file(s) (.safetensors, .bin, .pt); default: found in the folder")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--ids", type=Path,
                   help="token ids of the context: whitespace/comma separated, or a JSON list")
    p.add_argument("--tokens", type=int, default=1024,
                   help="context length T when --ids is not given (random ids)")
    p.add_argument("--steps", type=int, default=8, help="greedy decode steps (queries)")
    p.add_argument("--layers", default="", help="comma-separated layer indices (default: all)")
    p.add_argument("--dtype", default="float16", choices=["float16", "float32"],
                   help="storage type of the arrays")
    p.add_argument("--compute", default="float32", choices=["float32", "float64"])
    p.add_argument("--needle-ids", default="", help="comma-separated ids planted at --needle-depth")
    p.add_argument("--needle-depth", type=float, default=0.5, help="fraction of the context")
    p.add_argument("--question-ids", default="", help="comma-separated ids appended at the end")
    p.add_argument("--seed", type=int, default=0, help="seed of the random context ids")
    p.add_argument("--chunk", type=int, default=1024, help="prefill query rows per attention chunk")
    return p.parse_args(argv)


# ----------------------------------------------------------------------------- config

def read_config(folder):
    path = folder / "config.json"
    if not path.is_file():
        raise ExportError(f"{path}: no such file (the checkpoint's config.json)")
    try:
        cfg = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise ExportError(f"{path}: not valid JSON ({e})") from None
    if not isinstance(cfg, dict):
        raise ExportError(f"{path}: expected a JSON object")

    def get(key, kind, default=None, required=True):
        if key not in cfg or cfg[key] is None:
            if required and default is None:
                raise ExportError(f"{path}: missing key '{key}'")
            return default
        v = cfg[key]
        if kind is int and (isinstance(v, bool) or not isinstance(v, int) or v <= 0):
            raise ExportError(f"{path}: key '{key}' = {v!r}: expected a positive integer")
        if kind is float and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
            raise ExportError(f"{path}: key '{key}' = {v!r}: expected a positive number")
        if kind is bool and not isinstance(v, bool):
            raise ExportError(f"{path}: key '{key}' = {v!r}: expected true or false")
        return v

    model_type = cfg.get("model_type")
    if model_type not in SUPPORTED:
        raise ExportError(f"{path}: key 'model_type' = {model_type!r}: unsupported architecture "
                          f"(supported: {', '.join(SUPPORTED)})")
    c = {"path": path, "model_type": model_type}
    c["hidden"] = get("hidden_size", int)
    c["layers"] = get("num_hidden_layers", int)
    c["heads"] = get("num_attention_heads", int)
    c["kv_heads"] = get("num_key_value_heads", int, default=c["heads"])
    c["head_dim"] = get("head_dim", int, default=c["hidden"] // c["heads"])
    c["inter"] = get("intermediate_size", int)
    c["vocab"] = get("vocab_size", int)
    c["eps"] = float(get("rms_norm_eps", float, default=1e-6))
    c["theta"] = float(get("rope_theta", float, default=10000.0))
    c["tied"] = get("tie_word_embeddings", bool, default=False, required=False)
    # Qwen2 always has q/k/v biases (transformers' Qwen2Attention); Llama/Mistral when
    # attention_bias is set. Llama's mlp_bias is not supported.
    c["qkv_bias"] = model_type == "qwen2" or get("attention_bias", bool, default=False,
                                                   required=False)
    if get("mlp_bias", bool, default=False, required=False):
        raise ExportError(f"{path}: key 'mlp_bias' = true: unsupported (MLP biases)")
    act = cfg.get("hidden_act", "silu")
    if act != "silu":
        raise ExportError(f"{path}: key 'hidden_act' = {act!r}: unsupported (expected 'silu')")
    if c["heads"] % c["kv_heads"]:
        raise ExportError(f"{path}: key 'num_key_value_heads' = {c['kv_heads']} does not divide "
                          f"num_attention_heads = {c['heads']}")
    if c["head_dim"] % 2:
        raise ExportError(f"{path}: head dimension {c['head_dim']} is odd (RoPE needs pairs)")
    window = cfg.get("sliding_window")
    uses_window = cfg.get("use_sliding_window", model_type == "mistral")
    c["window"] = int(window) if (window and uses_window) else None
    scaling = cfg.get("rope_scaling")
    c["rope_scaling"] = None
    if scaling is not None:
        if not isinstance(scaling, dict):
            raise ExportError(f"{path}: key 'rope_scaling' = {scaling!r}: expected an object")
        kind = scaling.get("rope_type", scaling.get("type"))
        if kind == "default":
            pass
        elif kind in ("linear", "llama3"):
            need = ["factor"] + (["low_freq_factor", "high_freq_factor",
                                  "original_max_position_embeddings"] if kind == "llama3" else [])
            for k in need:
                v = scaling.get(k)
                if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0:
                    raise ExportError(f"{path}: key 'rope_scaling.{k}' = {v!r}: expected a "
                                      "positive number")
            c["rope_scaling"] = dict(scaling, kind=kind)
        else:
            raise ExportError(f"{path}: key 'rope_scaling.type' = {kind!r}: unsupported (supported:"
                              " none, linear, llama3; dynamic NTK and YaRN are not implemented)")
    return c


def expected_shapes(c):
    """Every tensor the forward pass reads, with the shape config.json implies."""
    H, D, q, kv, I, V = c["hidden"], c["head_dim"], c["heads"], c["kv_heads"], c["inter"], c["vocab"]
    s = {"model.embed_tokens.weight": (V, H), "model.norm.weight": (H,)}
    if not c["tied"]:
        s["lm_head.weight"] = (V, H)
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        s[p + "input_layernorm.weight"] = (H,)
        s[p + "post_attention_layernorm.weight"] = (H,)
        s[p + "self_attn.q_proj.weight"] = (q * D, H)
        s[p + "self_attn.k_proj.weight"] = (kv * D, H)
        s[p + "self_attn.v_proj.weight"] = (kv * D, H)
        s[p + "self_attn.o_proj.weight"] = (H, q * D)
        if c["qkv_bias"]:
            s[p + "self_attn.q_proj.bias"] = (q * D,)
            s[p + "self_attn.k_proj.bias"] = (kv * D,)
            s[p + "self_attn.v_proj.bias"] = (kv * D,)
        s[p + "mlp.gate_proj.weight"] = (I, H)
        s[p + "mlp.up_proj.weight"] = (I, H)
        s[p + "mlp.down_proj.weight"] = (H, I)
    return s


# ----------------------------------------------------------------------------- weights

_ST_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2"}


def read_safetensors(path):
    """{name: (numpy array, file)} of a .safetensors file (memory-mapped; BF16 widened)."""
    import numpy as np

    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if len(head) != 8:
                raise ExportError(f"{path}: truncated safetensors file (no header length)")
            n = struct.unpack("<Q", head)[0]
            size = path.stat().st_size
            if n > size - 8:
                raise ExportError(f"{path}: safetensors header length {n} exceeds the file")
            header = json.loads(f.read(n))
        if not isinstance(header, dict):
            raise ValueError("not an object")
    except ValueError as e:
        raise ExportError(f"{path}: safetensors header is not valid JSON ({e})") from None
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n) if size > 8 + n else None
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict):
            raise ExportError(f"{path}: tensor '{name}': header entry is not an object")
        dt = _ST_DTYPES.get(info.get("dtype"))
        if dt is None:
            raise ExportError(f"{path}: tensor '{name}' has dtype {info.get('dtype')!r} "
                              f"(supported: {', '.join(_ST_DTYPES)})")
        try:
            shape = tuple(int(x) for x in info["shape"])
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise ExportError(f"{path}: tensor '{name}': header entry needs 'shape' and "
                              "'data_offsets' [begin, end]") from None
        count = math.prod(shape)
        if (begin < 0 or end - begin != count * np.dtype(dt).itemsize or data is None
                or end > data.size):
            raise ExportError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] do not "
                              f"hold shape {list(shape)} of {info['dtype']} inside the file")
        a = data[begin:end].view(dt).reshape(shape)
        if info["dtype"] == "BF16":
            a = (a.astype(np.uint32) << 16).view(np.float32)
        out[name] = (a, path)
    return out


def read_torch_state(path):
    import torch

    try:
        try:
            sd = torch.load(path, map_location="cpu", weights_only=True)
        except TypeError:  # torch without weights_only
            sd = torch.load(path, map_location="cpu")
    except Exception as e:  # noqa: BLE001 (torch raises many kinds on a bad file)
        raise ExportError(f"{path}: not a PyTorch state dict ({type(e).__name__}: {e})") from None
    if isinstance(sd, dict) and "state_dict" in sd and isinstance(sd["state_dict"], dict):
        sd = sd["state_dict"]
    if not isinstance(sd, dict):
        raise ExportError(f"{path}: expected a state dict (name -> tensor), got {type(sd).__name__}")
    return {k: (v, path) for k, v in sd.items() if hasattr(v, "shape")}


def weight_files(folder, given):
    if given:
        return list(given)
    for index in ("model.safetensors.index.json", "pytorch_model.bin.index.json"):
        p = folder / index
        if p.is_file():
            try:
                files = sorted(set(json.loads(p.read_text())["weight_map"].values()))
            except (ValueError, KeyError, AttributeError) as e:
                raise ExportError(f"{p}: key 'weight_map' missing or malformed ({e})") from None
            return [folder / f for f in files]
    for single in ("model.safetensors", "pytorch_model.bin", "model.pt"):
        if (folder / single).is_file():
            return [folder / single]
    raise ExportError(f"{folder}: no weights found (model.safetensors, its index, "
                      "pytorch_model.bin, its index or model.pt; or give --weights)")


def load_weights(c, files, compute):
    """The tensors expected_shapes(c) names, checked (all present, right shapes) before torch
    is imported and any is converted to a torch tensor of `compute` ("float32", "float64")."""
    tensors = {}
    for f in files:
        if not Path(f).is_file():
            raise ExportError(f"{f}: no such file (a weights file)")
        tensors.update(read_safetensors(Path(f)) if str(f).endswith(".safetensors")
                       else read_torch_state(Path(f)))
    where = ", ".join(str(f) for f in files)
    shapes = expected_shapes(c)
    for name, shape in shapes.items():
        if name not in tensors:
            raise ExportError(f"{where}: missing tensor '{name}' (needed by {c['model_type']} "
                              f"with {c['path']})")
        a, f = tensors[name]
        if tuple(a.shape) != shape:
            raise ExportError(f"{f}: tensor '{name}' has shape {list(a.shape)} but "
                              f"{c['path']} implies {list(shape)}")
    import torch

    dtype = getattr(torch, compute)
    w = {}
    for name in shapes:
        a = tensors[name][0]
        t = a if isinstance(a, torch.Tensor) else torch.from_numpy(_np_copy(a))
        w[name] = t.to(dtype)
    if c["tied"]:
        w["lm_head.weight"] = w["model.embed_tokens.weight"]
    return w


def _np_copy(a):
    import numpy as np

    return np.array(a, dtype=np.float64 if a.dtype == np.float64 else np.float32)


# ----------------------------------------------------------------------------- forward

def inv_frequencies(c, dtype):
    """RoPE's per-pair angular frequencies (rad per position) as transformers computes them."""
    import torch

    D = c["head_dim"]
    inv = 1.0 / (c["theta"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    s = c["rope_scaling"]
    if s and s["kind"] == "linear":  # positions divided by the factor
        inv = inv / s["factor"]
    elif s and s["kind"] == "llama3":  # transformers' _compute_llama3_parameters
        factor, lo, hi = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
        old = s["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        scaled = torch.where(wavelen > old / lo, inv / factor, inv)
        smooth = (old / wavelen - lo) / (hi - lo)
        smoothed = (1 - smooth) * scaled / factor + smooth * scaled
        medium = (wavelen >= old / hi) & (wavelen <= old / lo)
        inv = torch.where(medium, smoothed, scaled)
    return inv.to(dtype)


def rope(x, positions, inv):
    """Half-split RoPE of x [heads, n, D] at `positions` [n] (transformers' rotate_half)."""
    import torch

    ang = positions.to(inv.dtype)[:, None] * inv[None, :]
    cos, sin = torch.cos(ang).repeat(1, 2), torch.sin(ang).repeat(1, 2)
    d = x.shape[-1] // 2
    rotated = torch.cat([-x[..., d:], x[..., :d]], dim=-1)
    return x * cos + rotated * sin


def rms_norm(x, weight, eps):
    import torch

    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def forward(c, w, inv, ids, start, cache, chunk):
    """Runs `ids` at positions start.. against `cache` (per layer [k, v] post-RoPE, [kv, n, D],
    extended in place); returns (logits of the last position, post-RoPE queries per layer
    [q_heads, n, D])."""
    import torch
    import torch.nn.functional as F

    q_h, kv_h, D = c["heads"], c["kv_heads"], c["head_dim"]
    group = q_h // kv_h
    n = ids.shape[0]
    pos = torch.arange(start, start + n)
    x = w["model.embed_tokens.weight"][ids]
    queries = []
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], c["eps"])
        proj = {}
        for name in ("q", "k", "v"):
            bias = w.get(p + f"self_attn.{name}_proj.bias")
            proj[name] = F.linear(h, w[p + f"self_attn.{name}_proj.weight"], bias)
        q = rope(proj["q"].view(n, q_h, D).transpose(0, 1), pos, inv)
        k = rope(proj["k"].view(n, kv_h, D).transpose(0, 1), pos, inv)
        v = proj["v"].view(n, kv_h, D).transpose(0, 1)
        if cache[i] is None:
            cache[i] = [k, v]
        else:
            cache[i] = [torch.cat([cache[i][0], k], 1), torch.cat([cache[i][1], v], 1)]
        keys = cache[i][0].repeat_interleave(group, 0)  # repeat_kv: query head g -> g / group
        vals = cache[i][1].repeat_interleave(group, 0)
        total = keys.shape[1]
        kpos = torch.arange(total)
        out = torch.empty(q_h, n, D, dtype=x.dtype)
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            s = q[:, a:b] @ keys.transpose(1, 2) / math.sqrt(D)
            qpos = pos[a:b][:, None]
            allowed = kpos[None, :] <= qpos
            if c["window"] is not None:
                allowed &= kpos[None, :] > qpos - c["window"]
            s = s.masked_fill(~allowed, float("-inf"))
            out[:, a:b] = torch.softmax(s, -1) @ vals
        x = x + F.linear(out.transpose(0, 1).reshape(n, q_h * D), w[p + "self_attn.o_proj.weight"])
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], c["eps"])
        mlp = F.silu(F.linear(h, w[p + "mlp.gate_proj.weight"])) * F.linear(
            h, w[p + "mlp.up_proj.weight"])
        x = x + F.linear(mlp, w[p + "mlp.down_proj.weight"])
        queries.append(q)
    logits = F.linear(rms_norm(x[-1:], w["model.norm.weight"], c["eps"]), w["lm_head.weight"])
    return logits[0], queries


# ----------------------------------------------------------------------------- context

def id_list(text, what, vocab):
    try:
        ids = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise ExportError(f"{what}: expected integer token ids") from None
    for t in ids:
        if not 0 <= t < vocab:
            raise ExportError(f"{what}: token id {t} is not in [0, {vocab}) (vocab_size)")
    return ids


def build_context(args, c):
    import numpy as np

    vocab = c["vocab"]
    needle = id_list(args.needle_ids, "--needle-ids", vocab)
    question = id_list(args.question_ids, "--question-ids", vocab)
    if args.ids:
        if not args.ids.is_file():
            raise ExportError(f"{args.ids}: no such file (--ids)")
        text = args.ids.read_text()
        if text.lstrip().startswith("["):
            try:
                text = " ".join(str(int(t)) for t in json.loads(text))
            except (ValueError, TypeError):
                raise ExportError(f"{args.ids}: expected a JSON list of token ids") from None
        body = id_list(text, f"--ids {args.ids}", vocab)
        if not body:
            raise ExportError(f"{args.ids}: no token ids")
    else:
        body_len = args.tokens - len(needle) - len(question)
        if body_len < 1:
            raise ExportError(f"--tokens {args.tokens} is too small for the needle and question")
        body = np.random.default_rng(args.seed).integers(0, vocab, body_len).tolist()
    if not 0 <= args.needle_depth <= 1:
        raise ExportError(f"--needle-depth {args.needle_depth}: expected a fraction in [0, 1]")
    return place_needle(body, needle, question, args.needle_depth)


def export(args):
    if args.steps < 1 or args.chunk < 1:
        raise ExportError("--steps and --chunk must be >= 1")
    c = read_config(args.checkpoint)
    try:
        layers = [int(x) for x in args.layers.split(",") if x.strip()] or list(range(c["layers"]))
    except ValueError:
        raise ExportError(f"--layers {args.layers!r}: expected comma-separated integers") from None
    for l in layers:
        if not 0 <= l < c["layers"]:
            raise ExportError(f"--layers: {l} is not in [0, {c['layers']}) (num_hidden_layers)")
    ids, spans = build_context(args, c)
    T = len(ids)
    if c["window"] is not None and T + args.steps > c["window"]:
        raise ExportError(f"{c['path']}: key 'sliding_window' = {c['window']} is shorter than the "
                          f"{T + args.steps} positions exported (sliding-window caches evict "
                          "tokens; export a shorter context)")
    w = load_weights(c, weight_files(args.checkpoint, args.weights), args.compute)
    import torch

    inv = inv_frequencies(c, w["model.norm.weight"].dtype)
    cache = [None] * c["layers"]
    steps_q = [[] for _ in layers]
    with torch.no_grad():
        logits, _ = forward(c, w, inv, torch.tensor(ids), 0, cache, args.chunk)
        keys = [cache[l][0].clone() for l in layers]
        values = [cache[l][1].clone() for l in layers]
        for s in range(args.steps):
            nxt = torch.argmax(logits).view(1)
            logits, q = forward(c, w, inv, nxt, T + s, cache, args.chunk)
            for j, l in enumerate(layers):
                steps_q[j].append(q[l][:, 0])
    keys = torch.stack(keys).float().numpy()
    values = torch.stack(values).float().numpy()
    queries = torch.stack([torch.stack(qs, 1) for qs in steps_q]).float().numpy()
    rope_base = c["theta"] if c["rope_scaling"] is None else 0.0
    try:
        write_cache(args.out, keys, values, queries,
                    source=f"torch:{c['model_type']}:{args.checkpoint.resolve().name}",
                    dtype=args.dtype, layer_ids=layers, rope_base=rope_base, needles=spans)
    except ValueError as e:
        raise ExportError(f"{args.out}: {e}") from None
    return len(layers), c["kv_heads"], T


def main(argv=None):
    args = parse_args(argv)
    try:
        n, kv, T = export(args)
    except ExportError as e:
        print(f"export_kv_torch: {e}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as e:
        if e.name not in ("torch", "numpy"):
            raise
        print(f"export_kv_torch: {e.name} is not importable (Debian: apt-get install "
              f"python3-{e.name})", file=sys.stderr)
        return 2
    print(f"export_kv_torch: {n} layer(s) x {kv} KV heads x {T} tokens, {args.steps} decode "
          f"steps -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

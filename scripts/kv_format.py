"""lightsim's KV cache folder format (docs/kv-data.md, version 1): the one writer of it in Python.

Used by both exporters (scripts/export_kv.py, the Hugging Face path, and
scripts/export_kv_torch.py, the pure-PyTorch path). numpy only.
"""
import json
import shutil
import uuid
from pathlib import Path


def place_needle(body, needle, question, depth):
    """The exported context: `needle` inserted into `body` at fraction `depth` (never before
    token 1), then `question`; returns (ids, needle spans for the manifest). One layout for both
    exporters."""
    at = max(1, min(len(body), int(depth * len(body))))
    ids = body[:at] + needle + body[at:] + question
    spans = [{"begin": at, "end": at + len(needle)}] if needle else []
    return ids, spans


def write_cache(out, keys, values, queries, *, source, dtype, layer_ids, rope_base, needles):
    """Writes a cache folder in lightsim's format (docs/kv-data.md, version 1). numpy only.

    keys, values: [layers, kv_heads, tokens, head_dim], post-RoPE; queries: [layers, q_heads,
    steps, head_dim], post-RoPE at positions tokens .. tokens + steps - 1; dtype "float16" or
    "float32" (storage); needles: list of {"begin", "end"} token spans (end exclusive).
    The geometry in manifest.json is taken from the array shapes, after checking they agree.
    Raises ValueError on inconsistent input before anything is written. The folder is written
    whole: into a temporary sibling that replaces `out` at the end, so an interrupted write
    leaves a previous cache at `out` intact and never a mix of two.
    """
    import numpy as np

    keys, values, queries = (np.asarray(a) for a in (keys, values, queries))
    if keys.ndim != 4 or values.shape != keys.shape:
        raise ValueError(f"keys {keys.shape} and values {values.shape} must both be "
                         "[layers, kv_heads, tokens, head_dim]")
    layers, kv_heads, tokens, head_dim = keys.shape
    if queries.ndim != 4 or queries.shape[0] != layers or queries.shape[3] != head_dim:
        raise ValueError(f"queries {queries.shape} must be [{layers}, q_heads, steps, {head_dim}]")
    q_heads, steps = queries.shape[1], queries.shape[2]
    if q_heads % kv_heads:
        raise ValueError(f"q_heads = {q_heads} is not a multiple of kv_heads = {kv_heads}")
    if len(layer_ids) != layers:
        raise ValueError(f"{len(layer_ids)} layer ids for {layers} stored layers")
    for n in needles:
        if not 0 <= n["begin"] < n["end"] <= tokens:
            raise ValueError(f"needle {n} is not inside [0, {tokens})")
    if dtype not in ("float16", "float32"):
        raise ValueError(f"dtype {dtype!r}: expected float16 or float32")
    for name, a in (("keys", keys), ("values", values), ("queries", queries)):
        if not np.all(np.isfinite(a)):
            raise ValueError(f"{name} holds non-finite values")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{uuid.uuid4().hex[:8]}")
    tmp.mkdir()
    try:
        np_dtype = np.float16 if dtype == "float16" else np.float32
        np.save(tmp / "keys.npy", np.ascontiguousarray(keys, dtype=np_dtype))
        np.save(tmp / "values.npy", np.ascontiguousarray(values, dtype=np_dtype))
        np.save(tmp / "queries.npy", np.ascontiguousarray(queries, dtype=np_dtype))
        manifest = {
            "format": "lightsim-kv", "version": 1, "source": source, "dtype": dtype,
            "layer_ids": [int(x) for x in layer_ids], "kv_heads": int(kv_heads),
            "q_heads": int(q_heads), "head_dim": int(head_dim), "tokens": int(tokens),
            "steps": int(steps), "rope_base": float(rope_base), "needles": list(needles),
        }
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        old = None
        if out.exists():
            old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:8]}")
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise

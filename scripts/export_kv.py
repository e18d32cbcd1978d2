#!/usr/bin/env python3
"""Export a KV cache from a Hugging Face causal LM in lightsim's format (docs/kv-data.md).

Needs PyTorch, transformers and numpy, and the model weights (local path or hub name).
Supported: decoder-only models whose attention uses q_proj / k_proj / v_proj and half-split
("rotate_half") RoPE: Llama, Mistral, Qwen2/Qwen2.5 families.

What is written:
  keys.npy, values.npy  [layers, kv_heads, tokens, head_dim]  the prefill cache (post-RoPE,
                        exactly what the model's KV cache holds)
  queries.npy           [layers, q_heads, steps, head_dim]    post-RoPE decode queries of
                        `steps` greedy decode steps (positions tokens .. tokens + steps - 1)
  manifest.json         geometry, dtype, rope_base, layer ids, needle spans, source
(written by scripts/kv_format.py, shared with the pure-PyTorch exporter
scripts/export_kv_torch.py, which needs no transformers)
The decode steps' own keys are not stored: lightsim evaluates the decode queries against the
`tokens` context tokens.

Example:
  python3 scripts/export_kv.py --model Qwen/Qwen2.5-7B-Instruct --text-file book.txt \\
      --tokens 32768 --steps 16 --layers 2,14,27 --needle "The secret code is 7481." \\
      --needle-depth 0.5 --question "What is the secret code?" --out kv/qwen-32k
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kv_format import place_needle, write_cache  # noqa: E402  (the one writer of the format, shared)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, help="hub name or local folder")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--text-file", type=Path, help="haystack text (repeated to fill --tokens)")
    p.add_argument("--tokens", type=int, default=4096, help="context length T")
    p.add_argument("--steps", type=int, default=8, help="greedy decode steps (queries)")
    p.add_argument("--layers", default="", help="comma-separated layer indices (default: all)")
    p.add_argument("--dtype", default="float16", choices=["float16", "float32"],
                   help="storage type of the arrays")
    p.add_argument("--needle", default="", help="text planted at --needle-depth")
    p.add_argument("--needle-depth", type=float, default=0.5, help="fraction of the context")
    p.add_argument("--question", default="", help="text appended at the end of the context")
    p.add_argument("--device", default="cpu")
    p.add_argument("--seed", type=int, default=0, help="seed for random filler tokens")
    return p.parse_args(argv)


def build_context(tok, args, vocab_size):
    import torch

    question = tok(args.question, add_special_tokens=False)["input_ids"] if args.question else []
    needle = tok(args.needle, add_special_tokens=False)["input_ids"] if args.needle else []
    body_len = args.tokens - len(question) - len(needle)
    if body_len < 1:
        sys.exit("export_kv: --tokens is too small for the needle and question")
    if args.text_file:
        ids = tok(args.text_file.read_text(), add_special_tokens=False)["input_ids"]
        if not ids:
            sys.exit(f"export_kv: {args.text_file} has no tokens")
        body = (ids * (body_len // len(ids) + 1))[:body_len]
    else:
        g = torch.Generator().manual_seed(args.seed)
        body = torch.randint(0, vocab_size, (body_len,), generator=g).tolist()
    if tok.bos_token_id is not None and body:
        body[0] = tok.bos_token_id
    return place_needle(body, needle, question, args.needle_depth)


def layer_kv(past, layer):
    """(keys, values) of one layer, [1, kv_heads, T, D], across transformers cache APIs."""
    if hasattr(past, "layers") and hasattr(past.layers[layer], "keys"):  # >= 4.56
        return past.layers[layer].keys, past.layers[layer].values
    if hasattr(past, "key_cache"):  # DynamicCache 4.36 - 4.55
        return past.key_cache[layer], past.value_cache[layer]
    return past[layer][0], past[layer][1]  # legacy tuples


def main(argv=None):
    args = parse_args(argv)
    import numpy as np
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.manual_seed(args.seed)
    tok = AutoTokenizer.from_pretrained(args.model)
    model = AutoModelForCausalLM.from_pretrained(args.model, torch_dtype=torch.float32,
                                                 attn_implementation="eager")
    model.to(args.device).eval()
    cfg = model.config
    n_layers = cfg.num_hidden_layers
    q_heads = cfg.num_attention_heads
    kv_heads = getattr(cfg, "num_key_value_heads", None) or q_heads
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // q_heads
    rope_base = float(getattr(cfg, "rope_theta", 10000.0))
    layers = [int(x) for x in args.layers.split(",") if x] or list(range(n_layers))
    for l in layers:
        if not 0 <= l < n_layers:
            sys.exit(f"export_kv: --layers: {l} is not in [0, {n_layers})")

    ids, spans = build_context(tok, args, cfg.vocab_size)
    T = len(ids)
    decoder = model.model
    attn = [decoder.layers[l].self_attn for l in layers]

    # Pre-RoPE query projections of each decode step, captured from q_proj.
    captured = {i: [] for i in range(len(layers))}
    hooks = []
    for i, a in enumerate(attn):
        hooks.append(a.q_proj.register_forward_hook(
            lambda mod, inp, out, i=i: captured[i].append(out.detach()[:, -1:, :])))

    with torch.no_grad():
        input_ids = torch.tensor([ids], device=args.device)
        out = model(input_ids=input_ids, use_cache=True)
        past = out.past_key_values
        for i in captured:  # drop the prefill projections
            captured[i].clear()
        keys = np.stack([layer_kv(past, l)[0][0].float().cpu().numpy() for l in layers])
        values = np.stack([layer_kv(past, l)[1][0].float().cpu().numpy() for l in layers])
        next_id = out.logits[:, -1:].argmax(-1)
        for s in range(args.steps):
            out = model(input_ids=next_id, past_key_values=past, use_cache=True)
            past = out.past_key_values
            next_id = out.logits[:, -1:].argmax(-1)
        for h in hooks:
            h.remove()

        # Apply the model's own RoPE at positions T .. T + steps - 1 (rotate_half convention).
        from transformers.models.llama.modeling_llama import apply_rotary_pos_emb
        pos = torch.arange(T, T + args.steps, device=args.device)[None, :]
        queries = []
        for i in range(len(layers)):
            q = torch.cat(captured[i], dim=1)  # [1, steps, q_heads * D]
            q = q.view(1, args.steps, q_heads, head_dim).transpose(1, 2)
            cos, sin = decoder.rotary_emb(q, pos)
            q_rot, _ = apply_rotary_pos_emb(q, q, cos, sin)
            queries.append(q_rot[0].float().cpu().numpy())
        queries = np.stack(queries)

    write_cache(args.out, keys[:, :, :T], values[:, :, :T], queries, source=f"hf:{args.model}",
                dtype=args.dtype, layer_ids=layers, rope_base=rope_base, needles=spans)
    print(f"export_kv: {len(layers)} layer(s) x {kv_heads} KV heads x {T} tokens, "
          f"{args.steps} decode steps -> {args.out}")

if __name__ == "__main__":
    main()

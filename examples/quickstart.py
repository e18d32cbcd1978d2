"""lightsim quickstart: a notebook-style walk through the Python bindings (docs/python.md).

Run it with Debian's Python 3 against the module `make` built:

    PYTHONPATH=build/python /usr/bin/python3 examples/quickstart.py [out.png]

Each `# %%` cell can be pasted into a notebook (Jupyter, VS Code) as it is. The figure goes
to the path given on the command line, or quickstart.png.
"""
# %% [markdown]
# ## Setup
# `lightsim` is the compiled module (build/python/lightsim*.so). Plots use matplotlib's Agg
# backend, so the script runs without a display.

# %%
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import lightsim

out_png = sys.argv[1] if len(sys.argv) > 1 else "quickstart.png"
print("lightsim", lightsim.__version__)

# %% [markdown]
# ## 1. Load and check a config
# `load_config` reads a file, a preset name of a kind, YAML text or a dict, checks every rule
# of the kind's schema and returns the document as a dict. Bad input raises
# `lightsim.InputError` (a ValueError) naming the file, line and key.

# %%
accelerator = lightsim.load_config("seed", kind="accelerator")
print("accelerator preset 'seed':", {k: accelerator[k] for k in list(accelerator)[:4]})
try:
    lightsim.load_config("seed", kind="accelerator", set={"logical_rowz": 512})
except lightsim.InputError as error:
    print("rejected as expected:", error)

# %% [markdown]
# ## 2. Run a study at quick size
# Studies are the seed's tables and figures recomputed from first principles. Each returns
# its claims (seed figure, ours, verdict), tables and charts; `arrays` holds every table as
# NumPy columns.

# %%
studies = lightsim.list_studies()
print("registered studies:", studies or "(none in this build)")
study = lightsim.run_study(studies[0], size="quick") if studies else None
if study is not None:
    for claim in study["claims"]:
        print(f"  {claim['id']:<28} seed {claim['seed_value']} ours {claim['ours']} "
              f"-> {claim['verdict']}")

# %% [markdown]
# ## 3. Score the blocks of a synthetic KV head
# `generate_kv` draws a KV cache with the statistics of real ones (docs/kv-data.md); we take
# one KV head and its group of query heads and score its 128-token blocks with the exact
# oracle (softmax mass), Quest's bound, mean keys and 32-d signatures, then check how many of
# the oracle's top 16 blocks each scorer picks.

# %%
cache = lightsim.generate_kv("llama-3-8b", set={"tokens": 8192, "steps": 4}, seed=1)
kv_head, group = 0, cache["queries"].shape[1] // cache["keys"].shape[1]
keys = cache["keys"][0, kv_head]                                # [tokens, head_dim]
queries = cache["queries"][0, kv_head * group:(kv_head + 1) * group]  # [group, steps, dim]
scores = {name: lightsim.score(name, keys, queries)
          for name in ("exact", "quest", "mean_key", "signature")}
k = 16
oracle = np.argsort(-scores["exact"][0])[:k]
for name, s in scores.items():
    picked = np.argsort(-s[0])[:k]
    print(f"  {name:<10} recall@{k} vs exact: {len(np.intersect1d(picked, oracle)) / k:.2f}")

# %% [markdown]
# ## 4. Evaluate a prefill plan on two fabrics
# One plan of the seed's 8k-token scenario on 144 GPUs, on the copper baseline and on the
# photonic fabric: the step time and its breakdown.

# %%
plan = {"tp": 1, "cp": 1, "ep": 144}
prefill = {fabric: lightsim.prefill_evaluate("seed_8k", plan, gpus=144, fabric=fabric)
           for fabric in ("seed_copper_1152", "photonic_4x_1152")}
for fabric, r in prefill.items():
    print(f"  {fabric:<18} latency {r['latency_s'] * 1e3:8.1f} ms  "
          f"exposed communication {r['breakdown']['exposed_total_s'] * 1e3:7.1f} ms")

# %% [markdown]
# ## 5. The Prism accelerator's energy per query

# %%
cost = lightsim.prism_cost("seed")
for item in cost["energy_per_query"]:
    print(f"  {item['name']:<14} {item['joules'] * 1e12:9.2f} pJ   ({item['provenance'][:60]})")
print(f"  dynamic {cost['dynamic_energy_j'] * 1e9:.2f} nJ per query "
      f"(the seed says {cost['seed']['dynamic_energy_j'] * 1e9:.2f} nJ)")

# %% [markdown]
# ## 6. Plot
# Left: block scores of one decode step (normalized); right: the prefill breakdown.

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
for name, s in scores.items():
    row = s[0]
    left.plot((row - row.min()) / (np.ptp(row) or 1.0), label=name, lw=1)
left.set(xlabel="block (128 tokens)", ylabel="normalized score", title="Block scores, step 0")
left.legend()
fabrics = list(prefill)
bottom = np.zeros(len(fabrics))
classes = list(prefill[fabrics[0]]["breakdown"]["compute_s"])
for cls in classes:
    ms = np.array([prefill[f]["breakdown"]["compute_s"][cls] * 1e3 for f in fabrics])
    if ms.any():
        right.bar(fabrics, ms, bottom=bottom, label=cls)
        bottom += ms
exposed = np.array([prefill[f]["breakdown"]["exposed_total_s"] * 1e3 for f in fabrics])
right.bar(fabrics, exposed, bottom=bottom, label="exposed communication", hatch="//")
right.set(ylabel="ms", title="Prefill, seed_8k, TP=1 EP=144 on 144 GPUs")
right.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out_png, dpi=100)
print("wrote", out_png)

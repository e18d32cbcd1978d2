"""lightsim quickstart: a notebook walk through the Python package (docs/python.md).

Open it in Jupyter or VS Code as a notebook (each `# %%` is a cell; jupytext reads the same
"percent" format) and run the cells top to bottom, or run it as a script:

    /usr/bin/python3 examples/quickstart.py [out.png]          # after pip install (docs/install.md)
    PYTHONPATH=build/python /usr/bin/python3 examples/quickstart.py   # from the build tree

It takes a few seconds: small sizes throughout. The figure goes to the .png path given on the
command line, else quickstart.png in the working directory.
"""
# %% [markdown]
# ## Setup
# `import lightsim` gives every operation of the CLI as a function returning the dict of its
# `--json` output, plus NumPy-level KV functions. Plots use matplotlib's Agg backend, so the
# notebook also runs without a display.

# %%
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import lightsim

# A notebook kernel's argv holds its own flags: only a .png argument names the figure.
out_png = next((a for a in sys.argv[1:] if a.endswith(".png")), "quickstart.png")
print("lightsim", lightsim.__version__, "data from", lightsim.data_dir())

# %% [markdown]
# ## 1. Photonics: one micro-ring and the seed's device
# `photonics_ring` derives the ring's figures from its geometry (docs/photonics.md);
# `photonics_feasibility` checks a whole device (WDM grid, crosstalk, tuning, link budget) and
# says why it fails. `help(lightsim.photonics_ring)` lists every field; bad input raises
# `lightsim.InputError` naming the key.

# %%
ring = lightsim.photonics_ring("tfln")
print(f"TFLN ring: FSR {ring['fsr_nm']:.3f} nm, FWHM {ring['fwhm_pm']:.1f} pm, "
      f"finesse {ring['finesse']:.1f}, loaded Q {ring['q_loaded']:.3g}")
device = lightsim.photonics_feasibility("seed_tfln")
print("seed device feasible:", device["feasible"])
for reason in device["reasons"][:2]:
    print("  -", reason[:110] + "...")
try:
    lightsim.photonics_ring("tfln", set={"ring.radiuz": "20 um"})
except lightsim.InputError as error:
    print("rejected as expected:", error)

# %% [markdown]
# ## 2. KV cache: score the blocks of one head
# `generate_kv` draws a KV cache with the statistics of real ones (docs/kv-data.md). We score
# one KV head's 128-token blocks with the exact oracle (softmax mass), Quest's bound, mean
# keys and 32-d signatures, and count how many of the oracle's top 8 blocks each picks.

# %%
cache = lightsim.generate_kv("llama-3-8b", set={"tokens": 4096, "steps": 2}, seed=1)
kv_head, group = 0, cache["queries"].shape[1] // cache["keys"].shape[1]
keys = cache["keys"][0, kv_head]                                      # [tokens, head_dim]
queries = cache["queries"][0, kv_head * group:(kv_head + 1) * group]  # [group, steps, dim]
scores = {name: lightsim.score(name, keys, queries)
          for name in ("exact", "quest", "mean_key", "signature")}
k = 8
oracle = np.argsort(-scores["exact"][0])[:k]
for name, s in scores.items():
    picked = np.argsort(-s[0])[:k]
    print(f"  {name:<10} recall@{k} vs exact: {len(np.intersect1d(picked, oracle)) / k:.2f}")

# %% [markdown]
# ## 3. Prefill: the best parallel plan on two fabrics
# `prefill_plan` searches every valid plan (TP, CP, EP, PP, DP) of the seed's 8K-token
# scenario on 144 GPUs (docs/prefill.md), on the copper baseline and on the photonic fabric.

# %%
plans = {fabric: lightsim.prefill_plan("seed_8k", fabric=fabric, gpus=[144], top=1)
         for fabric in ("seed_copper_1152", "photonic_4x_1152")}
best = {fabric: r["searches"][0]["best"] for fabric, r in plans.items()}
for fabric, b in best.items():
    print(f"  {fabric:<18} {b['plan']['text']:<28} latency {b['latency_s'] * 1e3:7.1f} ms  "
          f"exposed communication {b['breakdown']['exposed_total_s'] * 1e3:6.1f} ms")

# %% [markdown]
# ## 4. A study: the seed's decode claims
# A study recomputes a set of the seed's figures and gives each claim a verdict
# (docs/studies.md). `size="quick"` is a smoke size that cannot support a verdict; the default
# size of `decode` takes a fraction of a second. `arrays` holds each table as NumPy columns.

# %%
study = lightsim.run_study("decode", threads=2)
for claim in study["claims"]:
    print(f"  {claim['id']:<16} seed {claim['seed_value']:>8.4g} ours {claim['ours']:>8.4g} "
          f"-> {claim['verdict']}")
print("tables:", {name: len(next(iter(cols.values()))) for name, cols in study["arrays"].items()})

# %% [markdown]
# ## 5. Plot
# Left: block scores of one decode step (normalized); right: the best plans' time breakdown.

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
for name, s in scores.items():
    row = s[0]
    left.plot((row - row.min()) / (np.ptp(row) or 1.0), label=name, lw=1)
left.set(xlabel="block (128 tokens)", ylabel="normalized score", title="Block scores, step 0")
left.legend()
fabrics = list(best)
bottom = np.zeros(len(fabrics))
for cls in best[fabrics[0]]["breakdown"]["compute_s"]:
    ms = np.array([best[f]["breakdown"]["compute_s"][cls] * 1e3 for f in fabrics])
    if ms.any():
        right.bar(fabrics, ms, bottom=bottom, label=cls)
        bottom += ms
exposed = np.array([best[f]["breakdown"]["exposed_total_s"] * 1e3 for f in fabrics])
right.bar(fabrics, exposed, bottom=bottom, label="exposed communication", hatch="//")
right.set(ylabel="ms", title="Prefill, seed_8k on 144 GPUs, best plan per fabric")
right.legend(fontsize=7)
fig.tight_layout()
fig.savefig(out_png, dpi=100)
print("wrote", out_png)

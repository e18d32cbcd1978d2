#!/usr/bin/env python3
"""Issue 25 part 5 survey: each study's widest 95% interval on a reported figure and its run time.

Usage:
    scripts/study_intervals.py --lightsim build/bin/lightsim [--threads 2] [--size default]
        [--study impairments --study context ...] [--out DIR] [--claims FILE]

Runs `lightsim -q --threads T study run NAME [--quick|--full] --out DIR/NAME` for each study,
times it (wall, and user+sys CPU of the child), reads DIR/NAME/NAME.json and prints one
markdown row per study: the claims with a sampled figure (`ours_ci95` present), the widest
half-width among the recalls (claims whose id contains "recall" or "hit") and among all claims,
each with its claim id, and how many claims exceed +-0.03. Figures are what the studies report
(the kv module's 1.96 standard errors over query samples; docs/studies.md "intervals").
With --claims FILE, also appends one JSON line per claim to FILE (study, size, id, unit,
verdict, seed_value, ours, ours_ci95): the input for comparing verdicts between sizes (the
"smallest size that supports a verdict" table of docs/studies.md).
Debian's python3, standard library only.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

STUDIES = ["impairments", "context", "needle", "enhancement", "balanced", "prism", "thermal",
           "energy", "decode", "prefill", "serving", "serve_prism", "prism_design"]


def widest(claims, pick):
    best = None
    for c in claims:
        ci = c.get("ours_ci95")
        if ci is None or not pick(c["id"]):
            continue
        if best is None or ci > best[1]:
            best = (c["id"], ci, c.get("ours"))
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lightsim", default="build/bin/lightsim")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--size", choices=["quick", "default", "full"], default="default")
    ap.add_argument("--study", action="append")
    ap.add_argument("--out", default="/tmp/study_intervals")
    ap.add_argument("--claims", help="append each claim as a JSON line to this file")
    args = ap.parse_args()
    rows = []
    for name in args.study or STUDIES:
        out = Path(args.out) / name
        out.mkdir(parents=True, exist_ok=True)
        cmd = [args.lightsim, "-q", "--threads", str(args.threads), "study", "run", name,
               "--out", str(out)]
        if args.size != "default":
            cmd.insert(-2, "--" + args.size)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.monotonic() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        load = os.getloadavg()[0]
        if rc.returncode != 0:
            rows.append(f"| `{name}` | failed (exit {rc.returncode}: {rc.stderr.strip()[:80]}) | | | | {wall:.0f} s | {cpu:.0f} s | {load:.1f} |")
            continue
        result = json.loads((out / f"{name}.json").read_text())
        claims = result.get("claims", [])
        if args.claims:
            with open(args.claims, "a") as f:
                for c in claims:
                    f.write(json.dumps({"study": name, "size": args.size, "id": c["id"],
                                        "unit": c.get("unit", ""), "verdict": c["verdict"],
                                        "seed_value": c.get("seed_value"), "ours": c.get("ours"),
                                        "ours_ci95": c.get("ours_ci95")}) + "\n")
        sampled = [c for c in claims if c.get("ours_ci95") is not None]
        rec = widest(claims, lambda i: "recall" in i or "hit" in i)
        anyc = widest(claims, lambda i: True)
        over = sum(1 for c in sampled if c["ours_ci95"] > 0.03)
        fmt = lambda b: f"{b[1]:.3f} (`{b[0]}`)" if b else "-"
        rows.append(f"| `{name}` | {len(sampled)} of {len(claims)} | {fmt(rec)} | {fmt(anyc)} | "
                    f"{over} | {wall:.0f} s | {cpu:.0f} s | {load:.1f} |")
        print(rows[-1], file=sys.stderr, flush=True)
    print("| study | sampled claims | widest +-95% on a recall / hit rate | widest +-95% of any claim "
          "| claims above +-0.03 | wall | CPU | load (1 min) at end |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

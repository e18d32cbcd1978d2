"""The operations layer's adapters agree by construction: the CLI's --json, Python's
lightsim.run_json and the generated per-operation functions give byte-identical JSON for the
same operation and inputs (include/lightsim/ops/operation.h, docs/operations.md).
"""
import inspect
import json
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import lightsim

BIN = os.environ.get("LIGHTSIM_BIN", "build/bin/lightsim")
SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
MODEL = str(SOURCE / "configs/models/qwen2_5_7b.json")
# Where operations that write files (prism_thermal's CSV traces) write them, for both adapters.
OUT = tempfile.mkdtemp(prefix="lightsim-ops-")
# A tiny KV cache for kv_stats, written once by `kv generate`.
TINY_KV = """schema_version: 1
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
"""
CACHE = str(Path(OUT) / "cache")

# (operation, CLI arguments after the command, Python keyword arguments, --set assignments)
CASES = [
    ("photonics_ring", ["tfln"], {"config": "tfln"}, []),
    ("photonics_crosstalk", ["tfln"], {"config": "tfln"}, []),
    ("photonics_link_budget", ["tfln"], {"config": "tfln"}, ["noise.rin=false"]),
    ("photonics_feasibility", ["soi"], {"config": "soi"}, []),
    ("prism_cost", ["seed", "--drift-duration", "1 s"],
     {"accelerator": "seed", "drift_duration": "1 s"}, ["logical_rows=4096"]),
    ("prism_timeline", ["scaled", "--drift-duration", "1 s"],
     {"accelerator": "scaled", "drift_duration": "1 s"}, []),
    ("prism_thermal", ["seed", "--duration", "0.2 s", "--recall-tokens", "0", "--out", OUT],
     {"accelerator": "seed", "duration": "0.2 s", "recall_tokens": 0, "out": OUT}, []),
    ("prism_calibrate", ["scaled"], {"accelerator": "scaled"}, ["device.bank.rows=64"]),
    ("prism_montecarlo", ["seed_fit", "--dim", "16", "--rows", "64", "--top-k", "4", "--trials",
                          "2", "--queries", "1", "--bits", "4", "--weight-noise", "0,0.05"],
     {"accelerator": "seed_fit", "dim": 16, "rows": 64, "top_k": 4, "trials": 2, "queries": 1,
      "bits": [4], "weight_noise": [0, 0.05]}, []),
    ("prism_design", ["tiny"], {"design": "tiny"}, ["workload.tokens=4096"]),
    ("kv_stats", [CACHE, "--recent", "64"], {"cache": CACHE, "recent": 64}, []),
    ("kv_select", ["--cache", CACHE, "--scorer", "exact,faiss_ivfpq", "--k", "2", "--recent",
                   "128", "--nlist", "8", "--scorer-options", "pq_m=8,pq_nbits=6"],
     {"cache": CACHE, "scorer": ["exact", "faiss_ivfpq"], "k": [2], "recent": 128,
      "scorer_options": {"nlist": 8, "pq_m": 8, "pq_nbits": 6}}, []),
    # Equal bytes: at 48 B per block mean_key (64 B) and faiss_ivfpq (128 B of centroids) do
    # not fit and the signature takes d = 24; at 256 B faiss_ivfpq takes pq_m = 1.
    ("kv_select", ["--cache", CACHE, "--scorer", "mean_key,signature:pca,faiss_ivfpq", "--k",
                   "2", "--recent", "128", "--nlist", "8", "--pq-nbits", "6", "--budget-bytes",
                   "48,256"],
     {"cache": CACHE, "scorer": ["mean_key", "signature:pca", "faiss_ivfpq"], "k": [2],
      "recent": 128, "scorer_options": {"nlist": 8, "pq_nbits": 6}, "budget_bytes": [48, 256]},
     []),
    ("kv_select", ["--cache", str(Path(OUT) / "tiny.yaml"), "--scorer", "mean_key", "--k", "2"],
     {"cache": str(Path(OUT) / "tiny.yaml"), "scorer": ["mean_key"], "k": [2]},
     ["steps=2"]),
    ("kv_generate", [str(Path(OUT) / "tiny.yaml"), "--out", str(Path(OUT) / "generated")],
     {"config": str(Path(OUT) / "tiny.yaml"), "out": str(Path(OUT) / "generated")},
     ["tokens=512"]),
    ("fabric_show", ["gb200_nvl72"], {"fabric": "gb200_nvl72"}, []),
    ("fabric_kernels", ["h800"], {"gpu": "h800"}, []),
    ("fabric_design", ["photonic_pod_1152"], {"design": "photonic_pod_1152"},
     ["fibers_per_tile=18"]),
    ("fabric_collective",
     ["--fabric", "dgx_h100", "--op", "all-to-all", "--gpus", "8", "--bytes", "64MiB"],
     {"fabric": "dgx_h100", "op": "all-to-all", "gpus": 8, "bytes": "64MiB"}, []),
    ("fabric_collective", ["--fabric", "dgx_h100", "--sweep", "--max-bytes", "1 MiB"],
     {"fabric": "dgx_h100", "sweep": True, "max_bytes": "1 MiB"}, []),
    ("fabric_expert",
     ["--fabric", "hgx_h800", "--mode", "low_latency", "--ep", "32", "--tokens", "128"],
     {"fabric": "hgx_h800", "mode": "low_latency", "ep": 32, "tokens": 128}, []),
    ("model_show", [MODEL, "--tokens", "1024", "--kv", "fp8"],
     {"config": MODEL, "tokens": 1024, "kv": "fp8"}, []),
    ("decode_run", ["qwen2_5_7b"], {"scenario": "qwen2_5_7b"}, ["batches=[1,8]"]),
    ("decode_step", ["sglang_h100_ep72", "--plan", "TP=1,DPA=72,EP=72", "--batch", "4608"],
     {"scenario": "sglang_h100_ep72", "plan": "TP=1,DPA=72,EP=72", "batch": 4608},
     ["expert_skew=1.2"]),
    ("decode_plan", ["qwen2_5_7b_h100", "--gpus", "4"], {"scenario": "qwen2_5_7b_h100", "gpus": 4},
     ["tpot_target=30 ms"]),
    ("decode_validate", [], {}, []),
    ("serve_run", ["chat_nvl72"], {"scenario": "chat_nvl72"}, ["arrivals.requests=300"]),
    ("serve_validate", [], {}, []),
    ("prefill_run", ["seed_8k", "--gpus", "64", "--plan", "TP=1,EP=64,CP=1"],
     {"scenario": "seed_8k", "gpus": 64, "plan": "TP=1,EP=64,CP=1"}, []),
    ("prefill_plan", ["seed_8k", "--gpus", "64", "--top", "3"],
     {"scenario": "seed_8k", "gpus": [64], "top": 3}, ["requests=512"]),
    ("prefill_crossover", [], {}, []),
    ("kv_calibrate", ["qwen2.5-7b"], {"profile": "qwen2.5-7b"}, ["tokens=1024", "steps=4"]),
    ("kv_fit", [CACHE, "--max-evaluations", "3", "--tolerance", "1e9", "--out", OUT],
     {"cache": CACHE, "max_evaluations": 3, "tolerance": 1e9, "out": OUT}, []),
]


def command_of(name):
    for op in lightsim.operations():
        if op["name"] == name:
            return op["command"]
    raise KeyError(name)


def cli_json(name, args, assignments):
    sets = [a for s in assignments for a in ("--set", s)]
    proc = subprocess.run([BIN, *command_of(name), *args, "--json", "-q", *sets],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise AssertionError(f"{name}: exit {proc.returncode}: {proc.stderr}")
    return proc.stdout


class AdaptersAgree(unittest.TestCase):
    def test_cli_and_python_give_the_same_bytes(self):
        for name, args, kwargs, assignments in CASES:
            with self.subTest(operation=name, args=args):
                cli = cli_json(name, args, assignments)
                py = lightsim.run_json(name, **kwargs, set=assignments or None)
                self.assertEqual(cli, py)
                generated = getattr(lightsim, name)(**kwargs, set=assignments or None)
                self.assertEqual(json.loads(cli), generated)

    def test_every_case_names_a_registered_operation(self):
        names = {op["name"] for op in lightsim.operations()}
        for name, *_ in CASES:
            self.assertIn(name, names)


class OperationShape(unittest.TestCase):
    def test_every_operation_has_a_cli_command_and_a_python_function(self):
        ops = lightsim.operations()
        self.assertGreaterEqual(len(ops), 14)
        for op in ops:
            with self.subTest(operation=op["name"]):
                proc = subprocess.run([BIN, *op["command"], "--help"], capture_output=True,
                                      text=True, timeout=60, stdin=subprocess.DEVNULL)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                for f in op["fields"]:
                    if f["name"] not in op["positional"]:
                        self.assertIn("--" + f["name"].replace("_", "-"), proc.stdout)
                sig = inspect.signature(getattr(lightsim, op["name"]))
                for f in op["fields"]:
                    self.assertIn(f["name"], sig.parameters)
                    self.assertEqual(f["required"],
                                     sig.parameters[f["name"]].default is inspect.Parameter.empty)

    def test_a_bad_request_names_the_flag_or_keyword(self):
        proc = subprocess.run([BIN, "prism", "cost", "seed", "--drift-duration", "3 kg"],
                              capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--drift-duration", proc.stderr)
        with self.assertRaises(lightsim.UnitError) as e:
            lightsim.prism_cost("seed", drift_duration="3 kg")
        self.assertIn("keyword drift_duration", str(e.exception))
        with self.assertRaises(lightsim.ConfigError) as e:
            lightsim.run("prism_cost", accelerator="seed", drift_durations="1 s")
        self.assertIn("did you mean 'drift_duration'", str(e.exception))
        with self.assertRaises(lightsim.ConfigError):
            lightsim.run("no_such_operation")

    def test_reference_roots_follow_config_path(self):
        # prism_cost reads the seed's figures through the config roots, so an overriding
        # reference in config_path= is honoured (by the CLI's --config-path too).
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            ref = Path(tmp) / "references"
            ref.mkdir()
            text = (SOURCE / "configs/references/prism_seed.yaml").read_text()
            text = text.replace("dynamic_energy: 1570 pJ", "dynamic_energy: 2 nJ")
            self.assertIn("dynamic_energy: 2 nJ", text)
            (ref / "prism_seed.yaml").write_text(text)
            cost = lightsim.prism_cost("seed", drift_duration="0.1 s", config_path=tmp)
            self.assertAlmostEqual(cost["seed"]["dynamic_energy_j"], 2e-9)


def setUpModule():
    spec = Path(OUT) / "tiny.yaml"
    spec.write_text(TINY_KV)
    subprocess.run([BIN, "kv", "generate", str(spec), "--out", CACHE, "-q"], check=True,
                   capture_output=True, timeout=120, stdin=subprocess.DEVNULL)


def tearDownModule():
    shutil.rmtree(OUT, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

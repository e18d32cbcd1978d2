"""The malformed-input acceptance suite (issue 24; docs/hardening.md "Malformed input").

Two tables of bad input: CLI_CASES (a command line and the files it reads) and PY_CASES (a
call of the Python module). Every case must fail cleanly: the CLI with exit code 2 and one
stderr line `lightsim: error: ...` containing every expected fragment (the file, key or flag
at fault; a fragment starting with `re:` is a regular expression), the Python call with an
exception of a documented lightsim class whose message matches. Each case runs in its own
process under a 1 GiB address-space limit (RLIMIT_AS) and a 5 s CPU-time limit (measured, and
RLIMIT_CPU; a case blocked without using CPU is a hang after 30 s of wall-clock time, which on
a loaded machine tells a blocked read from a slow one), in its own
scratch folder, and must leave nothing behind: no file in the scratch folder or in --out
(every CLI case gets `--out` unless it names one). A crash, a signal, a hang, exit 1, an
allocation failure or a stray file is a failure of the case. The cases run on a process pool,
so the whole table takes seconds.

Placeholders in argv, fragments and Python code: {tmp} the case's scratch folder, {out} its
--out folder, {src} the source tree. File contents: str, bytes, or LINK(target), FIFO,
SPARSE(bytes) for special files. A new command adds its rows here.
"""
import json
import multiprocessing
import os
import re
import resource
import select
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from clitest import BIN, SOURCE, SWEEP

BIN = os.path.abspath(BIN)  # the cases run in their own folders

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no BLAS threads in forking workers

SECONDS = 5.0           # per case, CPU time (user + system)
HANG_SECONDS = 30.0     # per case, wall clock: blocked (a FIFO read, a lock wait)
MEMORY_BYTES = 1 << 30  # per case, address space
MIN_CASES = 200        # the acceptance: at least 200 malformed inputs in all

DEVICE = (SOURCE / "configs/devices/tfln.yaml").read_text()
MODEL = (SOURCE / "configs/models/llama3_8b.json").read_text()
SCENARIO = (SOURCE / "configs/scenarios/seed_8k.yaml").read_text()
FABRIC = (SOURCE / "configs/fabrics/dgx_h100.yaml").read_text()
ACCELERATOR = (SOURCE / "configs/accelerators/seed.yaml").read_text()
SERVE = (SOURCE / "configs/serve/chat_nvl72.yaml").read_text()
DECODE_SCALE = (SOURCE / "configs/decode_scale/qwen2_5_7b_h100.yaml").read_text()
DESIGN = (SOURCE / "configs/fabric_designs/copper_nvl72.yaml").read_text()

KV_TINY = """schema_version: 1
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
needle_tokens: 16
"""

MANIFEST = ('{"format": "lightsim-kv", "version": 1, "source": "test", "dtype": "float32", '
            '"layer_ids": [0], "kv_heads": 1, "q_heads": 1, "head_dim": 2, "tokens": 4, '
            '"steps": 1, "rope_base": 0, "needles": []}')

class LINK(str):
    """A symbolic link to the given target."""


class FIFO:
    """A named pipe (reading it would block forever)."""


class SPARSE(int):
    """A sparse file of this many bytes (costs nothing on disk)."""


def sub(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


def npy(header, payload=b""):
    """A .npy v1 file with the given header dict text (padded to 64 bytes) and payload."""
    head = header.encode() + b" " * (63 - (10 + len(header)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head + payload


def npy_f32(shape):
    count = 1
    for n in shape:
        count *= n
    dims = ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "")
    return npy("{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims,
               b"\0" * (4 * count))


def kv_cache(manifest=MANIFEST, keys=None, values=None, queries=None):
    return {"cache/manifest.json": manifest,
            "cache/keys.npy": keys if keys is not None else npy_f32([1, 1, 4, 2]),
            "cache/values.npy": values if values is not None else npy_f32([1, 1, 4, 2]),
            "cache/queries.npy": queries if queries is not None else npy_f32([1, 1, 1, 2])}


# (id, argv, files, fragments of the one error line)
CLI_CASES = [
    # --- usage and global options
    ("unknown command", ["frobnicate"], {}, ["frobnicate"]),
    ("threads out of range", ["--threads", "99999", "list"], {}, ["--threads"]),
    ("threads not a number", ["--threads", "many", "list"], {}, ["--threads"]),
    ("seed negative", ["--seed", "-3", "list"], {}, ["--seed"]),
    ("seed above 2^64", ["--seed", "18446744073709551616", "list"], {},
     ["--seed", "18446744073709551615"]),
    ("seed not a number", ["--seed", "12abc", "list"], {}, ["--seed"]),
    ("set without equals", ["--set", "ring.radius", "photonics", "ring", "tfln"], {},
     ["ring.radius"]),
    ("set unknown key", ["--set", "ring.colour=red", "photonics", "ring", "tfln"], {},
     ["ring.colour"]),
    ("set wrong unit", ["--set", "ring.radius=3 GHz", "photonics", "ring", "tfln"], {},
     ["ring.radius"]),
    # --- config check / explain: the strict spec reader
    ("config missing file", ["config", "check", "{tmp}/nope.yaml"], {}, ["nope.yaml"]),
    ("config empty file", ["config", "check", "{tmp}/empty.yaml"], {"empty.yaml": ""},
     ["empty.yaml"]),
    ("config not a mapping", ["config", "check", "{tmp}/list.yaml"],
     {"list.yaml": "- 1\n- 2\n"}, ["list.yaml"]),
    ("config yaml syntax", ["config", "check", "{tmp}/bad.yaml"],
     {"bad.yaml": "schema_version: 1\nkind: device\nring: {radius: [\n"}, ["bad.yaml"]),
    ("config no kind", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": "schema_version: 1\nring: {}\n"}, ["c.yaml", "kind"]),
    ("config unknown kind", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": "schema_version: 1\nkind: warp_drive\n"}, ["warp_drive"]),
    ("config no schema_version", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "schema_version: 1\n", "")}, ["schema_version"]),
    ("config future schema_version", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "schema_version: 1", "schema_version: 99")}, ["schema_version"]),
    ("config unknown key", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "  n_eff: 1.85", "  n_eff: 1.85\n  n_efff: 2")}, ["ring.n_efff"]),
    ("config wrong unit", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: 20 GHz")}, ["ring.radius"]),
    ("config missing unit", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: 20")}, ["ring.radius"]),
    ("config unknown unit", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: 20 furlongs")}, ["ring.radius"]),
    ("config negative size", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: -20 um")}, ["ring.radius"]),
    ("config negative count", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "channels: 8", "channels: -8")}, ["grid.channels"]),
    ("config wrong type string for number", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "n_eff: 1.85", "n_eff: high")}, ["ring.n_eff"]),
    ("config wrong type list for number", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "n_eff: 1.85", "n_eff: [1, 2]")}, ["ring.n_eff"]),
    ("config wrong type map for section", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "bank:\n  rows: 256", "bank: 256")}, ["bank"]),
    ("config fractional count", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "channels: 8", "channels: 8.5")}, ["grid.channels"]),
    ("config huge count", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "channels: 8", "channels: 1e30")}, ["grid.channels"]),
    ("config huge quantity", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: 1e400 um")}, ["ring.radius"]),
    ("config nan quantity", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "radius: 20 um", "radius: nan um")}, ["ring.radius"]),
    ("config inf number", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "n_eff: 1.85", "n_eff: .inf")}, ["ring.n_eff"]),
    ("config bad enumeration", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "mechanism: pockels", "mechanism: magic")},
     ["tuning.mechanism", "magic"]),
    ("config unknown preset", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(ACCELERATOR, "preset: ", "preset: no_such_")}, ["no_such_"]),
    ("config duplicate key", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": sub(DEVICE, "  n_eff: 1.85", "  n_eff: 1.85\n  n_eff: 1.9")}, ["n_eff"]),
    ("config alias bomb", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": (SOURCE / "tests/data/fuzz/config/billion_laughs.yaml").read_text()},
     ["c.yaml", "document too large"]),
    ("config nested too deep", ["config", "check", "{tmp}/c.yaml"],
     {"c.yaml": "schema_version: 1\nkind: device\nring: " + "[" * 200 + "]" * 200 + "\n"},
     ["c.yaml", "nested deeper"]),
    ("config explain unknown kind", ["config", "explain", "warp_drive"], {}, ["warp_drive"]),
    ("config check a directory", ["config", "check", "{tmp}"], {}, ["{tmp}"]),
    ("config binary garbage", ["config", "check", "{tmp}/g.yaml"],
     {"g.yaml": b"\x00\xff\xfe\x01kind\x00"}, ["g.yaml"]),
    ("config latin-1 byte", ["config", "check", "{tmp}/d.yaml"],
     {"d.yaml": sub(DEVICE, "kind: device", "kind: device\nname: caf\xe9").encode("latin-1")},
     ["d.yaml:", "invalid UTF-8", "0xe9"]),
    ("config overlong utf-8", ["config", "check", "{tmp}/d.yaml"],
     {"d.yaml": DEVICE.encode() + b"# \xc0\xaf\n"}, ["d.yaml:", "invalid UTF-8"]),
    ("config misspelled kind", ["config", "check", "{tmp}/d.yaml"],
     {"d.yaml": sub(DEVICE, "kind: device", "kindx: device")},
     ["d.yaml:", "unknown key 'kindx'", "did you mean 'kind'?"]),
    ("config second document", ["config", "check", "{tmp}/d.yaml"],
     {"d.yaml": DEVICE + "---\nkind: device\n"}, ["d.yaml:", "second YAML document"]),
    # config check said ok; the run then failed with "ring: no couplers given", no file named.
    ("config device without a ring", ["config", "check", "{tmp}/d.yaml"],
     {"d.yaml": "schema_version: 1\nkind: device\ngrid: {channels: 8}\n"},
     ["d.yaml:", "ring: no couplers given", "a device needs a ring"]),
    ("accelerator device without a ring", ["config", "check", "{tmp}/a.yaml"],
     {"a.yaml": "schema_version: 1\nkind: accelerator\ndevice: {grid: {channels: 8}}\n"},
     ["a.yaml:", "device", "a device needs a ring"]),
    ("set invalid utf-8", ["--set", "ring.radius=\udcff", "photonics", "ring", "tfln"], {},
     ["--set ring.radius", "invalid UTF-8"]),
    # --- photonics
    ("photonics unknown preset", ["photonics", "ring", "no_such_device"], {},
     ["no_such_device"]),
    ("photonics wrong kind", ["photonics", "ring", "{tmp}/f.yaml"], {"f.yaml": FABRIC},
     ["f.yaml", "fabric"]),
    ("photonics zero q", ["photonics", "ring", "{tmp}/d.yaml"],
     {"d.yaml": sub(DEVICE, "q_loaded: 1e4", "q_loaded: 0")}, ["ring.q_loaded"]),
    # --- model (Hugging Face config.json)
    ("model missing file", ["model", "show", "{tmp}/none.json"], {}, ["none.json"]),
    ("model empty file", ["model", "show", "{tmp}/m.json"], {"m.json": ""}, ["m.json"]),
    ("model json syntax", ["model", "show", "{tmp}/m.json"], {"m.json": "{\"hidden_size\": "},
     ["m.json"]),
    ("model not an object", ["model", "show", "{tmp}/m.json"], {"m.json": "[1, 2, 3]"},
     ["m.json"]),
    ("model missing key", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"hidden_size": 4096,', "")}, ["hidden_size"]),
    ("model wrong type", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"hidden_size": 4096', '"hidden_size": "big"')}, ["hidden_size"]),
    ("model negative size", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"num_hidden_layers": 32', '"num_hidden_layers": -32')},
     ["num_hidden_layers"]),
    ("model zero heads", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"num_attention_heads": 32', '"num_attention_heads": 0')},
     ["num_attention_heads"]),
    ("model huge size", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"hidden_size": 4096', '"hidden_size": 1e300')}, ["hidden_size"]),
    ("model huge layer count", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"num_hidden_layers": 32', '"num_hidden_layers": 9223372036854775807')},
     ["num_hidden_layers"]),
    ("model fractional size", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"hidden_size": 4096', '"hidden_size": 4096.5')}, ["hidden_size"]),
    ("model heads not dividing", ["model", "show", "{tmp}/m.json"],
     {"m.json": sub(MODEL, '"num_key_value_heads": 8', '"num_key_value_heads": 7')},
     ["num_key_value_heads"]),
    ("model bad dtype preset", ["model", "show", "{src}/configs/models/llama3_8b.json",
                                "--dtypes", "fp3"], {}, ["fp3"]),
    ("model tokens zero", ["model", "show", "{src}/configs/models/llama3_8b.json",
                           "--tokens", "0"], {}, ["--tokens"]),
    # --- kv
    ("kv generate missing config", ["kv", "generate", "{tmp}/none.yaml", "--out", "{tmp}/o"],
     {}, ["none.yaml"]),
    ("kv generate zero tokens", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": sub(KV_TINY, "tokens: 1024", "tokens: 0")}, ["tokens"]),
    ("kv generate heads not dividing", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": sub(KV_TINY, "q_heads: 4", "q_heads: 3")}, ["q_heads"]),
    ("kv generate huge tokens", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": sub(KV_TINY, "tokens: 1024", "tokens: 1000000000000")}, ["tokens"]),
    ("kv generate layer out of range", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": sub(KV_TINY, "layers: []", "layers: [5]")}, ["layers"]),
    ("kv generate layer twice", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": sub(KV_TINY, "layers: []", "layers: [0, 0]")}, ["layers", "twice"]),
    ("kv generate negative rope_base", ["kv", "generate", "{tmp}/k.yaml", "--out", "{tmp}/o"],
     {"k.yaml": KV_TINY + "rope_base: -10000\n"}, ["rope_base"]),
    ("kv manifest negative rope_base", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"rope_base": 0', '"rope_base": -1')), ["rope_base"]),
    ("kv stats missing folder", ["kv", "stats", "{tmp}/nocache"], {}, ["nocache"]),
    ("kv stats missing manifest", ["kv", "stats", "{tmp}/cache"],
     {"cache/keys.npy": npy_f32([1, 1, 4, 2])}, ["manifest.json"]),
    ("kv manifest empty", ["kv", "stats", "{tmp}/cache"], kv_cache(manifest=""),
     ["manifest.json"]),
    ("kv manifest bad json", ["kv", "stats", "{tmp}/cache"], kv_cache(manifest="{\"format\""),
     ["manifest.json"]),
    ("kv manifest wrong format", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, "lightsim-kv", "other")), ["manifest.json", "format"]),
    ("kv manifest missing key", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"head_dim": 2, ', "")), ["head_dim"]),
    ("kv manifest wrong type", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"tokens": 4', '"tokens": "four"')), ["tokens"]),
    ("kv manifest negative", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"tokens": 4', '"tokens": -4')), ["tokens"]),
    ("kv manifest huge", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"tokens": 4', '"tokens": 1e300')), ["tokens"]),
    ("kv manifest bad dtype", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, "float32", "int8")), ["dtype"]),
    ("kv manifest needle outside", ["kv", "stats", "{tmp}/cache"],
     kv_cache(manifest=sub(MANIFEST, '"needles": []', '"needles": [{"begin": 2, "end": 9}]')),
     ["needle"]),
    ("kv npy missing", ["kv", "stats", "{tmp}/cache"],
     {"cache/manifest.json": MANIFEST}, ["keys.npy"]),
    ("kv npy empty", ["kv", "stats", "{tmp}/cache"], kv_cache(keys=b""), ["keys.npy"]),
    ("kv npy bad magic", ["kv", "stats", "{tmp}/cache"], kv_cache(keys=b"NOTNUMPY" * 20),
     ["keys.npy"]),
    ("kv npy wrong shape", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy_f32([1, 1, 5, 2])), ["keys.npy", "shape"]),
    ("kv npy wrong dtype", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 4, 2), }",
                       b"\0" * 64)), ["keys.npy"]),
    ("kv npy truncated data", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 4, 2), }",
                       b"\0" * 8)), ["keys.npy"]),
    ("kv npy fortran order", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 1, 4, 2), }",
                       b"\0" * 32)), ["keys.npy"]),
    ("kv npy garbage header", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'shape': (((( }")), ["keys.npy"]),
    ("kv npy huge shape", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (99999999999, 99999999999, 4, 2), }")), ["keys.npy"]),
    ("kv npy nan value", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 4, 2), }",
                       b"\0" * 8 + b"\x00\x00\xc0\x7f" + b"\0" * 20)),
     ["keys.npy", "non-finite", "[0, 0, 1, 0]"]),
    ("kv npy inf query", ["kv", "stats", "{tmp}/cache"],
     kv_cache(queries=npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 2), }",
                          b"\0" * 4 + b"\x00\x00\x80\xff")),
     ["queries.npy", "non-finite", "[0, 0, 0, 1]"]),
    ("kv select bad scorer", ["kv", "select", "--cache", "{tmp}/cache", "--scorer", "psychic"],
     kv_cache(), ["psychic"]),
    ("kv select zero k", ["kv", "select", "--cache", "{tmp}/cache", "--k", "0"], kv_cache(),
     ["--k", "[1, 16777216]"]),
    ("kv select nan kv-bytes", ["kv", "select", "--cache", "{tmp}/cache", "--kv-bytes", "nan"],
     kv_cache(), ["--kv-bytes", "finite"]),
    ("kv select inf kv-bytes", ["kv", "select", "--cache", "{tmp}/cache", "--kv-bytes", "inf"],
     kv_cache(), ["--kv-bytes", "finite"]),
    ("kv select bad projection", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                  "signature", "--projection", "telepathy"], kv_cache(), ["telepathy"]),
    ("kv select missing projection file", ["kv", "select", "--cache", "{tmp}/cache",
                                           "--scorer", "signature:learned",
                                           "--projection-file", "{tmp}/p.npy"], kv_cache(),
     ["p.npy"]),
    # --- fabric
    ("fabric unknown preset", ["fabric", "show", "warp"], {}, ["warp"]),
    ("fabric bad bytes unit", ["fabric", "collective", "--fabric", "dgx_h100", "--bytes",
                               "256 furlongs"], {}, ["--bytes"]),
    ("fabric bytes wrong dimension", ["fabric", "collective", "--fabric", "dgx_h100",
                                      "--bytes", "3 GHz"], {}, ["--bytes"]),
    ("fabric negative bytes", ["fabric", "collective", "--fabric", "dgx_h100", "--bytes",
                               "-5 MiB"], {}, ["--bytes"]),
    ("fabric sweep from zero bytes", ["fabric", "collective", "--fabric", "dgx_h100",
                                      "--sweep", "--min-bytes", "0 B"], {}, ["--min-bytes"]),
    ("fabric sweep reversed", ["fabric", "collective", "--fabric", "dgx_h100", "--sweep",
                               "--min-bytes", "1 GiB", "--max-bytes", "1 KiB"], {},
     ["min_bytes (1 GiB) must not exceed max_bytes (1 KiB)"]),
    ("fabric sweep too wide", ["fabric", "collective", "--fabric", "dgx_h100", "--sweep",
                               "--min-bytes", "1e-300 B", "--max-bytes", "1e300 B"], {},
     ["min_bytes..max_bytes spans more than"]),
    ("fabric unknown op", ["fabric", "collective", "--fabric", "dgx_h100", "--op", "scatter"],
     {}, ["scatter"]),
    ("fabric unknown algorithm", ["fabric", "collective", "--fabric", "dgx_h100",
                                  "--algorithm", "magic"], {}, ["magic"]),
    ("fabric tier bandwidth wrong unit", ["fabric", "show", "{tmp}/f.yaml"],
     {"f.yaml": sub(FABRIC, "bandwidth: 450 GB/s", "bandwidth: 450 GHz")}, ["bandwidth"]),
    ("fabric gpu preset unknown", ["fabric", "show", "{tmp}/f.yaml"],
     {"f.yaml": sub(FABRIC, "preset: h100", "preset: h9000")}, ["h9000"]),
    # --- prefill
    ("prefill unknown scenario", ["prefill", "run", "no_such_scenario"], {},
     ["no_such_scenario"]),
    ("prefill invalid plan key", ["prefill", "run", "seed_8k", "--fabric", "seed_copper_1152",
                                  "--gpus", "72", "--plan", "TP=1,XX=4"], {}, ["XX"]),
    ("prefill invalid plan value", ["prefill", "run", "seed_8k", "--fabric",
                                    "seed_copper_1152", "--gpus", "72", "--plan", "TP=abc"],
     {}, ["TP"]),
    ("prefill plan not dividing", ["prefill", "run", "seed_8k", "--fabric", "seed_copper_1152",
                                   "--gpus", "72", "--plan", "TP=7,EP=5,CP=1"], {}, ["plan"]),
    ("prefill unknown fabric", ["prefill", "run", "seed_8k", "--fabric", "warp"], {}, ["warp"]),
    ("prefill scenario zero length", ["prefill", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SCENARIO, "sequence_length: 8192", "sequence_length: 0")},
     ["sequence_length"]),
    ("prefill scenario unknown model", ["prefill", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SCENARIO, "model: seed_r1_840b_a42b", "model: no_such_model")},
     ["no_such_model"]),
    ("prefill scenario bad fixed plan", ["prefill", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SCENARIO, '"TP=1,CP=1,EP=144,DP=1"', '"TP=1,CP=1,QQ=144,DP=1"')}, ["QQ"]),
    # --- prism
    ("prism unknown accelerator", ["prism", "cost", "no_such_acc"], {},
     ["no_such_acc"]),
    ("prism accelerator bad key", ["prism", "cost", "{tmp}/a.yaml"],
     {"a.yaml": sub(ACCELERATOR, "selection:", "selection:\n  top_kk: 3")}, ["top_kk"]),
    # --- study, reproduce, report
    ("study unknown name", ["study", "run", "no_such_study", "--out", "{tmp}/o"], {},
     ["no_such_study"]),
    ("reproduce missing config", ["reproduce", "{tmp}/r.yaml", "--out", "{tmp}/o"], {},
     ["r.yaml"]),
    ("reproduce unknown study", ["reproduce", "{tmp}/r.yaml", "--out", "{tmp}/o"],
     {"r.yaml": "schema_version: 1\nkind: reproduce\nstudies: [no_such_study]\n"},
     ["no_such_study"]),
    ("reproduce bad size", ["reproduce", "{tmp}/r.yaml", "--out", "{tmp}/o"],
     {"r.yaml": "schema_version: 1\nkind: reproduce\nsize: gigantic\n"}, ["size"]),
    ("reproduce bad interval", ["reproduce", "{tmp}/r.yaml", "--out", "{tmp}/o"],
     {"r.yaml": "schema_version: 1\nkind: reproduce\nprogress_interval: 5 kg\n"},
     ["progress_interval"]),
    ("report missing folder", ["report", "{tmp}/nothing"], {}, ["nothing"]),
    ("report bad result json", ["report", "{tmp}/res"], {"res/x.json": "{not json"},
     ["x.json"]),
    # --- special files and size caps (moved from test_bounded_resources.py)
    ("config link to /dev/zero", ["config", "check", "{tmp}/z.yaml"],
     {"z.yaml": LINK("/dev/zero")}, ["z.yaml", "character device"]),
    ("model show link to /dev/zero", ["model", "show", "{tmp}/z.json"],
     {"z.json": LINK("/dev/zero")}, ["z.json", "character device"]),
    ("photonics link to /dev/zero", ["photonics", "ring", "{tmp}/z.yaml"],
     {"z.yaml": LINK("/dev/zero")}, ["z.yaml", "character device"]),
    ("sweep link to /dev/zero", ["sweep", "{tmp}/z.yaml"], {"z.yaml": LINK("/dev/zero")},
     ["z.yaml", "character device"]),
    ("kv manifest link to /dev/zero", ["kv", "stats", "{tmp}/cache"],
     {"cache/manifest.json": LINK("/dev/zero")}, ["manifest.json", "character device"]),
    ("preset link to /dev/zero", ["photonics", "ring", "zero", "--config-path", "{tmp}/presets"],
     {"presets/devices/zero.yaml": LINK("/dev/zero")}, ["zero.yaml", "character device"]),
    ("config fifo", ["config", "check", "{tmp}/f.yaml"], {"f.yaml": FIFO()},
     ["f.yaml", "FIFO"]),
    ("model show fifo", ["model", "show", "{tmp}/f.json"], {"f.json": FIFO()},
     ["f.json", "FIFO"]),
    ("sweep fifo", ["sweep", "{tmp}/f.yaml"], {"f.yaml": FIFO()}, ["f.yaml", "FIFO"]),
    ("kv npy fifo", ["kv", "stats", "{tmp}/cache"],
     {**kv_cache(), "cache/keys.npy": FIFO()}, ["keys.npy", "FIFO"]),
    ("config beyond the size cap", ["config", "check", "{tmp}/big.yaml"],
     {"big.yaml": SPARSE(30 << 20)}, ["big.yaml", "30 MiB", "limit of 1 MiB"]),
    ("model beyond the size cap", ["model", "show", "{tmp}/big.json"],
     {"big.json": SPARSE(30 << 20)}, ["big.json", "limit of 1 MiB"]),
    ("sweep beyond the size cap", ["sweep", "{tmp}/big.yaml"], {"big.yaml": SPARSE(30 << 20)},
     ["big.yaml", "limit of 1 MiB"]),
    ("kv manifest beyond the size cap", ["kv", "stats", "{tmp}/cache"],
     {**kv_cache(), "cache/manifest.json": SPARSE(100 << 20)},
     ["manifest.json", "limit of 64 MiB"]),
    ("config long list", ["config", "check", "{tmp}/list.yaml"], {"list.yaml": "- 1\n" * 200_000},
     ["list.yaml", "more than 100000 values"]),
    ("kv npy declared beyond the file", ["kv", "stats", "{tmp}/cache"],
     kv_cache(keys=npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 4194304, 2), }")),
     ["keys.npy"]),
    # --- memory budget and ranges (moved from test_bounded_resources.py)
    ("memory budget nan", ["--memory-budget", "nan GB", "list"], {}, ["--memory-budget"]),
    ("memory budget too small", ["--memory-budget", "1 kB", "list"], {}, ["--memory-budget"]),
    ("memory budget a time", ["--memory-budget", "3 s", "list"], {}, ["--memory-budget"]),
    ("memory budget not a size", ["--memory-budget", "lots", "list"], {}, ["--memory-budget"]),
    ("kv generate beyond the memory budget", ["kv", "generate",
     "{src}/configs/kv/qwen2.5-7b.yaml", "--set", "tokens=16777216"], {},
     ["~64 GiB of arrays", "worker thread(s)", "--memory-budget"]),
    ("kv generate beyond a given budget", ["--memory-budget", "1 GB", "kv", "generate",
     "{src}/configs/kv/qwen2.5-7b.yaml", "--set", "tokens=2000000"], {},
     ["~7.63 GiB of arrays", "memory budget of 954 MiB"]),
    ("prefill plan top zero", ["prefill", "plan", "seed_8k", "--top", "0"], {},
     ["--top", "[1, 1024]"]),
    ("prefill plan top negative", ["prefill", "plan", "seed_8k", "--top", "-5"], {},
     ["--top", "[1, 1024]"]),
    ("prefill plan top huge", ["prefill", "plan", "seed_8k", "--top", "2000000"], {},
     ["--top", "[1, 1024]"]),
    # --- sweep names confined to --out (moved from test_bounded_resources.py)
    ("sweep name escapes", ["sweep", "{tmp}/s.yaml"], {"s.yaml": SWEEP.format(name="../../esc")},
     ["s.yaml", "name", "starts with '.'"]),
    ("sweep name with a slash", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": SWEEP.format(name="x/../../esc")}, ["s.yaml", "name", "contains '/'"]),
    ("sweep name absolute", ["sweep", "{tmp}/s.yaml"], {"s.yaml": SWEEP.format(name="/tmp/abs")},
     ["s.yaml", "name", "contains '/'"]),
    ("sweep name empty", ["sweep", "{tmp}/s.yaml"], {"s.yaml": SWEEP.format(name='""')},
     ["s.yaml", "name", "is empty"]),
    ("sweep name hidden", ["sweep", "{tmp}/s.yaml"], {"s.yaml": SWEEP.format(name=".hidden")},
     ["s.yaml", "name", "starts with '.'"]),
    ("sweep name with a space", ["sweep", "{tmp}/s.yaml"], {"s.yaml": SWEEP.format(name="a b")},
     ["s.yaml", "name", "contains ' '"]),
    # --- sweep specs
    ("sweep missing file", ["sweep", "{tmp}/none.yaml"], {}, ["none.yaml"]),
    ("sweep unknown target", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": sub(SWEEP.format(name="g"), "target: prism_cost", "target: warp_drive")},
     ["warp_drive"]),
    ("sweep unknown grid key", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": sub(SWEEP.format(name="g"), "programming.weight_bits", "programming.weight_bitz")},
     ["weight_bitz"]),
    ("sweep grid value out of range", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": sub(SWEEP.format(name="g"), "[4, 5]", "[4, -5]")}, ["s.yaml", "point 1"]),
    ("sweep empty grid values", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": sub(SWEEP.format(name="g"), "[4, 5]", "[]")}, ["values"]),
    # 5 axes x 100 values: 10^10 points were allocated (std::bad_alloc, exit 1).
    ("sweep grid of too many points", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": SWEEP.format(name="g").split("grid:")[0] + "grid:\n" + "".join(
         f"  - key: {key}\n    values: [{', '.join(['4'] * 100)}]\n"
         for key in ("programming.weight_bits", "electronics.rows_per_adc", "device.bank.rows",
                     "logical_rows", "electronics.pipelined"))},
     ["s.yaml", "grid", "more than 10000000 points"]),
    # 10^7 sampled points (the most allowed) under the 1 GiB limit: std::bad_alloc (exit 1)
    # while the points were expanded; their lists are now estimated first (~4.5 GiB).
    ("sweep sample beyond the memory budget", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": SWEEP.format(name="g").split("grid:")[0] + "sample:\n  count: 10000000\n"
      "  keys:\n    - {key: electronics.rows_per_adc, min: \"1\", max: \"8\", integer: true}\n"},
     ["s.yaml", "10000000 points", "memory budget"]),
    # 400 x 300 rows and channels x the 4 candidates of tiny: 480,000 candidates, each kept
    # with its constraints (13 lists of 10 were 10^13, reserved at once).
    ("prism design too many candidates",
     ["prism", "design", "tiny", "--set", "space.rows=[" + ",".join(map(str, range(1, 401))) + "]",
      "--set", "space.dim=[" + ",".join(map(str, range(1, 301))) + "]"], {},
     ["space", "more than 100000 candidates"]),
    ("sweep bad request key", ["sweep", "{tmp}/s.yaml"],
     {"s.yaml": sub(SWEEP.format(name="g"), "drift_duration: 10 ms", "drift_durration: 10 ms")},
     ["drift_durration"]),
    ("sweep bad shard", ["sweep", "{tmp}/s.yaml", "--shard", "3/2"],
     {"s.yaml": SWEEP.format(name="g")}, ["--shard"]),
    ("sweep resume of a torn store", ["sweep", "{tmp}/s.yaml", "--resume", "--out", "{tmp}/o"],
     {"s.yaml": SWEEP.format(name="g"), "o/g.jsonl": "not json\n{}\n"}, ["g.jsonl"]),
    ("sweep export missing store", ["sweep", "export", "{tmp}/none.jsonl", "--csv"], {},
     ["none.jsonl"]),
    ("sweep export not a store", ["sweep", "export", "{tmp}/s.jsonl", "--csv"],
     {"s.jsonl": "{\"x\": 1}\n"}, ["s.jsonl"]),
    ("sweep merge missing shard", ["sweep", "merge", "{tmp}/a.jsonl", "--output",
                                   "{tmp}/m.jsonl"], {}, ["a.jsonl"]),
    # --- more flags of the operations
    ("photonics crosstalk unknown preset", ["photonics", "crosstalk", "no_such_ring"], {},
     ["no_such_ring"]),
    ("photonics link budget negative radius", ["--set", "ring.radius=-3 um", "photonics",
                                               "link-budget", "tfln"], {}, ["ring.radius"]),
    ("photonics feasibility bad channels", ["--set", "grid.channels=0", "photonics",
                                            "feasibility", "tfln"], {}, ["grid.channels"]),
    ("prism montecarlo zero dim", ["prism", "montecarlo", "seed", "--dim", "0"], {}, ["--dim"]),
    ("prism montecarlo one trial", ["prism", "montecarlo", "seed", "--trials", "1"], {},
     ["--trials"]),
    ("prism montecarlo top-k above rows", ["prism", "montecarlo", "seed", "--rows", "4",
                                           "--top-k", "8"], {}, ["top_k"]),
    ("prism montecarlo nan noise", ["prism", "montecarlo", "seed", "--weight-noise", "nan"], {},
     ["--weight-noise"]),
    ("prism montecarlo bits not a number", ["prism", "montecarlo", "seed", "--bits", "four"], {},
     ["--bits"]),
    ("prism cost negative drift", ["prism", "cost", "seed", "--drift-duration", "-1 s"], {},
     ["--drift-duration"]),
    ("prism cost drift wrong unit", ["prism", "cost", "seed", "--drift-duration", "1 m"], {},
     ["--drift-duration"]),
    ("prism timeline unknown accelerator", ["prism", "timeline", "no_such_acc"], {},
     ["no_such_acc"]),
    ("prism thermal duration out of range", ["prism", "thermal", "seed", "--duration", "1e9 s",
                                             "--recall-tokens", "0"], {},
     ["--duration", "out of range"]),
    ("prism thermal too many samples", ["prism", "thermal", "seed", "--duration", "1e5 s",
                                        "--trace-interval", "1 ms", "--recall-tokens", "0"], {},
     ["samples", "at most 1e+07"]),
    ("prism thermal load step wrong unit", ["prism", "thermal", "seed", "--load-step", "3 s"],
     {}, ["--load-step"]),
    ("prism thermal missing thermal file", ["prism", "thermal", "seed", "--thermal",
                                            "{tmp}/t.yaml"], {}, ["t.yaml"]),
    ("prism calibrate unknown accelerator", ["prism", "calibrate", "nope_acc"], {},
     ["nope_acc"]),
    ("fabric collective zero gpus", ["fabric", "collective", "--fabric", "dgx_h100", "--gpus",
                                     "0"], {}, ["--gpus"]),
    ("fabric collective nan bytes", ["fabric", "collective", "--fabric", "dgx_h100", "--bytes",
                                     "nan B"], {}, ["--bytes"]),
    ("fabric expert ep one", ["fabric", "expert", "--fabric", "dgx_h100", "--ep", "1"], {},
     ["--ep"]),
    ("fabric expert zero tokens", ["fabric", "expert", "--fabric", "dgx_h100", "--tokens", "0"],
     {}, ["--tokens"]),
    ("fabric expert bad mode", ["fabric", "expert", "--fabric", "dgx_h100", "--mode", "turbo"],
     {}, ["turbo"]),
    ("fabric kernels unknown gpu", ["fabric", "kernels", "h9000"], {}, ["h9000"]),
    ("fabric design unknown", ["fabric", "design", "no_such_design"], {}, ["no_such_design"]),
    ("fabric design negative reach", ["fabric", "design", "{tmp}/d.yaml"],
     {"d.yaml": sub(DESIGN, "reach: 1 m", "reach: -1 m")}, ["reach"]),
    ("decode step unknown scenario", ["decode", "step", "no_such_decode"], {},
     ["no_such_decode"]),
    ("decode step negative batch", ["decode", "step", "qwen2_5_7b_h100", "--batch", "-1"], {},
     ["--batch"]),
    ("decode step bad plan", ["decode", "step", "qwen2_5_7b_h100", "--plan", "TP=x"], {},
     ["TP"]),
    ("decode plan too many gpus", ["decode", "plan", "qwen2_5_7b_h100", "--gpus", "99999999"],
     {}, ["--gpus"]),
    ("decode scenario bad target", ["decode", "plan", "{tmp}/d.yaml"],
     {"d.yaml": sub(DECODE_SCALE, "tpot_target: 20 ms", "tpot_target: 20 kg")},
     ["tpot_target"]),
    ("decode run unknown scenario", ["decode", "run", "no_such_run"], {}, ["no_such_run"]),
    ("serve run unknown scenario", ["serve", "run", "no_such_serve"], {}, ["no_such_serve"]),
    ("serve run negative rate", ["serve", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SERVE, "rate: 1500 Hz", "rate: -1500 Hz")}, ["rate"]),
    ("serve run bad mode", ["serve", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SERVE, "mode: colocated", "mode: scattered")}, ["scattered"]),
    ("serve run negative requests", ["serve", "run", "{tmp}/s.yaml"],
     {"s.yaml": sub(SERVE, "requests: 20000", "requests: -1")}, ["requests"]),
    ("prefill mixed zero gpus", ["prefill", "mixed", "seed_8k", "seed_8k", "--gpus", "0"], {},
     ["--gpus"]),
    ("prefill crossover unknown model", ["prefill", "crossover", "no_such_model"], {},
     ["no_such_model"]),
    ("prefill run gpus huge", ["prefill", "run", "seed_8k", "--gpus", "99999999999"], {},
     ["--gpus"]),
    ("prefill plan gpus zero", ["prefill", "plan", "seed_8k", "--gpus", "0"], {}, ["--gpus"]),
    ("model show zero sequences", ["model", "show", "{src}/configs/models/llama3_8b.json",
                                   "--sequences", "0"], {}, ["--sequences"]),
    ("model show bad mla form", ["model", "show", "{src}/configs/models/llama3_8b.json",
                                 "--mla-form", "folded"], {}, ["folded"]),
    ("kv calibrate unknown profile", ["kv", "calibrate", "no_such_profile"], {},
     ["no_such_profile"]),
    ("kv fit missing cache", ["kv", "fit", "{tmp}/nocache"], {}, ["nocache"]),
    ("kv fit zero evaluations", ["kv", "fit", "{tmp}/cache", "--max-evaluations", "0"],
     kv_cache(), ["--max-evaluations"]),
    ("kv fit unknown knob", ["kv", "fit", "{tmp}/cache", "--knobs", "warp_factor"], kv_cache(),
     ["warp_factor"]),
    ("kv select zero nprobe", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                               "faiss_ivfpq", "--nprobe", "0"], kv_cache(),
     ["--nprobe", "scorer_options.nprobe", "out of range"]),
    ("kv select zero pq-m", ["kv", "select", "--cache", "{tmp}/cache", "--scorer", "faiss_ivfpq",
                             "--pq-m", "0"], kv_cache(), ["--pq-m", "pq_m"]),
    ("kv select pq-m not dividing", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                     "faiss_ivfpq", "--pq-m", "3"], kv_cache(),
     ["(--pq-m): 3 does not divide this cache's head_dim 2", "allowed: 1, 2"]),
    # Options whose range depends on the cache (4 tokens, head_dim 2, one block of 128).
    ("kv select nlist above the tokens", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                          "faiss_ivfpq", "--pq-m", "2", "--nlist", "5"],
     kv_cache(), ["(--nlist): 5 is out of range [0, 4] for this cache"]),
    ("kv select nprobe above nlist", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                      "faiss_ivfpq", "--pq-m", "2", "--nlist", "2",
                                      "--nprobe", "3"], kv_cache(),
     ["(--nprobe): 3 is out of range [1, 2]"]),
    ("kv select pq-nbits above the tokens", ["kv", "select", "--cache", "{tmp}/cache",
                                             "--scorer", "faiss_ivfpq", "--pq-m", "2",
                                             "--pq-nbits", "3"], kv_cache(),
     ["(--pq-nbits): 3 is out of range [1, 2]"]),
    ("kv select default pq-m not dividing", ["kv", "select", "--cache", "{tmp}/cache",
                                             "--scorer", "faiss_ivfpq"], kv_cache(),
     ["faiss_ivfpq pq_m (default): 16 does not divide"]),
    ("kv select k above the blocks", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                      "exact", "--k", "2"], kv_cache(),
     ["k (--k): 2 is out of range [1, 1]", "(--block)"]),
    ("kv select nlist huge", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                              "faiss_ivfpq", "--nlist", "100000000"], kv_cache(), ["nlist"]),
    ("kv select zero dim", ["kv", "select", "--cache", "{tmp}/cache", "--scorer", "signature",
                            "--dim", "0"], kv_cache(), ["dim"]),
    ("kv select dim above head_dim", ["kv", "select", "--cache", "{tmp}/cache", "--scorer",
                                      "signature", "--dim", "3"], kv_cache(),
     ["(--dim): 3 is out of range [1, 2]", "head_dim"]),
    ("kv select zero block", ["kv", "select", "--cache", "{tmp}/cache", "--block", "0"],
     kv_cache(), ["--block"]),
    ("kv select negative recent", ["kv", "select", "--cache", "{tmp}/cache", "--recent", "-1"],
     kv_cache(), ["--recent"]),
    ("kv select huge sink", ["kv", "select", "--cache", "{tmp}/cache", "--sink", "99999999999"],
     kv_cache(), ["--sink"]),
    ("kv select nan kv-bytes json", ["kv", "select", "--cache", "{tmp}/cache", "--kv-bytes",
                                     "nan", "--json"], kv_cache(), ["--kv-bytes", "finite"]),
    ("kv select negative budget", ["kv", "select", "--cache", "{tmp}/cache", "--budget-bytes",
                                   "-4"], kv_cache(), ["--budget-bytes"]),
    ("kv select unknown scorer option", ["kv", "select", "--cache", "{tmp}/cache",
                                         "--scorer-options", "warp=1"], kv_cache(), ["warp"]),
    ("kv select missing cache", ["kv", "select", "--cache", "{tmp}/nocache"], {}, ["nocache"]),
    ("kv select scorer file of another kind", ["kv", "select", "--cache", "{tmp}/cache",
                                               "--scorer", "{tmp}/f.yaml"],
     {**kv_cache(), "f.yaml": FABRIC}, ["f.yaml"]),
    ("kv stats zero recent", ["kv", "stats", "{tmp}/cache", "--recent", "-3"], kv_cache(),
     ["--recent"]),
    ("kv generate fifo config", ["kv", "generate", "{tmp}/k.yaml"], {"k.yaml": FIFO()},
     ["k.yaml", "FIFO"]),
    ("kv generate unknown key", ["kv", "generate", "{tmp}/k.yaml"],
     {"k.yaml": KV_TINY + "warp: 1\n"}, ["warp"]),
    ("kv generate set unknown key", ["kv", "generate", "{tmp}/k.yaml", "--set", "tokenz=5"],
     {"k.yaml": KV_TINY}, ["tokenz"]),
    # --- study, reproduce, report, list
    ("study run bad size flags", ["study", "run", "decode", "--quick", "--full"], {},
     ["quick and full"]),
    ("study run missing config", ["study", "run", "decode", "--config", "{tmp}/none.yaml"], {},
     ["none.yaml"]),
    ("study run set unknown key", ["study", "run", "decode", "--quick", "--set",
                                   "no_such_key=1"], {}, ["no_such_key"]),
    ("study run config of another kind", ["study", "run", "decode", "--config", "{tmp}/f.yaml"],
     {"f.yaml": FABRIC}, ["f.yaml"]),
    # Studies estimate their largest arrays (the generated KV cache) before --out is touched.
    ("study run context beyond the memory budget", ["study", "run", "context", "--set",
     "contexts=[4096, 2097152]"], {},
     ["context.yaml", "contexts (longest 2097152 tokens)", "~8 GiB of arrays", "memory budget"]),
    ("study run needle beyond the memory budget", ["study", "run", "needle", "--quick", "--set",
     "contexts=[2097152]"], {}, ["needle.yaml", "contexts (longest 2097152 tokens)",
                                 "memory budget"]),
    ("study run energy beyond the memory budget", ["study", "run", "energy", "--set",
     "contexts=[16777216]", "--set", "faiss_max_context=16777216"], {},
     ["energy.yaml", "contexts (longest 16777216 tokens)", "memory budget"]),
    ("study run impairments beyond the memory budget", ["study", "run", "impairments", "--set",
     "workload.tokens=16777216"], {}, ["impairments.yaml", "workload:", "16777216 tokens",
                                       "memory budget"]),
    ("study run enhancement beyond the memory budget", ["study", "run", "enhancement", "--set",
     "workload.tokens=16777216"], {}, ["enhancement.yaml", "workload:", "memory budget"]),
    ("study run balanced beyond the memory budget", ["study", "run", "balanced", "--full",
     "--set", "workload.tokens=16777216"], {}, ["balanced.yaml", "workload:", "memory budget"]),
    ("study run prism_design beyond the memory budget", ["study", "run", "prism_design",
     "--set", "design.workload.tokens=16777216"], {},
     ["prism_design.yaml", "design.workload:", "memory budget"]),
    ("study run rejudge beyond the memory budget", ["study", "run", "rejudge", "--set",
     "studies=[{{study: context, set: ['contexts=[2097152]']}}]"], {},
     ["context.yaml", "contexts (longest 2097152 tokens)", "memory budget"]),
    ("reproduce beyond the memory budget", ["reproduce", "--set", "contexts=[2097152]"], {},
     ["contexts (longest 2097152 tokens)", "memory budget"]),
    ("prism design beyond the memory budget", ["prism", "design", "qwen-128k", "--set",
     "workload.tokens=16777216"], {}, ["16777216 tokens", "memory budget"]),
    ("reproduce second document", ["reproduce", "{tmp}/r.yaml"],
     {"r.yaml": "schema_version: 1\nkind: reproduce\n---\nsize: quick\n"},
     ["r.yaml", "second YAML document"]),
    ("report not a folder", ["report", "{tmp}/x.json"], {"x.json": "{}"}, ["x.json"]),
    ("report result of a wrong kind", ["report", "{tmp}/res"],
     {"res/x.json": '{"kind": "other"}'}, ["x.json"]),
    ("global out under a file", ["prism", "thermal", "seed", "--duration", "10 ms",
                                 "--recall-tokens", "0", "--out", "{tmp}/file/sub"],
     {"file": "x"}, ["file/sub"]),
    ("missing config-path folder", ["--config-path", "{tmp}/nowhere", "photonics", "ring",
                                    "tfln"], {}, ["--config-path", "nowhere"]),
    ("config-path is a file", ["--config-path", "{tmp}/f", "photonics", "ring", "tfln"],
     {"f": "x"}, ["--config-path", "not a folder"]),
]

# (id, Python statement, files, documented exception class, fragments of its message). The
# statement sees `lightsim`, `np` (NumPy), `tmp`, `out` and `src` (str paths), `keys` (600 x 16)
# and `queries` (2 x 3 x 16), float32.
PY_CASES = [
    ("load_config missing file", "lightsim.load_config(tmp + '/none.yaml')", {}, "InputError",
     ["none.yaml"]),
    ("load_config empty text", "lightsim.load_config('')", {}, "InputError", []),
    ("load_config unknown kind", "lightsim.load_config({'kind': 'warp_drive'})", {},
     "InputError", ["warp_drive"]),
    ("load_config kind mismatch", "lightsim.load_config(src + '/configs/accelerators/seed.yaml',"
     " kind='ring')", {}, "InputError", ["expected a 'ring' config"]),
    ("load_config unknown key", "lightsim.load_config({'preset': 'seed', 'logical_rowz': 3},"
     " kind='accelerator')", {}, "ConfigError", ["logical_rowz", "did you mean"]),
    ("load_config wrong unit", "lightsim.load_config({'preset': 'seed', 'selection':"
     " {'mac_delay': '3 kg'}}, kind='accelerator')", {}, "UnitError", ["mac_delay"]),
    ("load_config inf", "lightsim.load_config({'preset': 'seed', 'logical_rows':"
     " float('inf')}, kind='accelerator')", {}, "InputError", ["finite"]),
    ("load_config huge integer", "lightsim.load_config({'preset': 'seed', 'logical_rows':"
     " 10**30}, kind='accelerator')", {}, "InputError", ["logical_rows"]),
    ("load_config list in a cycle", "l = []; l.append(l); lightsim.load_config({'kind': 'ring',"
     " 'x': l})", {}, "InputError", ["contains itself"]),
    ("load_config deep nesting", "d = {}\nfor _ in range(500): d = {'a': d}\n"
     "lightsim.load_config({'kind': 'ring', 'ring': d})", {}, "InputError", ["re:deep|nest"]),
    ("load_config object value", "lightsim.load_config({'kind': 'ring', 'ring': object()})", {},
     "InputError", ["ring"]),
    ("load_config second document", "lightsim.load_config('kind: ring\\n---\\nkind: ring\\n')",
     {}, "InputError", ["second YAML document"]),
    ("load_config binary file", "lightsim.load_config(tmp + '/g.yaml')",
     {"g.yaml": b"\x00\xff\xfe\x01kind\x00"}, "InputError", ["g.yaml"]),
    ("load_config fifo", "lightsim.load_config(tmp + '/f.yaml')", {"f.yaml": FIFO()},
     "InputError", ["f.yaml", "FIFO"]),
    ("load_config dev zero", "lightsim.load_config(tmp + '/z.yaml')",
     {"z.yaml": LINK("/dev/zero")}, "InputError", ["z.yaml", "character device"]),
    ("load_config set unknown key", "lightsim.load_config('seed', kind='accelerator',"
     " set={'logical_rowz': 1})", {}, "UsageError", ["logical_rowz"]),
    ("load_config set bad value", "lightsim.load_config('seed', kind='accelerator',"
     " set={'logical_rows': 'many'})", {}, "InputError", ["logical_rows"]),
    ("load_config missing config_path", "lightsim.load_config('seed', kind='accelerator',"
     " config_path=tmp + '/nowhere')", {}, "InputError", ["config_path", "nowhere"]),
    ("score unknown scorer", "lightsim.score('exakt', keys, queries)", {}, "InputError",
     ["did you mean 'exact'"]),
    ("score head_dim mismatch", "lightsim.score('exact', keys, queries[:, :, :8])", {},
     "InputError", ["head_dim"]),
    ("score nan key", "k = keys.copy(); k[3, 1] = np.nan; lightsim.score('exact', k, queries)",
     {}, "InputError", ["keys"]),
    ("score inf query", "q = queries.copy(); q[0, 0, 0] = np.inf; "
     "lightsim.score('exact', keys, q)", {}, "InputError", ["queries"]),
    ("score one-dimensional keys", "lightsim.score('exact', keys[0], queries)", {},
     "InputError", ["keys"]),
    ("score no tokens", "lightsim.score('exact', keys[:0], queries)", {}, "InputError",
     ["keys"]),
    ("score zero block", "lightsim.score('exact', keys, queries, block_tokens=0)", {},
     "InputError", ["block size"]),
    # A count of a native function's signature given a negative number: pybind11's TypeError
    # naming the signature (docs/python.md, "Errors").
    ("score negative sink", "lightsim.score('exact', keys, queries, sink_tokens=-1)", {},
     "TypeError", ["sink_tokens: int"]),
    ("score dim above head_dim", "lightsim.score('signature', keys, queries, dim=64)", {},
     "InputError", ["64 is out of range", "head_dim"]),
    ("score pq_m not dividing", "lightsim.score('faiss_ivfpq', keys, queries,"
     " options={'pq_m': 5})", {}, "UsageError", ["options['pq_m']", "does not divide"]),
    ("evaluate_kv k above the blocks", "lightsim.evaluate_kv(tmp + '/cache', ['exact'], ks=[2])",
     kv_cache(), "UsageError", ["k (--k)", "[1, 1]"]),
    ("evaluate_kv nlist above the tokens", "lightsim.evaluate_kv(tmp + '/cache',"
     " ['faiss_ivfpq'], options={'pq_m': 2, 'nlist': 9})", kv_cache(), "UsageError",
     ["nlist", "[0, 4]"]),
    ("score unknown projection", "lightsim.score('signature', keys, queries,"
     " projection='telepathy')", {}, "InputError", ["telepathy"]),
    ("score unknown option", "lightsim.score('faiss_ivfpq', keys, queries,"
     " options={'nlistt': 4})", {}, "InputError", ["nlistt"]),
    ("score prism without accelerator", "lightsim.score('prism', keys, queries)", {},
     "InputError", ["accelerator"]),
    ("generate_kv unknown profile", "lightsim.generate_kv('no_such_profile')", {},
     "InputError", ["no_such_profile"]),
    ("generate_kv zero tokens", "lightsim.generate_kv('llama-3-8b', set={'tokens': 0})", {},
     "InputError", ["tokens"]),
    ("generate_kv beyond the memory budget", "lightsim.generate_kv('qwen2.5-7b',"
     " set={'tokens': 16777216})", {}, "InputError", ["~64 GiB of arrays"]),
    ("generate_kv too many threads", "lightsim.generate_kv('llama-3-8b', threads=100000)", {},
     "InputError", ["threads"]),
    ("evaluate_kv missing cache", "lightsim.evaluate_kv(tmp + '/nocache', ['exact'])", {},
     "InputError", ["nocache"]),
    ("evaluate_kv zero k", "lightsim.evaluate_kv(tmp + '/cache', ['exact'], ks=[0])",
     kv_cache(), "InputError", ["k"]),
    ("evaluate_kv nan kv_bytes", "lightsim.evaluate_kv(tmp + '/cache', ['exact'],"
     " kv_bytes=float('nan'))", kv_cache(), "InputError", ["kv_bytes"]),
    ("evaluate_kv no scorers", "lightsim.evaluate_kv(tmp + '/cache', [])", kv_cache(),
     "InputError", ["scorer"]),
    ("evaluate_kv mixed cache", "lightsim.evaluate_kv(tmp + '/cache', ['exact'])",
     kv_cache(manifest=sub(MANIFEST, '"needles": []', '"needles": [], "hashes": {"keys": '
                           '"fnv1a64:0000000000000000", "values": "fnv1a64:0000000000000000",'
                           ' "queries": "fnv1a64:0000000000000000"}')),
     "InputError", ["keys.npy", "content hash"]),
    ("prefill_evaluate unknown scenario", "lightsim.prefill_evaluate('no_such', 'TP=1')", {},
     "InputError", ["no_such"]),
    ("prefill_evaluate bad plan key", "lightsim.prefill_evaluate('seed_8k', 'TQ=1', gpus=8)",
     {}, "InputError", ["TQ"]),
    ("prefill_evaluate zero gpus", "lightsim.prefill_evaluate('seed_8k', 'TP=1', gpus=0)", {},
     "InputError", ["gpus"]),
    ("prefill_evaluate unknown fabric", "lightsim.prefill_evaluate('seed_8k', 'TP=1,EP=8',"
     " gpus=8, fabric='warp')", {}, "InputError", ["warp"]),
    ("run_study unknown", "lightsim.run_study('no_such_study')", {}, "InputError",
     ["no_such_study"]),
    ("run_study bad size", "lightsim.run_study('decode', size='huge')", {}, "InputError",
     ["quick, default or full"]),
    ("run_study set unknown key", "lightsim.run_study('decode', size='quick',"
     " set={'no_such_key': 1})", {}, "InputError", ["no_such_key"]),
    ("run_study missing config", "lightsim.run_study('decode', config=tmp + '/none.yaml')", {},
     "InputError", ["none.yaml"]),
    ("run_study beyond the memory budget", "lightsim.run_study('context', size='quick',"
     " set={'contexts': [2097152]})", {}, "InputError",
     ["contexts (longest 2097152 tokens)", "memory budget"]),
    ("run unknown operation", "lightsim.run('no_such_op')", {}, "InputError", ["no_such_op"]),
    ("run unknown argument", "lightsim.run('prism_cost', accelerator='seed', bogus=1)", {},
     "InputError", ["bogus"]),
    ("photonics_ring unknown preset", "lightsim.photonics_ring('no_such_device')", {},
     "InputError", ["no_such_device"]),
    ("photonics_ring bad set", "lightsim.photonics_ring('tfln', set={'ring.radius': '3 GHz'})",
     {}, "UnitError", ["ring.radius"]),
    ("prism_montecarlo zero dim", "lightsim.prism_montecarlo('seed', dim=0)", {}, "InputError",
     ["dim"]),
    ("prism_montecarlo nan noise", "lightsim.prism_montecarlo('seed',"
     " weight_noise=[float('nan')])", {}, "InputError", ["weight_noise"]),
    ("prism_montecarlo no bits", "lightsim.prism_montecarlo('seed', bits=[])", {},
     "InputError", ["bits"]),
    ("prism_cost negative drift", "lightsim.prism_cost('seed', drift_duration='-1 s')", {},
     "InputError", ["drift_duration"]),
    ("prism_thermal duration out of range", "lightsim.prism_thermal('seed', duration='1e9 s',"
     " recall_tokens=0, out=out)", {}, "InputError", ["duration", "out of range"]),
    ("prism_thermal wrong unit", "lightsim.prism_thermal('seed', duration='5 kg', out=out)", {},
     "UnitError", ["duration"]),
    ("fabric_collective negative bytes", "lightsim.fabric_collective(fabric='dgx_h100',"
     " bytes='-5 MiB')", {}, "InputError", ["bytes"]),
    ("fabric_expert ep one", "lightsim.fabric_expert(fabric='dgx_h100', ep=1)", {},
     "InputError", ["ep"]),
    ("decode_step negative batch", "lightsim.decode_step('qwen2_5_7b_h100', batch=-1)", {},
     "InputError", ["batch"]),
    ("decode_plan too many gpus", "lightsim.decode_plan('qwen2_5_7b_h100', gpus=2**40)", {},
     "InputError", ["gpus"]),
    ("serve_run unknown scenario", "lightsim.serve_run('no_such_serve')", {}, "InputError",
     ["no_such_serve"]),
    ("model_show bad file", "lightsim.model_show(tmp + '/m.json')", {"m.json": "[1, 2]"},
     "InputError", ["m.json"]),
    ("prefill_plan top zero", "lightsim.prefill_plan('seed_8k', top=0)", {}, "InputError",
     ["top"]),
    ("prefill_plan gpus huge", "lightsim.prefill_plan('seed_8k', gpus=[2**40])", {},
     "InputError", ["gpus"]),
    ("kv_stats missing cache", "lightsim.kv_stats(tmp + '/nocache')", {}, "InputError",
     ["nocache"]),
    ("kv_select zero k", "lightsim.kv_select(cache=tmp + '/cache', k=[0])", kv_cache(),
     "InputError", ["k"]),
    ("kv_generate out under a file", "lightsim.kv_generate(tmp + '/k.yaml', out=tmp + '/f/o')",
     {"k.yaml": KV_TINY, "f": "x"}, "InputError", ["f/o"]),
    ("run_json unknown argument", "lightsim.run_json('fabric_show', fabric='dgx_h100', x=1)",
     {}, "InputError", ["x"]),
    ("operation threads negative", "lightsim.prism_cost('seed', threads=-1)", {}, "InputError",
     ["threads"]),
    ("operation progress not a flag", "lightsim.prism_cost('seed', progress='yes')", {},
     "InputError", ["progress"]),
    ("generate_kv profile name with a dot", "lightsim.generate_kv('qwen2.5-7b',"
     " set={'tokens': 0})", {}, "InputError", ["tokens"]),
    ("kv_fit zero evaluations", "lightsim.kv_fit(tmp + '/cache', max_evaluations=0, out=out)",
     kv_cache(), "InputError", ["max_evaluations"]),
    ("study_run quick and full", "lightsim.study_run('decode', quick=True, full=True)", {},
     "InputError", ["quick and full"]),
    ("study_run too many threads", "lightsim.study_run('decode', quick=True, threads=100000)",
     {}, "InputError", ["threads"]),
    ("operation seed negative", "lightsim.prism_cost('seed', seed=-1)", {}, "InputError",
     ["seed"]),
]


def materialize(folder, files):
    """Writes each file of a case below `folder` (str/bytes contents, or a special file)."""
    for path, content in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, LINK):
            target.symlink_to(str(content))
        elif isinstance(content, FIFO):
            os.mkfifo(target)
        elif isinstance(content, SPARSE):
            with open(target, "wb") as f:
                f.truncate(int(content))
        elif isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)


def listing(folder):
    """Every file below `folder`. Empty folders (an --out made before the error) and a sweep
    store's lock file (`<name>.jsonl.lock`, kept by design: docs/hardening.md) are allowed."""
    found = set()
    for root, _, names in os.walk(folder):
        found.update(os.path.relpath(os.path.join(root, n), folder) for n in names
                     if not n.endswith(".jsonl.lock"))
    return found


def limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    resource.setrlimit(resource.RLIMIT_CPU, (int(SECONDS) + 1, int(SECONDS) + 1))


def cpu_seconds(usage):
    return usage.ru_utime + usage.ru_stime


def run_cli_case(job):
    """Runs one CLI case in its own folder; returns what the checks need."""
    index, folder = job
    name, argv, files, fragments = CLI_CASES[index]
    folder = Path(folder)
    materialize(folder, files)
    fill = {"tmp": str(folder), "src": str(SOURCE), "out": str(folder / "out")}
    args = [a.format(**fill) for a in argv]
    if "--out" not in args:
        args += ["--out", fill["out"]]
    before = listing(folder)
    # This worker runs one child at a time: the growth of its children's usage is this one's.
    used = cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN))
    try:
        proc = subprocess.run([BIN, *args, "-q"], capture_output=True, timeout=HANG_SECONDS,
                              stdin=subprocess.DEVNULL, cwd=folder, preexec_fn=limit_resources)
    except subprocess.TimeoutExpired:
        return {"failure": f"no answer within {HANG_SECONDS} s (a hang)"}
    seconds = cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN)) - used
    return {"code": proc.returncode, "err": proc.stderr.decode(errors="replace"),
            "seconds": seconds, "left": sorted(listing(folder) - before), "fill": fill}


_lightsim = None


def import_lightsim():
    """Imported once per worker, before the fork of each case (1 s saved per case)."""
    global _lightsim
    if _lightsim is None:
        try:
            import numpy
            import lightsim
            _lightsim = (lightsim, numpy)
        except ImportError as e:
            _lightsim = e
    return _lightsim


def py_child(code, fill, write_end):
    """In the forked child: the call under the limits; reports the exception it raised."""
    outcome = {"raised": None}
    try:
        limit_resources()
        lightsim, np = import_lightsim()
        rng = np.random.default_rng(0)
        scope = {"lightsim": lightsim, "np": np, **fill,
                 "keys": rng.standard_normal((600, 16)).astype(np.float32),
                 "queries": rng.standard_normal((2, 3, 16)).astype(np.float32)}
        exec(code, scope)
    except BaseException as e:  # noqa: B902 (every exception is reported, none escapes)
        outcome = {"raised": type(e).__name__, "module": type(e).__module__,
                   "classes": [c.__name__ for c in type(e).__mro__], "message": str(e)}
    os.write(write_end, json.dumps(outcome).encode())
    os._exit(0)


def run_py_case(job):
    index, folder = job
    name, code, files, expected, fragments = PY_CASES[index]
    folder = Path(folder)
    loaded = import_lightsim()
    if isinstance(loaded, Exception):
        return {"skip": f"the Python module is not importable: {loaded}"}
    materialize(folder, files)
    fill = {"tmp": str(folder), "src": str(SOURCE), "out": str(folder / "out")}
    before = listing(folder)
    read_end, write_end = os.pipe()
    started = time.monotonic()
    pid = os.fork()  # the child's CPU time counts from here (the import was before)
    if pid == 0:
        os.close(read_end)
        py_child(code, fill, write_end)
    os.close(write_end)
    data = b""
    while True:
        left = HANG_SECONDS - (time.monotonic() - started)
        ready, _, _ = select.select([read_end], [], [], max(left, 0))
        if not ready:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(read_end)
            return {"failure": f"no answer within {HANG_SECONDS} s (a hang)"}
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(read_end)
    _, status, usage = os.wait4(pid, 0)
    seconds = cpu_seconds(usage)
    if os.WIFSIGNALED(status):
        return {"failure": f"the interpreter died of signal {os.WTERMSIG(status)} (a crash)"}
    return {"outcome": json.loads(data) if data else None, "seconds": seconds,
            "left": sorted(listing(folder) - before), "fill": fill}


def run_job(job):
    kind, index, folder = job
    return (run_cli_case if kind == "cli" else run_py_case)((index, folder))


def fragment_found(fragment, text):
    if fragment.startswith("re:"):
        return re.search(fragment[3:], text) is not None
    return fragment in text


class MalformedInputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory(prefix="lightsim-malformed-")
        root = Path(cls._tmp.name)
        jobs = [("cli", i, str(root / f"cli{i:03d}")) for i in range(len(CLI_CASES))]
        jobs += [("py", i, str(root / f"py{i:03d}")) for i in range(len(PY_CASES))]
        for _, _, folder in jobs:
            os.mkdir(folder)
        started = time.monotonic()
        # Forked workers that have not imported lightsim yet; each imports it once.
        with multiprocessing.get_context("fork").Pool(max(2, os.cpu_count() or 2)) as pool:
            results = pool.map(run_job, jobs, chunksize=1)
        cls.seconds = time.monotonic() - started
        cls.cli = results[:len(CLI_CASES)]
        cls.py = results[len(CLI_CASES):]

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def test_table_is_large_enough(self):
        print(f"{len(CLI_CASES)} CLI and {len(PY_CASES)} Python cases in {self.seconds:.1f} s")
        names = [c[0] for c in CLI_CASES] + [c[0] for c in PY_CASES]
        self.assertEqual(len(set(names)), len(names), "duplicate ids")
        self.assertGreaterEqual(len(names), MIN_CASES)

    def assertClean(self, r):
        self.assertNotIn("failure", r, r.get("failure"))
        self.assertLess(r["seconds"], SECONDS, "CPU seconds")
        self.assertEqual(r["left"], [], "files left behind")

    def test_every_cli_case_is_an_input_error_naming_the_culprit(self):
        for (name, _, _, fragments), r in zip(CLI_CASES, self.cli):
            with self.subTest(name):
                self.assertClean(r)
                report = f"exit {r['code']}, stderr:\n{r['err']}"
                self.assertEqual(r["code"], 2, report)
                lines = r["err"].strip().splitlines()
                self.assertEqual(len(lines), 1, report)
                self.assertTrue(lines[0].startswith("lightsim: error: "), report)
                for fragment in fragments:
                    self.assertTrue(fragment_found(fragment.format(**r["fill"]), lines[0]),
                                    f"{fragment!r} not in: {lines[0]}")

    def test_every_python_case_raises_a_documented_exception(self):
        for (name, _, _, expected, fragments), r in zip(PY_CASES, self.py):
            with self.subTest(name):
                if "skip" in r:
                    self.skipTest(r["skip"])
                self.assertClean(r)
                o = r["outcome"]
                self.assertIsNotNone(o["raised"], "no exception")
                self.assertTrue(o["module"].startswith("lightsim") or expected == "TypeError", o)
                self.assertIn(expected, o["classes"], o)
                for fragment in fragments:
                    self.assertTrue(fragment_found(fragment.format(**r["fill"]), o["message"]),
                                    f"{fragment!r} not in: {o['message']}")


if __name__ == "__main__":
    unittest.main()

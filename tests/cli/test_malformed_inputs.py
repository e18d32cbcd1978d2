"""Malformed input, table-driven: every command that reads user input must reject bad input
with exit code 2 and one error line naming the offending key or file (issue 10, part 5).

Each case: an id, the command line ({tmp} is the scratch folder), the files to write there
first, and the fragments the one stderr line must contain. Add a row when a command is added.
"""
import unittest

import subprocess

from clitest import BIN, CliTest, Result, SOURCE

DEVICE = (SOURCE / "configs/devices/tfln.yaml").read_text()
MODEL = (SOURCE / "configs/models/llama3_8b.json").read_text()
SCENARIO = (SOURCE / "configs/scenarios/seed_8k.yaml").read_text()
FABRIC = (SOURCE / "configs/fabrics/dgx_h100.yaml").read_text()
ACCELERATOR = (SOURCE / "configs/accelerators/seed.yaml").read_text()

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


# (id, argv, files, fragments of the error line)
CASES = [
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
]


def run(*args):
    """Like clitest.run, but an error line quoting a non-UTF-8 input byte still decodes."""
    proc = subprocess.run([BIN, *map(str, args)], capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    proc.stdout = proc.stdout.decode(errors="replace")
    proc.stderr = proc.stderr.decode(errors="replace")
    return Result(proc)


class MalformedInputs(CliTest):
    def test_table_is_large_enough(self):
        self.assertGreaterEqual(len(CASES), 50)
        self.assertEqual(len({case[0] for case in CASES}), len(CASES), "duplicate ids")

    def test_every_case_is_an_input_error_naming_the_culprit(self):
        for name, argv, files, fragments in CASES:
            with self.subTest(name):
                for path, content in files.items():
                    target = self.tmp / path
                    target.parent.mkdir(parents=True, exist_ok=True)
                    if isinstance(content, bytes):
                        target.write_bytes(content)
                    else:
                        target.write_text(content)
                fill = {"tmp": str(self.tmp), "src": str(SOURCE)}
                args = [a.format(**fill) for a in argv]
                result = run(*args, "-q")
                self.assertInputError(result, *[f.format(**fill) for f in fragments])
                for path in files:
                    (self.tmp / path).unlink()


if __name__ == "__main__":
    unittest.main()

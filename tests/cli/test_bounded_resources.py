"""Bounded resources, whole-cache atomicity and a confined, locked sweep store (issue 24,
docs/hardening.md "Limits").

Every reader refuses a file that is not a regular file (a device such as /dev/zero, a FIFO, a
folder) or larger than its stated cap before reading it; commands that allocate in proportion
to their input estimate the memory first and refuse beyond --memory-budget; a sweep store is
locked against a second writer and its name cannot leave --out. Each test is a reproduction
that once crashed, hung, exhausted memory or wrote outside --out. The cases that are one
command failing with exit 2 (special files, size caps, --memory-budget, --top, sweep names)
are rows of test_malformed_inputs.py.
"""
import fcntl
import resource
import signal
import subprocess
import time
import unittest

from clitest import BIN, CliTest, Result, SOURCE, SWEEP

# Each command below must fail within this many seconds and this much memory.
SECONDS = 10
MEMORY_BYTES = 1 << 30

def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (4 * MEMORY_BYTES, 4 * MEMORY_BYTES))


def run_bounded(*args):
    """Runs lightsim -q under a 4 GiB address-space limit; reports peak RSS in `rss`."""
    proc = subprocess.run([BIN, "-q", *map(str, args)], capture_output=True, text=True,
                          timeout=SECONDS, stdin=subprocess.DEVNULL, preexec_fn=limit_memory)
    result = Result(proc)
    return result


def npy_header(shape):
    dims = ", ".join(str(n) for n in shape)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    head = header.encode() + b" " * (63 - (10 + len(header)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + len(head).to_bytes(2, "little") + head


class MemoryBudget(CliTest):
    def test_a_sparse_cache_beyond_the_budget_is_refused_before_reading(self):
        # keys.npy and values.npy of [1, 1, 2^23, 128] float32: 4 GiB each, sparse on disk.
        cache = self.tmp / "cache"
        cache.mkdir()
        tokens = 1 << 23
        (cache / "manifest.json").write_text(
            '{"format": "lightsim-kv", "version": 1, "source": "test", "dtype": "float32", '
            '"layer_ids": [0], "kv_heads": 1, "q_heads": 1, "head_dim": 128, '
            f'"tokens": {tokens}, "steps": 1, "rope_base": 0, "needles": []}}')
        for name, shape in (("keys", [1, 1, tokens, 128]), ("values", [1, 1, tokens, 128]),
                            ("queries", [1, 1, 1, 128])):
            header = npy_header(shape)
            with open(cache / f"{name}.npy", "wb") as f:
                f.write(header)
                f.truncate(len(header) + 4 * shape[2] * shape[3])
        for argv in (["kv", "stats", cache], ["kv", "select", "--cache", cache]):
            with self.subTest(argv=argv[:2]):
                r = run_bounded("--memory-budget", "1 GiB", *argv)
                self.assertInputError(r, str(cache), "needs ~8 GiB", "1 GiB")


def limit_address_space_2gib():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def run_under_2gib(*args, cwd=None):
    """Runs lightsim -q under a 2 GiB address-space limit (ulimit -v 2097152)."""
    proc = subprocess.run([BIN, "-q", *map(str, args)], capture_output=True, text=True,
                          timeout=SECONDS, stdin=subprocess.DEVNULL, cwd=cwd,
                          preexec_fn=limit_address_space_2gib)
    return Result(proc)


OOM_SWEEP = """schema_version: 1
kind: sweep
name: oom
target: kv_select
request: {cache: qwen2.5-7b}
grid:
  - key: tokens
    values: [16000000]
"""


class OutOfMemory(CliTest):
    """A real std::bad_alloc: an explicit --memory-budget far above the 2 GiB address-space
    limit lets a 16M-token cache (~61 GiB of arrays) pass its estimate, and the first array's
    allocation fails. Exit 2 with the one out-of-memory message, never exit 1 or an abort, and
    nothing written (issue 24: this was `std::bad_alloc`, exit 1)."""

    MESSAGE = ("out of memory", "the --memory-budget flag and the sizes in the input bound "
               "what is allocated")

    def test_kv_generate_past_its_estimate_is_exit_2(self):
        out = self.tmp / "k"
        r = run_under_2gib("--memory-budget", "1 TiB", "kv", "generate",
                           SOURCE / "configs/kv/qwen2.5-7b.yaml", "--set", "tokens=16000000",
                           "--out", out)
        self.assertInputError(r, "running `lightsim kv generate`", *self.MESSAGE)
        self.assertEqual(list(out.iterdir()) if out.exists() else [], [])

    def test_the_same_under_the_default_budget_is_refused_before_allocating(self):
        # Without the flag the default budget follows the limit: the estimate refuses first.
        r = run_under_2gib("kv", "generate", SOURCE / "configs/kv/qwen2.5-7b.yaml", "--set",
                           "tokens=16000000", "--out", self.tmp / "k")
        self.assertInputError(r, "needs ~", "more than the memory budget")
        self.assertNotIn("out of memory", r.err)

    def test_a_sweep_point_out_of_memory_is_exit_2_and_stays_pending(self):
        spec = self.write("oom.yaml", OOM_SWEEP)
        out = self.tmp / "o"
        r = run_under_2gib("--threads", "1", "--memory-budget", "1 TiB", "sweep", spec,
                           "--out", out)
        self.assertInputError(r, "sweep 'oom'", "point 0 (tokens=16000000)",
                              "out of memory: running the point", *self.MESSAGE[1:])
        lines = (out / "oom.jsonl").read_text().splitlines()
        self.assertEqual(len(lines), 1, lines)  # the header only: the point is not recorded
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["oom.jsonl", "oom.jsonl.lock"])


class PrefillGpuCounts(CliTest):
    def test_coprime_gpu_counts_need_no_table_of_their_lcm(self):
        # lcm(8192, 8191) = 67,100,672 strided topologies were precomputed: OOM. Now the tables
        # hold the divisors of each count.
        r = run_bounded("prefill", "plan", "seed_8k", "--gpus", "8192", "--gpus", "8191",
                        "--top", "1", "--json")
        self.assertEqual(r.code, 0, repr(r))
        self.assertEqual([s["gpus"] for s in r.json()["searches"]], [8192, 8191])

    def test_large_coprime_counts_do_not_overflow(self):
        # lcm of these overflows int64 (it was reported as a negative max_gpus).
        r = run_bounded("prefill", "plan", "seed_8k", "--gpus", "1048573", "--gpus", "1048571",
                        "--gpus", "1048559", "--gpus", "1048549", "--top", "1", "--json")
        self.assertEqual(r.code, 0, repr(r))
        self.assertNotIn("-", "".join(str(s["gpus"]) for s in r.json()["searches"]))


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


class KvCacheAtomicity(CliTest):
    def generate(self, out, *extra):
        config = self.write("tiny.yaml", KV_TINY)
        r = run_bounded("kv", "generate", config, "--out", out, *extra)
        self.assertEqual(r.code, 0, repr(r))

    def snapshot(self, cache):
        return {p.name: p.read_bytes() for p in sorted(cache.iterdir())}

    def test_a_mixed_cache_is_refused(self):
        a, b = self.tmp / "a", self.tmp / "b"
        self.generate(a, "--seed", "1")
        self.generate(b, "--seed", "2")
        (a / "keys.npy").write_bytes((b / "keys.npy").read_bytes())
        for argv in (["kv", "stats", a], ["kv", "select", "--cache", a, "--scorer", "exact"]):
            with self.subTest(argv=argv[:2]):
                self.assertInputError(run_bounded(*argv), "keys.npy", "content hash",
                                      "mixes files")

    def test_a_killed_generate_leaves_the_old_cache_whole(self):
        cache = self.tmp / "k"
        self.generate(cache, "--seed", "1")
        before = self.snapshot(cache)
        config = self.write("big.yaml", KV_TINY.replace("tokens: 1024", "tokens: 262144"))
        proc = subprocess.Popen([BIN, "-q", "kv", "generate", config, "--out", cache, "--seed",
                                 "2"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # the larger cache takes several seconds
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        self.assertEqual(proc.returncode, -signal.SIGKILL, "generate finished before the kill")
        self.assertEqual(self.snapshot(cache), before)
        self.assertEqual(run_bounded("kv", "stats", cache).code, 0)
        # The next generate removes the killed one's temporary folder and replaces the cache.
        self.generate(cache, "--seed", "3")
        self.assertEqual(sorted(p.name for p in self.tmp.iterdir()),
                         ["big.yaml", "k", "tiny.yaml"])
        after = self.snapshot(cache)
        self.assertEqual(set(after), set(before))
        for name in ("keys.npy", "values.npy", "queries.npy", "manifest.json"):
            self.assertNotEqual(after[name], before[name], name)

    def test_a_folder_with_other_files_keeps_them(self):
        out = self.tmp / "o"
        out.mkdir()
        (out / "notes.txt").write_text("mine")
        self.generate(out)
        self.assertEqual((out / "notes.txt").read_text(), "mine")
        self.assertEqual(run_bounded("kv", "stats", out).code, 0)


class SweepStore(CliTest):
    def test_a_second_writer_is_refused(self):
        spec = self.write("s.yaml", SWEEP.format(name="locked"))
        out = self.tmp / "o"
        out.mkdir()
        # Another run holds the store's lock (flock is per open file, across processes).
        with open(out / "locked.jsonl.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            for extra in ([], ["--resume"]):
                with self.subTest(extra=extra):
                    r = run_bounded("sweep", spec, "--out", out, *extra)
                    self.assertInputError(r, "locked.jsonl", "in use by another run")
        self.assertFalse((out / "locked.jsonl").exists())
        r = run_bounded("sweep", spec, "--out", out)  # the lock is free again
        self.assertEqual(r.code, 0, repr(r))

    def test_temp_files_of_a_killed_rewrite_are_removed(self):
        spec = self.write("s.yaml", SWEEP.format(name="grid"))
        out = self.tmp / "o"
        out.mkdir()
        stale = out / ".grid.jsonl.0123456789abcdef.tmp"
        stale.write_bytes(b"x" * 1000)
        other = out / ".other.jsonl.0123456789abcdef.tmp"  # another target's: kept
        other.write_bytes(b"y")
        r = run_bounded("sweep", spec, "--out", out)
        self.assertEqual(r.code, 0, repr(r))
        self.assertFalse(stale.exists())
        self.assertTrue(other.exists())


class DeadTempFiles(CliTest):
    def test_a_killed_writers_temp_files_go_and_a_live_writers_stay(self):
        # A SIGKILL left `.<file>.<16 hex>.tmp` in --out that no later run removed (63 MB once):
        # --out has no lock, so each writer holds an flock on its temp file while it lives.
        out = self.tmp / "o"
        out.mkdir()
        dead = out / ".prism.json.0123456789abcdef.tmp"
        dead.write_bytes(b"x" * 1000)
        live = out / ".prism.json.fedcba9876543210.tmp"
        live.write_bytes(b"y")
        other = out / ".notes.txt.0123456789abcdef.tmp"  # another target's: kept
        other.write_bytes(b"z")
        with open(live, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a live writer of the same file
            r = run_bounded("study", "run", "prism", "--quick", "--out", out)
        self.assertEqual(r.code, 0, repr(r))
        self.assertTrue((out / "prism.json").exists())
        self.assertFalse(dead.exists())
        self.assertTrue(live.exists())
        self.assertTrue(other.exists())


class ShadowedPresets(CliTest):
    def test_a_config_path_preset_of_a_shipped_name_is_reported(self):
        # It left no trace: the result silently came from the user's copy.
        shipped = (SOURCE / "configs" / "devices" / "soi.yaml").read_text()
        self.write("root/devices/soi.yaml", shipped)
        self.write("root/devices/mine.yaml", shipped)  # a new name shadows nothing
        r = run_bounded("--config-path", self.tmp / "root", "photonics", "ring", "soi")
        self.assertEqual(r.code, 0, repr(r))
        lines = [l for l in r.err.splitlines() if "warning: preset" in l]
        self.assertEqual(len(lines), 1, repr(r))
        self.assertIn("preset devices/soi is read from " + str(self.tmp / "root" / "devices" /
                                                            "soi.yaml"), lines[0])
        self.assertIn("(--config-path), not ", lines[0])
        self.assertTrue(lines[0].endswith("devices/soi.yaml"), lines[0])


if __name__ == "__main__":
    unittest.main()

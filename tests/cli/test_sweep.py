"""CLI tests of `lightsim sweep` (docs/sweeps.md): kill and resume, 2-rank MPI, key checks, and
a point's stored result equal to the CLI's --json of the same request."""
import json
import shutil
import signal
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

from clitest import BIN, CliTest, run

# 200 points of the prefill plan search (10 prompt lengths x 20 batch sizes at 72 GPUs):
# about 30 ms of CPU each, so a run lasts seconds and can be killed half way.
GRID_200 = """schema_version: 1
kind: sweep
name: grid200
target: prefill_plan
request: {scenario: seed_8k, gpus: 72, top: 1}
batch: 4
grid:
  - key: sequence_length
    values: [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144, 524288]
  - key: requests
    values: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768,
             65536, 131072, 262144, 524288]
"""

PRISM = """schema_version: 1
kind: sweep
name: prism
target: prism_cost
request: {{accelerator: seed, drift_duration: 10 ms}}
grid:
  - key: {key}
    values: [{values}]
"""


def lines(path):
    return Path(path).read_text().splitlines()


def start(*args):
    return subprocess.Popen([BIN, *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)


def wait_for_lines(path, count, proc, timeout=120):
    """Polls the store until it has `count` lines; fails if the process ends first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and len(path.read_bytes().splitlines()) >= count:
            return
        if proc.poll() is not None:
            raise AssertionError(f"sweep ended (exit {proc.returncode}) before {count} lines")
        time.sleep(0.01)
    raise AssertionError(f"no {count} lines in {path} after {timeout} s")


def mpi_sweep(test, ranks, spec, out, threads, *extra):
    """Runs `mpirun -n RANKS lightsim sweep SPEC --json` (skips the test without mpirun) and
    returns its summary."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        test.skipTest("mpirun not installed (scripts/packages.txt: openmpi-bin)")
    proc = subprocess.run(
        [mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(ranks), BIN, "sweep", spec,
         "--out", out, "--threads", str(threads), "--json", *extra],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    test.assertEqual(proc.returncode, 0, proc.stderr)
    return json.loads(proc.stdout)


# Points of very different cost (prism_cost simulates `drift_duration` of ring drift and
# relocks: a 10 s point takes about 50 times the CPU of a 10 ms one), the expensive ones
# bunched at the start so that a static split would leave ranks idle.
UNEVEN = """schema_version: 1
kind: sweep
name: uneven
target: prism_cost
request: {accelerator: seed}
batch: 24
grid:
  - key: drift_duration
    values: [10 s, 10 s, 10 s, 10 s, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms,
             10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 ms, 10 s,
             10 ms, 10 ms, 10 s]
"""


class SweepUnevenCost(CliTest):
    def test_uneven_points_over_three_ranks_equal_one_process(self):
        spec = self.write("uneven.yaml", UNEVEN)
        r = run("sweep", spec, "--out", self.tmp / "one", "--threads", "1", "--json",
                timeout=300)
        self.assertEqual(r.code, 0, repr(r))
        self.assertEqual(r.json()["ran_per_rank"], [28])
        summary = mpi_sweep(self, 3, spec, self.tmp / "three", 1)
        self.assertEqual(summary["ran"], 28, summary)
        self.assertEqual(sum(summary["ran_per_rank"]), 28, summary)
        self.assertEqual((self.tmp / "three" / "uneven.jsonl").read_bytes(),
                         (self.tmp / "one" / "uneven.jsonl").read_bytes())


class SweepReference(unittest.TestCase):
    """One uninterrupted 1-process run of the 200-point grid, shared by the tests below."""

    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory(prefix="lightsim-sweep-ref-")
        cls.ref_dir = Path(cls._dir.name)
        cls.spec = cls.ref_dir / "grid200.yaml"
        cls.spec.write_text(GRID_200)
        r = run("sweep", cls.spec, "--out", cls.ref_dir / "out", "--threads", "2", "-q",
                timeout=300)
        assert r.code == 0, repr(r)
        cls.reference = lines(cls.ref_dir / "out" / "grid200.jsonl")

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def test_reference_has_200_points_in_index_order(self):
        header = json.loads(self.reference[0])
        self.assertEqual(header["points"], 200)
        records = [json.loads(x) for x in self.reference[1:]]
        self.assertEqual([r["index"] for r in records], list(range(200)))
        self.assertEqual(len({r["id"] for r in records}), 200)
        first = records[0]
        self.assertEqual(first["values"], {"sequence_length": 1024, "requests": 1})
        search = first["result"]["searches"][0]  # `prefill plan --gpus 72 --top 1`
        self.assertEqual(search["gpus"], 72)
        self.assertTrue(search["best"]["feasible"])
        # More work takes longer: the largest batch of the longest prompts outlasts one short one.
        self.assertGreater(records[-1]["result"]["searches"][0]["best"]["latency_s"],
                           search["best"]["latency_s"])

    def test_killed_sweep_resumes_to_the_uninterrupted_result(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            store = out / "grid200.jsonl"
            proc = start("sweep", self.spec, "--out", out, "--threads", "2", "-q")
            try:
                wait_for_lines(store, 101, proc)  # header + about half of the points
                proc.send_signal(signal.SIGKILL)
            finally:
                proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, -signal.SIGKILL)
            kept = lines(store)
            self.assertGreater(len(kept), 100)
            self.assertLess(len(kept), 201, "the sweep finished before it was killed")
            # A kill in the middle of a write leaves a torn last line: simulate one.
            with open(store, "a") as f:
                f.write('{"index": 7, "id": "to')
            r = run("sweep", self.spec, "--out", out, "--threads", "2", "--resume", "--json",
                    timeout=300)
            self.assertEqual(r.code, 0, repr(r))
            summary = r.json()
            self.assertEqual(summary["already_done"], len(kept) - 1)
            self.assertEqual(summary["ran"], 200 - (len(kept) - 1))
            self.assertEqual(summary["dropped_bytes"], len('{"index": 7, "id": "to'))
            resumed = lines(store)
            self.assertEqual(len({json.loads(x)["index"] for x in resumed[1:]}), 200)
            self.assertEqual(resumed, self.reference)

    def test_sigterm_stops_between_points_and_says_how_to_resume(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            store = out / "grid200.jsonl"
            proc = start("sweep", self.spec, "--out", out, "--threads", "2", "-q")
            try:
                wait_for_lines(store, 21, proc)
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=120)
            finally:
                if proc.poll() is None:
                    proc.kill()
            self.assertEqual(proc.returncode, 130, err)
            self.assertIn("--resume", err)
            kept = lines(store)
            self.assertLess(len(kept), 201)
            self.assertTrue(set(kept) <= set(self.reference), "a stored point differs")

    def test_one_two_and_three_mpi_ranks_equal_one_process(self):
        # The ranks draw chunks of points dynamically (docs/sweeps.md): which rank ran a point
        # depends on timing, the store must not.
        for ranks, threads in ((1, 2), (2, 1), (3, 1), (3, 2)):
            with self.subTest(ranks=ranks, threads=threads), \
                    tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp)
                summary = mpi_sweep(self, ranks, self.spec, out, threads)
                self.assertEqual((summary["ranks"], summary["ran"]), (ranks, 200), summary)
                self.assertEqual(sum(summary["ran_per_rank"]), 200, summary)
                self.assertEqual(lines(out / "grid200.jsonl"), self.reference)


    def test_three_shards_merged_equal_one_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            for i in range(3):
                r = run("sweep", self.spec, "--out", out, "--threads", "2", "--shard", f"{i}/3",
                        "--json", timeout=300)
                self.assertEqual(r.code, 0, repr(r))
                self.assertEqual(r.json()["shard"], f"{i}/3")
                self.assertEqual(r.json()["shard_points"], 67 if i < 2 else 66)
            shards = [out / f"grid200.shard-{i}-of-3.jsonl" for i in (2, 0, 1)]
            self.assertEqual(json.loads(lines(shards[0])[0])["shard"], "2/3")
            self.assertEqual({json.loads(x)["index"] % 3 for x in lines(shards[0])[1:]}, {2})
            r = run("sweep", "merge", *shards)
            self.assertEqual(r.code, 0, repr(r))
            self.assertEqual(lines(out / "grid200.jsonl"), self.reference)
            # The merged store is a finished run of the whole sweep: resuming it runs nothing.
            r = run("sweep", self.spec, "--out", out, "--resume", "--json")
            self.assertEqual((r.code, r.json()["ran"]), (0, 0), repr(r))

    def test_export_writes_one_csv_row_per_point(self):
        with tempfile.TemporaryDirectory() as tmp:
            csv_path = Path(tmp) / "g.csv"
            r = run("sweep", "export", self.ref_dir / "out" / "grid200.jsonl", "--csv",
                    "--columns", "result.searches.0.best.latency_s", "--output", csv_path)
            self.assertEqual(r.code, 0, repr(r))
            import csv
            with open(csv_path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 200)
            self.assertEqual(list(rows[0]), ["index", "id", "values.sequence_length",
                                             "values.requests",
                                             "result.searches.0.best.latency_s"])
            first = json.loads(self.reference[1])
            self.assertEqual(float(rows[0]["result.searches.0.best.latency_s"]),
                             first["result"]["searches"][0]["best"]["latency_s"])


class SweepInput(CliTest):
    def test_wrong_key_is_rejected_before_any_point_runs(self):
        spec = self.write("s.yaml", PRISM.format(key="programming.wieght_bits", values="4, 5"))
        r = run("sweep", spec, "--out", self.tmp / "out")
        self.assertInputError(r, "point 0 (programming.wieght_bits=4)",
                              "did you mean 'programming.weight_bits'")
        self.assertFalse((self.tmp / "out" / "prism.jsonl").exists())

    def test_bad_value_is_rejected_before_any_point_runs(self):
        spec = self.write("s.yaml", PRISM.format(key="programming.weight_bits", values="4, 99"))
        r = run("sweep", spec, "--out", self.tmp / "out")
        self.assertInputError(r, "point 1 (programming.weight_bits=99)", "weight_bits")
        self.assertFalse((self.tmp / "out" / "prism.jsonl").exists())

    def test_existing_store_needs_resume_and_a_changed_spec_is_refused(self):
        spec = self.write("s.yaml", PRISM.format(key="device.bank.rows", values="64, 128"))
        self.assertExit(run("sweep", spec, "--out", self.tmp, "-q"), 0)
        r = run("sweep", spec, "--out", self.tmp, "-q")
        self.assertInputError(r, "prism.jsonl", "already exists", "--resume")
        r = run("sweep", spec, "--out", self.tmp, "-q", "--resume", "--json")
        self.assertExit(r, 0)
        self.assertEqual((r.json()["already_done"], r.json()["ran"]), (2, 0))
        changed = self.write("s.yaml", PRISM.format(key="device.bank.rows", values="64, 256"))
        r = run("sweep", changed, "--out", self.tmp, "-q", "--resume")
        self.assertInputError(r, "cannot resume", "spec_hash")
        r = run("sweep", spec, "--out", self.tmp, "-q", "--resume", "--seed", "9")
        self.assertInputError(r, "cannot resume", "seed")

    def test_resume_refuses_an_edited_record(self):
        """A record whose id or values are not its point's, or whose result is not a JSON
        object, is exit 2 naming the store and line (resume trusted it before)."""
        spec = self.write("s.yaml", PRISM.format(key="device.bank.rows", values="64, 128"))
        store = self.tmp / "prism.jsonl"
        self.assertExit(run("sweep", spec, "--out", self.tmp, "-q"), 0)
        good = lines(store)
        for what, edit in [("has values", lambda r: r["values"].update({"device.bank.rows": 96})),
                           ("has id", lambda r: r.update(id="0123456789abcdef")),
                           ("has result", lambda r: r.update(result="{torn"))]:
            with self.subTest(what):
                record = json.loads(good[2])
                edit(record)
                store.write_text("\n".join([*good[:2], json.dumps(record)]) + "\n")
                r = run("sweep", spec, "--out", self.tmp, "-q", "--resume")
                self.assertInputError(r, f"{store}:3:", what, "point 1")
        store.write_text("\n".join(good) + "\n")
        self.assertExit(run("sweep", spec, "--out", self.tmp, "-q", "--resume"), 0)

    def test_prefill_points_set_request_fields_and_config_keys(self):
        spec = self.write("p.yaml", """schema_version: 1
kind: sweep
name: plans
target: prefill_run
request: {scenario: seed_8k, gpus: 72}
points:
  - {plan: "TP=4,EP=72", fabric: seed_copper_1152}
  - {plan: "TP=4,EP=72", fabric: photonic_4x_1152}
  - {plan: "TP=4,EP=144", fabric: photonic_4x_1152, gpus: 144}
  - {plan: "TP=4,EP=72", fabric: photonic_4x_1152, sequence_length: 4096}
""")
        r = run("sweep", spec, "--out", self.tmp / "out", "-q", timeout=300)
        self.assertExit(r, 0)
        records = [json.loads(x) for x in lines(self.tmp / "out" / "plans.jsonl")[1:]]
        copper, photonic = "seed_copper_1152", "photonic_4x_1152"
        self.assertEqual([(x["result"]["fabric"], x["result"]["gpus"]) for x in records],
                         [(copper, 72), (photonic, 72), (photonic, 144), (photonic, 72)])
        self.assertTrue(all(x["result"]["feasible"] for x in records), records)
        # The same plan is faster (or equal) on the fabric with 4x the bandwidth, and faster
        # again on half the prompt.
        self.assertLessEqual(records[1]["result"]["latency_s"], records[0]["result"]["latency_s"])
        self.assertLess(records[3]["result"]["latency_s"], records[1]["result"]["latency_s"])
        bad = self.write("b.yaml", """schema_version: 1
kind: sweep
name: bad
target: prefill_run
request: {scenario: seed_8k}
points:
  - {gpus: 72}
  - {gpus: "-3"}
""")
        r = run("sweep", bad, "--out", self.tmp / "bad")
        self.assertInputError(r, "point 1", "gpus", "-3")
        self.assertFalse((self.tmp / "bad" / "bad.jsonl").exists())

    def test_a_point_stores_what_the_cli_prints(self):
        """The sweep is an adapter over the operation: byte-identical JSON to --json."""
        cases = [
            ("prism_cost", "{accelerator: seed, drift_duration: 20 ms}",
             "device.bank.rows", "128",
             ["prism", "cost", "seed", "--drift-duration", "20 ms", "--set",
              "device.bank.rows=128"]),
            ("prefill_run", "{scenario: seed_8k, gpus: 72, fabric: photonic_4x_1152}",
             "plan", "TP=8,EP=72",
             ["prefill", "run", "seed_8k", "--gpus", "72", "--fabric", "photonic_4x_1152",
              "--plan", "TP=8,EP=72"]),
            ("prefill_plan", "{scenario: seed_8k, top: 2}", "gpus", "72,144",
             ["prefill", "plan", "seed_8k", "--top", "2", "--gpus", "72", "--gpus", "144"]),
        ]
        # A map field's key (scorer_options.dim) is a request key of its own.
        tiny = self.write("tiny_kv.yaml", "schema_version: 1\nkind: kv_synthetic\n"
                          "preset: qwen2.5-7b\nmodel_layers: 2\nlayers: []\nkv_heads: 2\n"
                          "q_heads: 4\nhead_dim: 32\ntokens: 1024\nsteps: 2\nkey_rank: 8\n")
        cases.append(("kv_select", f"{{cache: {tiny}, scorer: signature, k: 2}}",
                      "scorer_options.dim", "8",
                      ["kv", "select", "--cache", tiny, "--scorer", "signature", "--k", "2",
                       "--dim", "8"]))
        for target, request, key, value, cli in cases:
            with self.subTest(target=target):
                spec = self.write(f"{target}.yaml", f"""schema_version: 1
kind: sweep
name: {target}
target: {target}
request: {request}
points:
  - {{{key}: "{value}"}}
""")
                r = run("sweep", spec, "--out", self.tmp / target, "-q", timeout=300)
                self.assertExit(r, 0)
                record = json.loads(lines(self.tmp / target / f"{target}.jsonl")[1])
                direct = run(*cli, "--json", timeout=300)
                self.assertExit(direct, 0)
                self.assertEqual(json.dumps(record["result"], sort_keys=True),
                                 json.dumps(direct.json(), sort_keys=True))

    def test_bad_shard_and_srun_without_pmi_are_usage_errors(self):
        spec = self.write("s.yaml", PRISM.format(key="programming.weight_bits", values="4, 5"))
        r = run("sweep", spec, "--out", self.tmp / "out", "--shard", "2/2")
        self.assertInputError(r, "--shard '2/2': expected I/N")
        env = {"SLURM_STEP_NUM_TASKS": "4", "SLURM_PROCID": "1"}
        r = run("sweep", spec, "--out", self.tmp / "out", env=env)
        self.assertInputError(r, "srun without PMI")
        self.assertFalse((self.tmp / "out").exists())
        # With a shard per task it runs.
        r = run("sweep", spec, "--out", self.tmp / "out", "--shard", "1/4", "-q", env=env)
        self.assertEqual(r.code, 0, repr(r))
        self.assertTrue((self.tmp / "out" / "prism.shard-1-of-4.jsonl").exists())
        r = run("sweep", "merge", self.tmp / "out" / "prism.shard-1-of-4.jsonl")
        self.assertInputError(r, "3 of the 4 shards are missing (shard indices 0, 2, 3)")

    def test_unknown_target_and_request_field_are_named(self):
        spec = self.write("t.yaml", PRISM.replace("target: prism_cost", "target: prism_cots")
                          .format(key="device.bank.rows", values="64"))
        self.assertInputError(run("sweep", spec, "--out", self.tmp / "o"), "t.yaml", "target",
                              "did you mean 'prism_cost'")
        spec = self.write("r.yaml", PRISM.replace("drift_duration", "drift_durations")
                          .format(key="device.bank.rows", values="64"))
        self.assertInputError(run("sweep", spec, "--out", self.tmp / "o"), "request",
                              "drift_durations")

    def test_shipped_sweeps_run(self):
        for spec in sorted((Path(__file__).resolve().parents[2] / "configs" / "sweeps")
                           .glob("*.yaml")):
            with self.subTest(spec=spec.name):
                text = spec.read_text()
                if "target: prism_cost" not in text and "target: fabric_design" not in text:
                    continue  # the others are covered by the tests above or take longer
                r = run("sweep", spec, "--out", self.tmp / spec.stem, "-q", "--json")
                self.assertExit(r, 0)
                self.assertGreater(r.json()["points"], 0)


if __name__ == "__main__":
    unittest.main()

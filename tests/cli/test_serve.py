"""`lightsim serve run` as a user runs it: JSON, traces, determinism and bad traces (exit 2)."""
import shutil
import subprocess
import unittest

from clitest import BIN, CliTest, run

SMALL = ["--set", "arrivals.requests=400"]
HEADER = "arrival_s,prompt_tokens,output_tokens\n"


class ServeCli(CliTest):
    def test_run_prints_latencies_goodput_and_little(self):
        r = run("serve", "run", "chat_nvl72", *SMALL)
        self.assertExit(r, 0)
        for text in ("TTFT", "TPOT", "goodput", "Little's law", "utilisation"):
            self.assertIn(text, r.out)

    def test_json_and_identical_for_any_thread_count(self):
        one = run("--threads", "1", "--json", "serve", "run", "chat_nvl72", *SMALL)
        two = run("--threads", "2", "--json", "serve", "run", "chat_nvl72", *SMALL)
        self.assertExit(one, 0)
        self.assertEqual(one.out, two.out)
        doc = one.json()
        self.assertEqual(doc["completed"], 400)
        self.assertEqual(doc["ttft"]["count"], 400)
        self.assertLess(doc["little"]["relative_error"], 1e-9)
        self.assertEqual(len(doc["queue_series"]), 40)
        other = run("--seed", "2", "--json", "serve", "run", "chat_nvl72", *SMALL)
        self.assertNotEqual(other.json()["e2e"], doc["e2e"])

    def test_a_sweep_on_two_mpi_ranks_equals_one_process(self):
        # Serving points distributed over ranks store the same bytes as one process (and a
        # decode-at-scale pool among them).
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            self.skipTest("mpirun not installed (scripts/packages.txt: openmpi-bin)")
        spec = self.write("s.yaml", """schema_version: 1
kind: sweep
name: serve_ranks
target: serve_run
request: {scenario: chat_nvl72}
points:
  - {arrivals.requests: 300, arrivals.rate: "800 Hz"}
  - {arrivals.requests: 300, mode: disaggregated, prefill.instances: 24, decode.instances: 48}
  - {arrivals.requests: 300, colocated.instances: 18, colocated.gpus_per_instance: 4,
     colocated.plan: "TP=4", colocated.decode_plan: "TP=4"}
""")
        one = run("sweep", spec, "--out", self.tmp / "one", "-q", timeout=300)
        self.assertExit(one, 0)
        two = subprocess.run(
            [mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2", BIN, "-q", "sweep",
             spec, "--out", self.tmp / "two", "--threads", "1"],
            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
        self.assertEqual(two.returncode, 0, two.stderr)
        stored = (self.tmp / "one" / "serve_ranks.jsonl").read_text().splitlines()
        self.assertEqual(len(stored), 4)  # the header and three points
        self.assertIn('"completed":300', stored[3])
        self.assertEqual((self.tmp / "two" / "serve_ranks.jsonl").read_text().splitlines(), stored)

    def test_written_requests_replay_as_a_trace(self):
        r = run("--out", self.tmp, "--json", "serve", "run", "chat_nvl72", "--write-requests",
                *SMALL)
        self.assertExit(r, 0)
        trace = self.tmp / "requests.csv"
        self.assertTrue(trace.exists())
        replay = run("--json", "serve", "run", "chat_nvl72", "--set", "arrivals.process=trace",
                     "--set", f"arrivals.trace={trace}")
        self.assertExit(replay, 0)
        self.assertEqual(replay.json()["completed"], 400)
        # Times are written to the microsecond, so the replay matches to that precision.
        self.assertAlmostEqual(replay.json()["e2e"]["mean_s"], r.json()["e2e"]["mean_s"], places=4)

    def test_shipped_traces_run(self):
        for name in ("chat_poisson_500", "bursty_gamma_cv4_500"):
            r = run("--json", "serve", "run", "chat_nvl72", "--set", "arrivals.process=trace",
                    "--set", f"arrivals.trace=traces/{name}.csv")
            self.assertExit(r, 0)
            self.assertEqual(r.json()["completed"], 500)

    def trace_error(self, text, *fragments):
        path = self.write("bad.csv", text)
        r = run("serve", "run", "chat_nvl72", "--set", "arrivals.process=trace", "--set",
                f"arrivals.trace={path}")
        self.assertInputError(r, str(path), *fragments)

    def test_bad_traces_exit_2_naming_the_line(self):
        self.trace_error("arrival_s,prompt_tokens\n0,5\n", ":1:", "no column 'output_tokens'")
        self.trace_error(HEADER + "0,10,5\n0.5,-3,5\n", ":3:", "prompt_tokens", "-3")
        self.trace_error(HEADER + "0,10,5\n0.5,10,2.5\n", ":3:", "output_tokens")
        self.trace_error(HEADER + "1,10,5\n0.5,10,5\n", ":3:", "before the previous")
        self.trace_error(HEADER, "no requests")
        self.trace_error("", ":1:", "empty trace")
        r = run("serve", "run", "chat_nvl72", "--set", "arrivals.process=trace", "--set",
                "arrivals.trace=no/such.csv")
        self.assertExit(r, 2)

    def test_bad_scenario_keys_exit_2(self):
        r = run("serve", "run", "chat_nvl72", "--set", "arrivals.cv=-1")
        self.assertExit(r, 2)
        self.assertIn("arrivals.cv", r.err)
        r = run("serve", "run", "chat_nvl72", "--set", "colocated.gpus_per_instance=2")
        self.assertExit(r, 2)
        self.assertIn("gpus_per_instance", r.err)

    def test_memory_budget_refuses_a_huge_run_before_it_starts(self):
        r = run("--memory-budget", "100 MB", "serve", "run", "chat_nvl72", "--set",
                "arrivals.requests=10000000")
        self.assertInputError(r, "serving simulation of 10000000 requests", "memory budget")

    def test_zero_arrivals_zero_load(self):
        r = run("--json", "serve", "run", "chat_nvl72", "--set", "arrivals.rate=0 Hz")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["completed"], 0)
        self.assertEqual(doc["pools"]["colocated"]["utilization"], 0)
        self.assertNotIn("NaN", r.out)

    PRISM_SCENARIO = """schema_version: 1
kind: serve_scenario
name: prism_small
model: qwen2_5_7b
dtypes: {preset: bf16}
arrivals:
  process: poisson
  rate: 50 Hz
  requests: 60
  prompt: {distribution: fixed, median: 6144}
  output: {distribution: fixed, median: 16}
scheduler: {max_batch: 8, token_budget: 4096, block_tokens: 16}
mode: colocated
colocated: {fabric: dgx_h100, instances: 2, gpus_per_instance: 1, plan: "TP=1"}
"""

    def test_prism_off_is_todays_run_byte_for_byte(self):
        base = run("--json", "serve", "run", "chat_nvl72", *SMALL)
        off = run("--json", "serve", "run", "chat_nvl72", *SMALL, "--set", "prism.enabled=false",
                  "--set", "prism.quality_context=4096")
        self.assertExit(base, 0)
        self.assertEqual(off.out, base.out)
        self.assertNotIn('"prism"', base.out)

    def test_prism_with_every_block_selected_reads_everything(self):
        # top_k x block_tokens above the context: full recall, no KV saved, the same step times.
        f = self.write("p.yaml", self.PRISM_SCENARIO)
        full = run("--json", "serve", "run", f)
        every = run("--json", "serve", "run", f, "--set", "prism.enabled=true", "--set",
                    "prism.selector.accelerator.selection.top_k=4096")
        self.assertExit(every, 0)
        doc = every.json()
        p = doc.pop("prism")
        self.assertTrue(p["quality"]["trivial"])
        self.assertEqual(p["quality"]["recall"], 1.0)
        self.assertEqual(p["kv_traffic_reduction"], 1.0)
        self.assertEqual(p["prism"]["attended_tokens"], p["full"]["attended_tokens"])
        self.assertEqual(doc, full.json())

    def test_prism_selection_reports_speed_with_its_recall(self):
        f = self.write("p.yaml", self.PRISM_SCENARIO)
        r = run("--json", "serve", "run", f, "--set", "prism.enabled=true", "--set",
                "prism.workload.preset=qwen2.5-7b", "--set", "prism.workload.steps=2")
        self.assertExit(r, 0)
        p = r.json()["prism"]
        self.assertFalse(p["quality"]["trivial"])
        self.assertGreater(p["kv_traffic_reduction"], 1.0)
        self.assertGreater(p["speedup"], 1.0)
        self.assertGreater(p["quality"]["recall"], 0.0)
        self.assertLess(p["quality"]["recall"], 1.0)
        self.assertEqual(p["context_tokens"], 6144 + 8)  # prompt + mean of 1..15
        text = run("serve", "run", f, "--set", "prism.enabled=true", "--set",
                   "prism.workload.preset=qwen2.5-7b", "--set", "prism.workload.steps=2")
        self.assertIn("Recall@32", text.out)
        bad = run("serve", "run", "chat_nvl72", "--set", "prism.enabled=true", "--set",
                  "step_model=fixed")
        self.assertInputError(bad, "prism.enabled")

    def test_validate_compares_public_serving_figures(self):
        r = run("--json", "serve", "validate", timeout=120)
        self.assertExit(r, 0)
        doc = r.json()
        compared = [x for x in doc["rows"] if x["expressed"] and not x["fitted"]]
        self.assertGreaterEqual(len(compared), 4)
        self.assertEqual(doc["compared"], len(compared))
        for row in compared:
            self.assertGreater(row["ours"], 0, row["id"])
            self.assertAlmostEqual(row["error"], row["ours"] / row["measured"] - 1, 12)
        for row in doc["rows"]:
            self.assertFalse(row["fitted"], row["id"])
            if not row["expressed"]:
                self.assertTrue(row["not_expressed"], row["id"])
        errors = sorted(abs(x["error"]) for x in compared)
        self.assertIn(doc["median_abs_error"], errors + [
            0.5 * (errors[len(errors) // 2 - 1] + errors[len(errors) // 2])])

    def test_host_overhead_slows_steps_and_is_reported(self):
        args = ("--json", "serve", "run", "chat_nvl72", "--set", "arrivals.requests=1000")
        off = run(*args)
        self.assertExit(off, 0)
        self.assertNotIn("host", off.json())  # unset: the GPU alone, same bytes as before
        serial = run(*args, "--set", "host=vllm_0_5_api_server")
        self.assertExit(serial, 0)
        h = serial.json()["host"]
        self.assertEqual(h["overlap"], "serial")
        self.assertGreater(h["exposed_s"], 0)
        self.assertAlmostEqual(h["exposed_s"], h["host_s"], 9)  # serial: all of it shows
        self.assertGreater(serial.json()["tpot"]["mean_s"], off.json()["tpot"]["mean_s"])
        over = run(*args, "--set", "host=vllm_0_5_api_server", "--set",
                   "host.overlap=overlapped")
        self.assertExit(over, 0)
        self.assertLess(over.json()["host"]["exposed_s"], h["exposed_s"])
        bad = run("serve", "run", "chat_nvl72", "--set", "host=vllm_0_5_api_server", "--set",
                  "host.per_sequence=-1 us")
        self.assertInputError(bad, "per_sequence")

    def test_bad_validation_rows_exit_2_naming_the_row(self):
        head = "schema_version: 1\nkind: serve_measurements\nmeasurements:\n"
        row = ("  - {{id: r1, {extra} metric: tpot_p50_s, value: {value}, source: s}}\n")
        cases = [
            (row.format(extra="scenario: chat_nvl72,", value="-1"), "measurements[0].value"),
            (row.format(extra="", value="0.05"), "not_expressed"),
            (row.format(extra="scenario: no_such_scenario,", value="0.05"), "'r1'"),
            ("  - {id: r1, scenario: chat_nvl72, metric: speed, value: 1, source: s}\n",
             "measurements[0].metric"),
        ]
        for text, needle in cases:
            f = self.write("m.yaml", head + text)
            r = run("serve", "validate", "--measurements", f)
            self.assertInputError(r, needle)
    def test_a_cost_model_missing_a_key_exits_2_naming_it(self):
        cost = self.write("cost.yaml", """schema_version: 1
kind: cost_model
name: no price
fabric_design: copper_nvl72
gpu_busy_power_share: 1
fabric_idle_power_share: 1
host_power_per_gpu: 340 W
gpu_capex_usd: 41667
fabric_capex_per_gpu_usd: 0
amortization_years: 5
pue: 1.1
""")
        r = run("serve", "run", "chat_nvl72", *SMALL, "--set", f"cost_model={cost}")
        self.assertExit(r, 2)
        self.assertIn("power_price_usd_per_kwh", r.err)

    def test_a_cost_model_adds_power_energy_and_cost(self):
        r = run("--json", "serve", "run", "chat_nvl72", *SMALL, "--set", "cost_model=copper_nvl72")
        self.assertExit(r, 0)
        power = r.json()["power"]
        self.assertGreater(power["energy_per_token_j"], 0)
        self.assertGreater(power["cost_usd_per_million_tokens"], 0)
        self.assertEqual(power["fabric_design"], "copper NVL72 rack")


if __name__ == "__main__":
    unittest.main()

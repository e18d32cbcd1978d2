"""The Prism retrieval studies (impairments, context, needle) run with --quick."""
import json
import re
import unittest

from clitest import CliTest, run


def rows(result, table):
    for t in result["tables"]:
        if t["name"] == table:
            cols = [c["name"] for c in t["columns"]]
            return [dict(zip(cols, r)) for r in t["rows"]]
    raise AssertionError(f"no table {table}")


class RetrievalStudy(CliTest):
    study = None
    claims = ()

    def run_quick(self):
        out = self.tmp / "out"
        r = run("study", "run", self.study, "--quick", "--out", out, "--quiet", timeout=300)
        self.assertExit(r, 0)
        return json.loads((out / f"{self.study}.json").read_text())

    def check_claims(self, result):
        ids = {c["id"] for c in result["claims"]}
        for claim in self.claims:
            self.assertIn(claim, ids)
        for c in result["claims"]:
            if c.get("ours") is not None and c["unit"] == "" and "recall" in c["id"]:
                self.assertGreaterEqual(c["ours"], 0.0)
                self.assertLessEqual(c["ours"], 1.0)


class Impairments(RetrievalStudy):
    study = "impairments"
    claims = ("recall32_8bit", "recall32_4bit", "recall32_drift_low", "recall32_drift_high",
              "crosstalk_relative_drop", "nep_drop", "splitter_drop")

    def test_quick_run(self):
        res = self.run_quick()
        self.check_claims(res)
        pts = rows(res, "points")
        for p in pts:
            for key in ("recall_projected", "recall_full", "mass_recall", "needle_hit"):
                self.assertGreaterEqual(p[key], 0.0, p)
                self.assertLessEqual(p[key], 1.0 + 1e-12, p)

        def find(scenario, axis, value, k, comp="none"):
            [p] = [p for p in pts if p["scenario"] == scenario and p["axis"] == axis
                   and abs(p["value"] - value) < 1e-9 and p["k"] == k
                   and p["compensation"] == comp]
            return p

        # Physics sanity: everything ideal but 8-bit weights recalls at least as well as the
        # combined point (4-bit weights, 40 pm drift, crosstalk, noise), in both truths.
        for k in (8, 32):
            good, bad = find("alone", "bits", 8, k), find("combined", "nominal", 0, k)
            self.assertGreaterEqual(good["recall_projected"], bad["recall_projected"])
            self.assertGreaterEqual(good["recall_full"], bad["recall_full"])
        # The ideal machine is its own projected truth.
        self.assertEqual(find("ideal", "none", 0, 8)["recall_projected"], 1.0)
        # Calibration replaces 10 pm of drift (within the tuner's reach) by the lock's
        # sub-pm residual.
        cal = find("alone", "drift", 10, 32, "calibration")
        self.assertLess(cal["residual_pm"], 2.0)
        self.assertGreater(cal["recall_projected"],
                           find("alone", "drift", 10, 32)["recall_projected"])
        # Voting is priced at M x one query's energy and latency; QAT runs where the weights
        # are quantized and never on the unquantized drift axis.
        v, n = find("alone", "nep", 1, 32, "voting"), find("alone", "nep", 1, 32)
        self.assertGreater(v["votes"], 1)
        self.assertAlmostEqual(v["energy_nj"], v["votes"] * n["energy_nj"], delta=1e-9)
        self.assertAlmostEqual(v["latency_ns"], v["votes"] * n["latency_ns"], delta=1e-6)
        find("alone", "bits", 4, 32, "qat")
        self.assertFalse([p for p in pts if p["scenario"] == "alone" and p["axis"] == "drift"
                          and p["compensation"] in ("qat", "voting")])
        self.assertTrue(rows(res, "qat_states"))
        self.assertTrue(res["charts"])
        # Every line joins points of one (compensation, scenario, truth): no x repeats within
        # a line (the charts once joined different compensations into one zig-zag).
        table = next(t for t in res["tables"] if t["name"] == "points")
        cols = [c["name"] for c in table["columns"]]
        for chart in res["charts"]:
            spec = chart["vega_lite"]
            if "layer" in spec:  # seed figures drawn over it: the chart's own spec is layer 0
                spec = spec["layer"][0]
            conds = re.findall(r"datum\.(\w+) == (?:'([^']*)'|(\d+))",
                               spec["transform"][0]["filter"])
            kept = [dict(zip(cols, r)) for r in table["rows"]
                    if all(str(dict(zip(cols, r))[f]) == (a or b) for f, a, b in conds)]
            enc = spec["encoding"]
            series = [enc[ch]["field"] for ch in ("color", "strokeDash", "column", "row")
                      if ch in enc and enc[ch]["field"] != "truth"]
            keys = [tuple(p[f] for f in series) + (p[enc["x"]["field"]],) for p in kept]
            self.assertTrue(keys, chart["title"])
            self.assertEqual(len(keys), len(set(keys)), (chart["title"], series))

    def test_unknown_compensation_is_an_input_error(self):
        r = run("study", "run", "impairments", "--quick", "--out", self.tmp,
                "--set", "compensation=[none, magic]")
        self.assertInputError(r, "compensation[1]", "magic")

    def test_bad_axis_value_is_an_input_error(self):
        r = run("study", "run", "impairments", "--quick", "--out", self.tmp,
                "--set", "axes.drift=[-5 pm]")
        self.assertInputError(r, "axes.drift[0]", "out of range")


class ContextStudy(RetrievalStudy):
    study = "context"
    claims = ("recall8_4k", "recall32_4k", "recall8_8k", "recall32_8k", "traffic_4k",
              "traffic_8k", "traffic_128k")

    def test_quick_run(self):
        res = self.run_quick()
        self.check_claims(res)
        rows_ = rows(res, "contexts")
        self.assertEqual({r["block_tokens"] for r in rows_}, {128, 256})
        for r in rows_:
            for key in ("recall_full", "recall_projected", "mass_recall", "needle_hit",
                        "fetched_fraction"):
                self.assertGreaterEqual(r[key], 0.0, r)
                self.assertLessEqual(r[key], 1.0 + 1e-12, r)
            if r["scorer"] == "prism":  # no summary traffic: never more than a full read
                self.assertGreaterEqual(r["traffic_reduction"], 1.0 - 1e-9, r)
                if not r["trivial"]:
                    self.assertGreater(r["traffic_reduction"], 1.0, r)
            # With no more candidates than k, every block is selected: recall is trivially 1.
            if r["trivial"]:
                self.assertEqual(r["recall_full"], 1.0, r)
                self.assertEqual(r["recall_projected"], 1.0, r)
        # A context the quick run does not compute is reported as not comparable.
        [c] = [c for c in res["claims"] if c["id"] == "traffic_128k"]
        self.assertEqual(c["verdict"], "not comparable")


class NeedleStudy(RetrievalStudy):
    study = "needle"
    claims = ("needle_hit_union", "needle_hit_per_head")

    def test_quick_run(self):
        res = self.run_quick()
        self.check_claims(res)
        depth_rows = rows(res, "depths")
        self.assertEqual({r["depth"] for r in depth_rows}, {0.1, 0.3, 0.5, 0.7, 0.9})
        for r in depth_rows:
            # The union of the heads' blocks finds at least what one head finds, and fetches
            # at least as much.
            self.assertGreaterEqual(r["needle_hit_union"], r["needle_hit"] - 1e-12, r)
            self.assertGreaterEqual(r["union_fetched_fraction"], r["fetched_fraction"] - 1e-12)
            self.assertLessEqual(r["union_fetched_fraction"], 1.0 + 1e-12)
        self.assertEqual(len({r["kv_head"] for r in rows(res, "heads")}), 4)
        # Over every depth: one row per (context, scorer, k), each figure with its interval, the
        # union at least the per-head rate, and the per-head rate the mean of the depth rows'.
        over = rows(res, "contexts")
        self.assertEqual({(r["scorer"], r["k"]) for r in over},
                         {(r["scorer"], r["k"]) for r in depth_rows})
        self.assertEqual(len(over), len({(r["scorer"], r["k"]) for r in depth_rows}))
        for r in over:
            self.assertGreaterEqual(r["needle_hit_union"], r["needle_hit"] - 1e-12, r)
            self.assertGreaterEqual(min(r["needle_hit_ci"], r["needle_hit_union_ci"]), 0.0, r)
            depths = [d for d in depth_rows if (d["scorer"], d["k"]) == (r["scorer"], r["k"])]
            self.assertAlmostEqual(r["needle_hit"],
                                   sum(d["needle_hit"] for d in depths) / len(depths), places=9)


class KvProfile(CliTest):
    """A Prism study runs on a named KV profile through its `workload.preset` key."""

    def needle(self, name, *sets):
        out = self.tmp / name
        args = ["study", "run", "needle", "--quick", "--out", out, "--quiet",
                "--set", "workload.steps=1"]
        for s in sets:
            args += ["--set", s]
        self.assertExit(run(*args, timeout=300), 0)
        return (out / "needle.json").read_text()

    def test_profile_reaches_the_generator(self):
        # ~1 s: three one-step quick needle runs.
        today = self.needle("today")
        self.assertEqual(self.needle("plain", "workload.preset=qwen2.5-7b"), today)
        other = json.loads(self.needle("llama", "workload.preset=llama-3-8b-layered"))
        # Llama-3-8B has 8 KV heads (the Qwen preset 4), and its hit rates differ.
        self.assertEqual(len({r["kv_head"] for r in rows(other, "heads")}), 8)
        self.assertNotEqual(rows(other, "depths"), rows(json.loads(today), "depths"))
        for c in other["claims"]:
            self.assertGreaterEqual(c["ours_ci95"], 0.0)

    def test_unknown_profile_exits_2_naming_it(self):
        r = run("study", "run", "needle", "--quick", "--out", self.tmp / "x", "--quiet",
                "--set", "workload.preset=no-such-profile")
        self.assertInputError(r, "workload.preset", "no-such-profile")
        r = run("study", "run", "rejudge", "--quick", "--out", self.tmp / "y", "--quiet",
                "--set", "profiles=[qwen2.5-7b-layered, no-such-profile]")
        self.assertInputError(r, "profiles[1]", "no-such-profile")


if __name__ == "__main__":
    unittest.main()

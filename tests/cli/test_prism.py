"""`lightsim prism cost|timeline` and `kv select --scorer prism`, run as a user runs them."""
import unittest

from clitest import CliTest, SOURCE, run
from test_kv import TINY


class PrismCost(CliTest):
    def test_cost_prints_breakdown_beside_the_seed(self):
        r = run("prism", "cost", "seed")
        self.assertExit(r, 0)
        for text in ("laser", "tia_adc", "programming", "static_tuning", "tec", "dynamic",
                     "1570 pJ", "9000 pJ", "9 ns", "NOT feasible", "Area", "time_shared"):
            self.assertIn(text, r.out)

    def test_an_infeasible_tec_is_not_a_number(self):
        # SOI's heaters put ~98 W on the chip: the TEC has no steady state, so its power is left
        # out of every figure (text and JSON), with the reason; the exit code is still 0.
        r = run("prism", "cost", "soi")
        self.assertExit(r, 0)
        self.assertIn("infeasible (the TEC has no steady state", r.out)
        self.assertIn("left out of the totals", r.out)
        self.assertIn("not comparable: the TEC is infeasible", r.out)
        self.assertNotIn("e+04 W", r.out)
        self.assertNotRegex(r.out, r"TEC [0-9.e+]+ W,")
        j = run("prism", "cost", "soi", "--json")
        self.assertExit(j, 0)
        c = j.json()
        self.assertFalse(c["tec_included"])
        self.assertIsNone(c["tec_power_w"])
        self.assertIsNone(c["tec_over_latency_j"])
        self.assertIsNone(c["thermal"]["tec_power_w"])
        self.assertFalse(c["thermal"]["feasible"])
        self.assertEqual(c["tec_reason"], c["thermal"]["reason"])
        self.assertIn("no steady state", c["tec_reason"])
        self.assertNotIn("tec", [i["name"] for i in c["static_power"]])
        self.assertNotIn("tec", [i["name"] for i in c["energy_per_query"]])
        self.assertAlmostEqual(sum(i["watts"] for i in c["static_power"]), c["static_power_w"],
                               delta=1e-12 * c["static_power_w"])
        self.assertLess(c["static_power_w"], 1e3)  # the heaters alone (~100 W), no 6.5e4 W
        seed = run("prism", "cost", "seed", "--json").json()
        self.assertTrue(seed["tec_included"])
        self.assertGreater(seed["tec_power_w"], 0)
        self.assertIn("tec", [i["name"] for i in seed["static_power"]])

    def test_cost_json_components_add_to_the_total(self):
        for preset in ("seed", "scaled", "multichip", "soi"):
            r = run("prism", "cost", preset, "--json")
            self.assertExit(r, 0)
            j = r.json()
            total = sum(c["joules"] for c in j["energy_per_query"])
            self.assertAlmostEqual(total, j["total_energy_j"], delta=1e-9 * total)
            for c in j["energy_per_query"]:
                self.assertTrue(c["provenance"], c["name"])
            self.assertAlmostEqual(sum(a["m2"] for a in j["area"]), j["area_m2"],
                                   delta=1e-9 * j["area_m2"])
            self.assertEqual(j["seed"]["dynamic_energy_j"], 1.57e-9)
        self.assertEqual(run("prism", "cost", "scaled", "--json").json()["timeline"]["passes"], 8)

    def test_the_bias_lock_power_is_priced_beside_the_static_power(self):
        # lock_power.h's closed form under the periodic trigger: every ring of every bank is
        # relocked 1 / interval times a second, each lock `halvings` x iteration_energy.
        r = run("prism", "cost", "seed_fit", "--set", "calibration.trigger=periodic",
                "--set", "calibration.interval=0.5 s", "--json")
        self.assertExit(r, 0)
        j = r.json()
        lock = j["lock"]
        self.assertTrue(lock["feasible"], lock["reason"])
        self.assertEqual(lock["relock_rate_hz"], 2.0)
        self.assertGreater(lock["halvings"], 0)
        self.assertAlmostEqual(lock["energy_per_lock_j"], lock["halvings"] * 20e-12, delta=1e-20)
        self.assertAlmostEqual(lock["power_per_ring_w"], lock["energy_per_lock_j"] * 2.0,
                               delta=1e-22)
        self.assertAlmostEqual(lock["rings"], 8 * 256 * 1 * 32)  # banks x rows x chips x channels
        self.assertAlmostEqual(lock["power_w"], lock["rings"] * lock["power_per_ring_w"],
                               delta=1e-12 * lock["power_w"])
        text = run("prism", "cost", "seed_fit", "--set", "calibration.trigger=periodic",
                   "--set", "calibration.interval=0.5 s")
        self.assertExit(text, 0)
        self.assertIn("bias lock (relocks)", text.out)
        self.assertIn("total with the lock", text.out)

    def test_timeline_latency_is_the_sum_of_states(self):
        r = run("prism", "timeline", "scaled", "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertAlmostEqual(sum(p["duration_s"] for p in j["phases"]), j["latency_s"],
                               delta=1e-15)
        self.assertEqual(sum(p["state"] == "INTEGRATE" for p in j["phases"]), 8)
        text = run("prism", "timeline", "seed")
        self.assertExit(text, 0)
        for state in ("DAC_SETUP", "OPTICAL_PROP", "INTEGRATE", "ADC_CONV", "TOPK"):
            self.assertIn(state, text.out)

    def test_throughput_net_of_relocks(self):
        # qps_net = qps x (1 - relock events per s x mean relock time), from a 2 s drift run
        # (periodic relock every 1 s on seed_fit); text and JSON for cost and timeline.
        r = run("prism", "cost", "seed_fit", "--drift-duration", "2 s", "--json")
        self.assertExit(r, 0)
        j = r.json()
        rl = j["relocks"]
        self.assertTrue(rl["available"], rl)
        self.assertGreaterEqual(rl["relocks"], 2)
        self.assertAlmostEqual(rl["relock_rate_per_s"], rl["relocks"] / 2.0)
        self.assertAlmostEqual(rl["busy_fraction"], rl["lock_time_s"] * rl["relock_rate_per_s"],
                               delta=1e-15)
        self.assertGreater(rl["busy_fraction"], 0.0)
        self.assertEqual(rl["queries_per_second"], j["system_queries_per_second"])
        self.assertAlmostEqual(rl["queries_per_second_net_of_relocks"],
                               rl["queries_per_second"] * (1 - rl["busy_fraction"]),
                               delta=1e-9 * rl["queries_per_second"])
        self.assertLess(rl["queries_per_second_net_of_relocks"], rl["queries_per_second"])
        text = run("prism", "cost", "seed_fit", "--drift-duration", "2 s")
        self.assertExit(text, 0)
        self.assertIn("net of relocks", text.out)
        t = run("prism", "timeline", "seed_fit", "--drift-duration", "2 s", "--json")
        self.assertExit(t, 0)
        tj = t.json()
        self.assertEqual(tj["relocks"]["queries_per_second"], tj["queries_per_second"])
        self.assertAlmostEqual(tj["relocks"]["busy_fraction"], rl["busy_fraction"], delta=1e-15)
        self.assertIn("net of relocks", run("prism", "timeline", "seed_fit", "--drift-duration",
                                            "2 s").out)
        # SOI: the TEC cannot hold the chip, so there is no relock rate (with the reason).
        soi = run("prism", "cost", "soi", "--drift-duration", "0.1 s", "--json").json()["relocks"]
        self.assertFalse(soi["available"])
        self.assertTrue(soi["reason"])
        self.assertInputError(run("prism", "cost", "seed", "--drift-duration", "1 ms"),
                              "--drift-duration")

    def test_bad_input_exits_2(self):
        bad = self.write("bad.yaml", "schema_version: 1\nkind: accelerator\npreset: seed\n"
                                     "selection:\n  top_k: -1\n")
        self.assertInputError(run("prism", "cost", bad), "selection.top_k")
        self.assertInputError(run("prism", "timeline", "no_such_accelerator"),
                              "no_such_accelerator")


class PrismDesign(CliTest):
    """`lightsim prism design`: tiny grids whose answer is known (each run ~1 s at 4K tokens)."""

    SMALL = ["--set", "workload.tokens=4096", "--set", "workload.steps=2"]

    def design(self, space, target="{metric: mass_recall, recall: 0.5}"):
        return self.write("d.yaml", f"""schema_version: 1
kind: prism_design
accelerator: {{preset: seed_fit}}
workload: {{preset: qwen2.5-7b-layered, tokens: 4096, layers: [14], steps: 2}}
space: {space}
target: {target}
""")

    def test_an_aliasing_comb_is_infeasible_and_named(self):
        # seed_fit's 20 um ring has an 8.35 nm FSR: 32 channels at 0.2 nm (6.4 nm) fit, at
        # 0.4 nm (12.8 nm) they alias. Only the 0.2 nm device is scored.
        r = run("prism", "design", str(self.design("{channel_spacing: [0.2 nm, 0.4 nm]}")),
                "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertEqual((j["candidates"], j["devices"], j["feasible"]), (2, 2, 1))
        removal = {c["name"]: c["removed"] for c in j["removal"]}
        self.assertEqual(removal["aliasing"], 1)
        self.assertEqual(j["best"]["index"], 0)
        margins = {c["name"]: c for c in j["best"]["constraints"]}
        self.assertAlmostEqual(margins["aliasing"]["margin"], 8.346 - 6.4, delta=0.01)
        self.assertEqual(margins["aliasing"]["sense"], "at_most")
        for name in ("crosstalk", "tuning_range", "link_budget", "reticle", "tec"):
            self.assertGreater(margins[name]["margin"], 0, name)
        # Only the aliasing comb: no feasible design, aliasing binding.
        r = run("prism", "design", str(self.design("{channel_spacing: [0.4 nm]}")))
        self.assertExit(r, 0)
        self.assertIn("No feasible design meets the target. Binding constraint: aliasing", r.out)
        self.assertIn("1 of 1 candidates", r.out)

    def test_a_target_no_candidate_meets_gives_no_feasible_design(self):
        # 4-bit weights on 32 channels do not select the exact top-32 by attention mass.
        r = run("prism", "design", str(self.design("{weight_bits: [4]}",
                                                   "{metric: mass_recall, recall: 1.0}")),
                "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertIsNone(j["best"])
        self.assertEqual(j["binding"]["constraint"], "recall_target")
        self.assertIn("below the target 1", j["binding"]["reason"])
        self.assertEqual(len(j["front"]), 1)

    def test_results_are_equal_at_one_and_two_threads(self):
        # chips and k do not change the scores: 16 candidates, still 2 recall tuples.
        args = ["prism", "design", "tiny", "--json", *self.SMALL, "--set", "space.chips=[1,2]",
                "--set", "space.top_k=[8,16]"]
        one = run("--threads", "1", *args)
        two = run("--threads", "2", *args)
        self.assertExit(one, 0)
        self.assertEqual(one.out, two.out)
        j = one.json()
        self.assertEqual(j["candidates"], 16)
        # Q 1e4 at 0.2 nm spacing leaks -> crosstalk; the two bit widths share nothing else.
        self.assertEqual({c["name"]: c["removed"] for c in j["removal"]}["crosstalk"], 8)
        self.assertEqual(j["scored_tuples"], 2)

    def test_the_projection_is_a_design_variable_scored_exactly_beside_the_hardware(self):
        # Two projections of the same device: two layouts, two recall tuples.
        r = run("prism", "design", str(self.design("{projection: [pca, random]}")), "--json")
        self.assertExit(r, 0)
        j = r.json()
        self.assertEqual((j["candidates"], j["feasible"], j["scored_tuples"]), (2, 2, 2))
        # Each alone: the ideal (exact, no hardware) figure is the projection's own, PCA's
        # above random's at d = 32.
        ideal = {}
        for p in ("pca", "random"):
            one = run("prism", "design", str(self.design(f"{{projection: [{p}]}}")), "--json")
            self.assertExit(one, 0)
            f = one.json()["front"][0]
            self.assertEqual(f["variables"]["projection"], p)
            ideal[p] = f["figures"]["ideal_mass_recall"]
        self.assertGreater(ideal["pca"], ideal["random"])
        # The lock is priced and checked: the base's +-2 pm in a few halvings, micro-watts.
        best = j["front"][0]
        lock = {c["name"]: c for c in best["constraints"]}["lock"]
        self.assertTrue(lock["passed"])
        self.assertGreater(lock["margin"], 0)
        self.assertGreater(best["figures"]["lock_power_w"], 0)
        self.assertLess(best["figures"]["lock_power_w"], 1e-3 * best["figures"]["static_power_w"])

    def test_a_qat_projection_is_trained_on_half_the_steps_and_every_layout_scored_on_the_rest(
            self):
        # QAT (docs/prism.md "Compensation: QAT") trained through the candidate's 4-bit
        # quantizers on steps 0-1; both layouts are then scored on steps 2-3 only. On the
        # held-out steps QAT's mass recall through the hardware is above PCA's at equal cost,
        # so PCA's candidate is dominated and the front is QAT's alone.
        spec = self.write("q.yaml", """schema_version: 1
kind: prism_design
accelerator: {preset: seed_fit}
workload: {preset: qwen2.5-7b-layered, tokens: 8192, layers: [14], steps: 4}
space: {projection: [pca, qat], weight_bits: [4]}
target: {metric: mass_recall, recall: 0.5}
""")
        one = run("--threads", "1", "prism", "design", str(spec), "--json")
        two = run("--threads", "2", "prism", "design", str(spec), "--json")
        self.assertExit(one, 0)
        self.assertEqual(one.out, two.out)
        j = one.json()
        self.assertEqual(j["first_scored_step"], 2)
        self.assertEqual((j["feasible"], j["scored_tuples"]), (2, 2))
        self.assertEqual([c["variables"]["projection"] for c in j["front"]], ["qat"])
        self.assertGreater(j["front"][0]["figures"]["mass_recall"], 0.8)
        pca = run("prism", "design", str(spec), "--set", "space.projection=[pca]", "--json")
        self.assertExit(pca, 0)
        self.assertEqual(pca.json()["first_scored_step"], 0)
        self.assertInputError(run("prism", "design", str(spec), "--set", "workload.steps=1"),
                              "workload.steps")

    def test_several_contexts_judge_each_design_by_its_worst(self):
        # contexts: each candidate checked and scored at 4K and 16K; its figures are the lowest
        # recall and highest cost of the two, each constraint at its smaller margin, and each
        # context's figures are those of a search at that context alone.
        both = run("prism", "design", str(self.design("{weight_bits: [4, 8]}")), "--set",
                   "contexts=[16384]", "--json")
        self.assertExit(both, 0)
        j = both.json()
        self.assertEqual(j["contexts"], [4096, 16384])
        alone = {}
        for t in (4096, 16384):
            r = run("prism", "design", str(self.design("{weight_bits: [4, 8]}")), "--set",
                    f"workload.tokens={t}", "--json")
            self.assertExit(r, 0)
            self.assertEqual(r.json()["contexts"], [t])
            alone[t] = {c["index"]: c for c in r.json()["front"]}
        self.assertTrue(j["front"])
        for c in j["front"]:
            f, by = c["figures"], c["figures"]["by_context"]
            self.assertEqual([b["tokens"] for b in by], [4096, 16384])
            for b in by:
                one = alone[b["tokens"]].get(c["index"])
                if one is None:
                    continue  # dominated at that context alone
                for key in ("mass_recall", "recall", "energy_per_query_j"):
                    self.assertEqual(b[key], one["figures"][key], key)
                margins = {k["name"]: k["margin"] for k in one["constraints"]}
                for k in c["constraints"]:
                    if k["margin"] is not None and margins.get(k["name"]) is not None:
                        self.assertLessEqual(k["margin"], margins[k["name"]], k["name"])
            self.assertEqual(f["mass_recall"], min(b["mass_recall"] for b in by))
            self.assertEqual(f["recall"], min(b["recall"] for b in by))
            self.assertEqual(f["energy_per_query_j"], max(b["energy_per_query_j"] for b in by))
            self.assertEqual(f["latency_per_step_s"], max(b["latency_per_step_s"] for b in by))
        # Recall falls with the context here, so the longer one binds.
        self.assertLess(j["front"][0]["figures"]["by_context"][1]["mass_recall"],
                        j["front"][0]["figures"]["by_context"][0]["mass_recall"])
        # A context beside the workload's own that repeats it changes nothing.
        same = run("prism", "design", str(self.design("{weight_bits: [4, 8]}")), "--set",
                   "contexts=[4096]", "--json")
        plain = run("prism", "design", str(self.design("{weight_bits: [4, 8]}")), "--json")
        self.assertEqual(same.json(), plain.json())
        self.assertInputError(run("prism", "design", str(self.design("{weight_bits: [4]}")),
                                  "--set", "contexts=[0]"), "contexts")

    def test_a_bad_space_key_is_exit_2_naming_it(self):
        r = run("prism", "design", str(self.design("{radius: [10 um]}")))
        self.assertInputError(r, "radius")
        r = run("prism", "design", str(self.design("{query_encoding: [coherent]}")))
        self.assertInputError(r, "query_encoding", "coherent")
        r = run("prism", "design", str(self.design("{projection: [svd]}")))
        self.assertInputError(r, "projection", "svd")
        r = run("prism", "design", str(self.design("{q_loaded: [5e4]}",
                                                   "{metric: recall, recall: 1.5}")))
        self.assertInputError(r, "recall")


class PrismDesignStudy(CliTest):
    """The `prism_design` study's GPU tables at a small size (issue 23: deterministic for any
    thread count): vs_gpu and step_costs byte for byte at --threads 1 and 2."""

    def test_gpu_tables_are_equal_at_one_and_two_threads(self):
        files = []
        for threads in (1, 2):
            out = self.tmp / f"t{threads}"
            # 32 blocks of 128 tokens, k = 8 (at k >= the blocks every selector is exact); 2
            # steps: the QAT projection of qwen-128k trains on one and is scored on the other.
            r = run("--threads", threads, "study", "run", "prism_design", "--quick",
                    "--set", "design.workload.tokens=4096", "--set", "design.workload.steps=2",
                    "--set", "design.space.top_k=[8]", "--set", "baselines.batches=[1,8]",
                    "--set", "baselines.gpus=[h100]", "--set", 'robustness.profile=""',
                    "--out", out, "-q", timeout=600)
            self.assertExit(r, 0)
            files.append({name: (out / f"prism_design_{name}.csv").read_text()
                          for name in ("vs_gpu", "step_costs")})
        one, two = files
        for name in ("vs_gpu", "step_costs"):
            self.assertEqual(one[name], two[name], f"{name} differs between 1 and 2 threads")
            rows = one[name].strip().splitlines()
            self.assertGreater(len(rows), 2, name)
        for selector in ("mean_key", "quest", "dsa_indexer", "faiss_ivfpq"):
            self.assertIn(selector, one["vs_gpu"])
            self.assertIn(selector, one["step_costs"])


class PrismScorer(CliTest):
    def test_kv_select_with_prism(self):
        config = self.write("tiny.yaml", TINY)
        out = self.tmp / "cache"
        self.assertExit(run("kv", "generate", config, "--out", out, "-q"), 0)
        r = run("kv", "select", "--cache", out, "--scorer", "signature:pca,prism:pca",
                "--accelerator", "seed_fit", "--k", "2,4", "--recent", "128", "--json")
        self.assertExit(r, 0)
        res = r.json()["results"]
        self.assertIn("prism:pca:d32", res)
        self.assertGreater(res["prism:pca:d32"]["4"]["recall"]["mean"], 0.0)
        self.assertInputError(run("kv", "select", "--cache", out, "--scorer", "prism"),
                              "--accelerator")


if __name__ == "__main__":
    unittest.main()

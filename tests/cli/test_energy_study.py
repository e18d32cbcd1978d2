"""The `energy` study through `lightsim study run energy --quick --out DIR`: its tables, the
seed's claims beside ours, the GPU scan's closed form, and a GPU without the HBM energy."""
import json
import unittest

from clitest import CliTest, run

VERDICTS = {"holds", "holds under conditions", "does not hold", "not comparable"}


class EnergyStudy(CliTest):
    def run_quick(self, *extra):
        out = self.tmp / "energy"
        r = run("study", "run", "energy", "--quick", "--out", out, "--quiet", *extra, timeout=300)
        self.assertExit(r, 0)
        return out, json.loads((out / "energy.json").read_text())

    def rows(self, result, name):
        table = next(t for t in result["tables"] if t["name"] == name)
        cols = [c["name"] for c in table["columns"]]
        return [dict(zip(cols, row)) for row in table["rows"]]

    def test_crossover_names_the_contexts_faiss_ran_at(self):
        # FAISS stops at 32768 of the quick run's 4096-131072: a crossover "never" must not
        # claim the contexts FAISS did not run (it once said "never in 4096-131072").
        _, result = self.run_quick("--set", "faiss_max_context=32768")
        faiss = [r for r in self.rows(result, "crossover") if r["alternative"] == "faiss_ivfpq"]
        self.assertTrue(faiss)
        for r in faiss:
            self.assertNotIn("131072", r["crossover"], r)
            if r["crossover"].startswith("never"):
                self.assertEqual(r["crossover"], "never in 4096-32768", r)
            else:
                self.assertLessEqual(r["crossover_tokens"], 32768, r)
            self.assertIn("faiss_ivfpq ran to 32768 tokens only", r["reason"], r)

    def test_quick(self):
        out, result = self.run_quick()
        self.assertEqual(result["study"], "energy")
        claims = {c["id"]: c for c in result["claims"]}
        for cid in ("photonic_dynamic", "photonic_with_tec", "gpu_scan_128", "gpu_scan_32",
                    "faiss_ivfpq", "icms_lpddr5", "gpu_scan_latency", "soi_power_ratio",
                    "prism_lowest"):
            self.assertIn(cid, claims)
            self.assertIn(claims[cid]["verdict"], VERDICTS)
            if claims[cid]["verdict"] != "holds":
                self.assertTrue(claims[cid]["explanation"] or claims[cid]["conditions"], cid)
        # Seed figures come from configs/references/energy_seed.yaml (nJ here).
        self.assertAlmostEqual(claims["gpu_scan_128"]["seed_value"], 16300, delta=1e-6)
        self.assertAlmostEqual(claims["photonic_dynamic"]["seed_value"], 1.57, delta=1e-9)
        self.assertEqual(claims["soi_power_ratio"]["seed_value"], 2400)
        # The GPU scan at 128K on H100: 1024 x 2 x 128 x 2 B x 3.9 pJ/bit.
        self.assertAlmostEqual(claims["gpu_scan_128"]["ours"], 1024 * 2 * 128 * 2 * 31.2e-3,
                               delta=1e-6)
        self.assertEqual(claims["gpu_scan_128"]["verdict"], "holds under conditions")
        per_query = self.rows(result, "per_query")
        systems = {r["system"] for r in per_query}
        for s in ("prism_dynamic", "prism_with_tec", "gpu_scan_minmax_128", "gpu_scan_mean_32",
                  "faiss_ivfpq", "lpddr5_minmax_128"):
            self.assertIn(s, systems)
        self.assertEqual({r["gpu"] for r in per_query if r["system"] == "faiss_ivfpq"},
                         {"h100", "h200", "b200"})
        # Energy of the scan doubles with the context (blocks).
        scan = {r["context"]: r["energy"] for r in per_query
                if r["system"] == "gpu_scan_minmax_128" and r["gpu"] == "h100"}
        self.assertAlmostEqual(scan[131072] / scan[32768], 4.0, places=9)
        prism = {r["context"]: r for r in self.rows(result, "prism")}
        self.assertEqual(prism[4096]["accelerator"], "seed")
        self.assertEqual(prism[131072]["accelerator"], "scaled")
        faiss = self.rows(result, "faiss")
        self.assertEqual([r["context"] for r in faiss], [4096, 32768, 131072])
        for r in faiss:
            self.assertAlmostEqual(r["bytes"], r["codes"] + r["centroids"] + r["codebook"],
                                   delta=1e-6 * r["bytes"])
        crossover = self.rows(result, "crossover")
        self.assertTrue(crossover)
        for r in crossover:
            if r["crossover_tokens"] == 0:
                self.assertTrue(r["crossover"].startswith("never"), r)
        # Same TFLN/SOI ratio as the prism study (same presets, same code path).
        r = run("study", "run", "prism", "--quick", "--out", self.tmp / "prism", "--quiet",
                timeout=300)
        self.assertExit(r, 0)
        prism_claims = {c["id"]: c for c in
                        json.loads((self.tmp / "prism" / "prism.json").read_text())["claims"]}
        self.assertAlmostEqual(claims["soi_power_ratio"]["ours"],
                               prism_claims["soi_power_ratio"]["ours"], places=9)
        # The SOI preset's TEC cannot hold its chip (98 W of heaters through the seed's
        # package): its power is not a figure, so the ratio leaves both TECs out and says so.
        power = {r["preset"]: r for r in self.rows(result, "power")}
        self.assertFalse(power["soi"]["tec_holds"])
        self.assertIn("cannot", power["soi"]["tec_note"])
        self.assertTrue(power["seed"]["tec_holds"])
        self.assertEqual(power["soi"]["tec_power"], 0)
        self.assertAlmostEqual(claims["soi_power_ratio"]["ours"],
                               power["soi"]["power_full_rate"] / power["seed"]["power_full_rate"],
                               places=9)
        self.assertIn("TECs are left out", claims["soi_power_ratio"]["explanation"])
        self.assertIn("TECs are left out", prism_claims["soi_power_ratio"]["explanation"])
        self.assertTrue((out / "energy_per_query.csv").exists())
        self.assertTrue(any(c["table"] == "per_query" for c in result["charts"]))

    def test_beyond_the_largest_accelerator(self):
        _, result = self.run_quick("--set", "contexts=[4096, 2097152]", "--set",
                                   "faiss_max_context=4096")
        prism = {r["context"]: r for r in self.rows(result, "prism")}
        self.assertFalse(prism[2097152]["fits"])
        self.assertIn("16384 blocks exceed", prism[2097152]["note"])
        systems = {r["system"] for r in self.rows(result, "per_query") if r["context"] == 2097152}
        self.assertNotIn("prism_dynamic", systems)

    def test_gpu_without_hbm_energy(self):
        gpu = self.write("nohbm.yaml", "schema_version: 1\nkind: gpu\nname: X\n")
        r = run("study", "run", "energy", "--quick", "--out", self.tmp / "x", "--set",
                f"gpus=[{gpu}]", "--set", f"chart_gpu={gpu}")
        self.assertInputError(r, "nohbm.yaml", "hbm_energy_per_byte")


if __name__ == "__main__":
    unittest.main()

"""`lightsim fabric show|collective|kernels|design` as a user runs them."""
import unittest

from clitest import SOURCE, CliTest, run


class FabricCli(CliTest):
    def test_collective_json(self):
        r = run("fabric", "collective", "--fabric", "seed_copper_1152", "--op", "all-to-all",
                "--gpus", "144", "--bytes", "256MiB", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["algorithm"], "direct")
        self.assertEqual(doc["bounding_tier"], "scale_out")
        self.assertAlmostEqual(doc["busbw_Bps"], doc["algbw_Bps"] * 143 / 144, delta=1.0)
        r = run("fabric", "collective", "--fabric", "photonic_4x_1152", "--op", "all-to-all",
                "--gpus", "144", "--bytes", "256MiB", "--json")
        self.assertEqual(r.json()["bounding_tier"], "photonic")

    def test_text_and_sweep(self):
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "8", "--bytes", "8 GiB")
        self.assertExit(r, 0)
        self.assertIn("in-switch", r.out)
        r = run("fabric", "collective", "--fabric", "gb200_nvl72", "--gpus", "72", "--sweep",
                "--min-bytes", "1MiB", "--max-bytes", "8GiB", "--json")
        self.assertExit(r, 0)
        curve = [p["busbw_Bps"] for p in r.json()]
        self.assertEqual(len(curve), 14)
        self.assertEqual(curve, sorted(curve))  # busbw grows with size

    def test_sizes_take_nccl_tests_suffixes(self):
        # `--bytes 8G` as nccl-tests users type it (was refused: "did you mean 'g'?").
        runs = [run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "8", "--bytes",
                    size, "--json") for size in ("8G", "8GiB", "8589934592 B")]
        for r in runs:
            self.assertExit(r, 0)
        self.assertEqual(runs[0].json(), runs[1].json())
        self.assertEqual(runs[0].json(), runs[2].json())

    def test_show_derives_cpo(self):
        r = run("fabric", "show", "photonic_4x_1152")
        self.assertExit(r, 0)
        self.assertIn("4.00x the GPU's 900 GB/s scale-up | 4.0x", r.out)
        self.assertIn("1.60 Tb/s | 1.60 Tb/s", r.out)
        r = run("fabric", "show", "photonic_cpo_1152", "--json")
        self.assertAlmostEqual(r.json()["tiers"][0]["ratio_to_gpu_scale_up"], 14.22, delta=0.01)

    def test_bad_input(self):
        r = run("fabric", "collective", "--fabric", "seed_copper_1152", "--gpus", "2000")
        self.assertInputError(r, "holds at most 1152 GPUs")
        r = run("fabric", "collective", "--fabric", "nope", "--gpus", "8")
        self.assertInputError(r, "no fabric 'nope'")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--op", "allreduce")
        self.assertInputError(r, "unknown collective 'allreduce'")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--bytes", "5 m")
        self.assertInputError(r, "--bytes", "data size")
        r = run("fabric", "collective", "--fabric", "gb200_nvl72", "--gpus", "8",
                "--algorithm", "nvls")
        self.assertInputError(r, "not available", "in-switch")


class NcclAndDeepEp(CliTest):
    """NCCL's algorithms across nodes, DeepEP's modes and the measured-collectives file."""

    MEASURED = (SOURCE / "configs/references/collectives_measured.yaml").read_text()

    def test_ring_across_nodes_uses_every_nic_and_nvls_tree_can_be_forced(self):
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "16", "--bytes",
                "8 GiB", "--algorithm", "ring", "--json")
        self.assertExit(r, 0)
        # 2 nodes x 8 NICs at 400 Gb/s x 0.92: the node's NIC aggregate, not one NIC's 46 GB/s.
        self.assertAlmostEqual(r.json()["busbw_Bps"] / 1e9, 8 * 46, delta=2)
        self.assertEqual(r.json()["bounding_tier"], "scale_out")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "16", "--bytes",
                "8 GiB", "--algorithm", "nvls-tree", "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json()["algorithm"], "in-switch-tree")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "8", "--bytes",
                "1 GiB", "--algorithm", "nvls-tree")
        self.assertInputError(r, "not available", "more than one")

    NCCL = (SOURCE / "configs/nccl/nccl_2_30.yaml").read_text()

    def test_nccl_protocol_is_chosen_by_size_and_can_be_forced(self):
        def protocol(size, *extra):
            r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "16", "--bytes",
                    size, "--algorithm", "ring", *extra, "--json")
            self.assertExit(r, 0)
            return r.json()["protocol"]
        # NCCL's constants put the ring's LL -> LL128 switch near 0.8 MB and LL128 -> Simple
        # near 84 MB on 2 x 8 H100 (tests/unit/fabric/nccl_test.cpp derives both).
        self.assertEqual(protocol("64KiB"), "LL")
        self.assertEqual(protocol("8MiB"), "LL128")
        self.assertEqual(protocol("1GiB"), "Simple")
        self.assertEqual(protocol("1GiB", "--protocol", "ll128"), "LL128")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "8", "--bytes", "1MiB",
                "--protocol", "ll")
        self.assertInputError(r, "protocol 'LL'", "not available")
        r = run("fabric", "collective", "--fabric", "dgx_h100", "--gpus", "16", "--protocol", "ll64")
        self.assertInputError(r, "--protocol")

    def check_bad_nccl(self, old, new, *expected):
        self.assertIn(old, self.NCCL)
        self.write("bad.yaml", self.NCCL.replace(old, new, 1))
        fabric = (SOURCE / "configs/fabrics/dgx_h100.yaml").read_text().replace(
            "tuning: nccl_2_30", "tuning: bad.yaml", 1)
        path = self.write("fabric.yaml", fabric)
        r = run("fabric", "collective", "--fabric", path, "--gpus", "16", "--bytes", "1MiB")
        self.assertInputError(r, "bad.yaml:", *expected)

    def test_bad_nccl_constants_are_exit_2_naming_file_and_key(self):
        self.check_bad_nccl("net_overhead: 1 us", "net_overhead: 1", "net_overhead", "missing unit")
        self.check_bad_nccl("ring_ll_fraction: 0.5", "ring_ll_fraction: -0.5", "ring_ll_fraction")
        self.check_bad_nccl("ring: {ll: 6.6 us", "ring: {ll: -6.6 us", "base_latency.ring.ll")
        self.check_bad_nccl("[48.0, 45.0, 42.0", "[45.0, 48.0, 42.0", "inter_channel_speeds_gb_s",
                            "strictly decreasing")
        fabric = (SOURCE / "configs/fabrics/dgx_h100.yaml").read_text().replace(
            "arch: hopper", "arch: ampere", 1)
        r = run("fabric", "collective", "--fabric", self.write("arch.yaml", fabric), "--gpus", "16")
        self.assertInputError(r, "arch.yaml:", "nccl.arch")

    def test_deepep_low_latency_grows_with_ep(self):
        times = []
        for ep in (8, 32, 128):
            r = run("fabric", "expert", "--fabric", "hgx_h800", "--mode", "low_latency",
                    "--ep", str(ep), "--tokens", "128", "--json")
            self.assertExit(r, 0)
            times.append(r.json()["time_s"])
        self.assertEqual(times, sorted(times))
        self.assertGreater(times[-1] / times[0], 2)
        r = run("fabric", "expert", "--fabric", "hgx_h800", "--mode", "fast")
        self.assertInputError(r, "--mode")
        r = run("fabric", "expert", "--fabric", "hgx_h800", "--ep", "4096")
        self.assertInputError(r, "holds at most 2048")

    def check_bad(self, old, new, *expected):
        self.assertIn(old, self.MEASURED)
        path = self.write("collectives_measured.yaml", self.MEASURED.replace(old, new, 1))
        r = run("config", "check", path)
        self.assertInputError(r, f"{path}:", *expected)

    def test_bad_measured_rows_are_exit_2_naming_file_and_key(self):
        self.check_bad('busbw: "480 GB/s"', "busbw: 480", "busbw", "missing unit")
        self.check_bad('busbw: "480 GB/s"', 'busbw: "-480 GB/s"', "busbw")
        self.check_bad('bytes: "8 GiB"', 'bytes: "8 GiB"\n    latency: "3 us"',
                       "h100_nvls_8gpu", "exactly one of busbw, bandwidth, latency")
        self.check_bad('op: "all_reduce"', 'op: "allreduce"', "h100_nvls_8gpu",
                       "unknown collective")
        self.check_bad('algorithm: "low_latency"', 'algorithm: "fast"', "expected normal or low_latency")

    def test_prefill_study_validates_the_collective_rows(self):
        out = self.tmp / "p"
        r = run("study", "run", "prefill", "--quick", "--out", out, "--quiet", timeout=300)
        self.assertExit(r, 0)
        import json
        tables = {t["name"]: t for t in json.loads((out / "prefill.json").read_text())["tables"]}
        cols = [c["name"] for c in tables["collective_validation"]["columns"]]
        rows = [dict(zip(cols, row)) for row in tables["collective_validation"]["rows"]]
        self.assertGreaterEqual(len(rows), 10)
        self.assertGreaterEqual(len({r["fabric"] for r in rows}), 3)
        for row in rows:
            self.assertEqual(row["note"], "")
            self.assertAlmostEqual(row["error"], row["ours"] / row["measured"] - 1, places=9)
        free = sorted(abs(r["error"]) for r in rows if r["fitted"] == "no")
        scols = [c["name"] for c in tables["collective_validation_summary"]["columns"]]
        (summary,) = [dict(zip(scols, row))
                      for row in tables["collective_validation_summary"]["rows"]]
        self.assertEqual(summary["rows"], len(free))
        self.assertAlmostEqual(summary["worst_abs_error"], free[-1], places=12)


class KernelTables(CliTest):
    """`lightsim fabric kernels GPU` and the checks of a kernel table (kind kernel_table)."""

    TABLE = (SOURCE / "configs/kernels/h800.yaml").read_text()

    def test_prints_the_tables_with_sources(self):
        r = run("fabric", "kernels", "h800")
        self.assertExit(r, 0)
        self.assertIn("kernel table 'h800'", r.out)
        self.assertIn("fp8   K=16384", r.out)
        self.assertIn("4096:0.686", r.out)
        self.assertIn("[FA3] Fig. 5, causal mask", r.out)
        r = run("fabric", "kernels", "a100", "--json")
        self.assertExit(r, 0)
        self.assertIsNone(r.json()["table"])
        self.assertIn("no kernel table: roofline ceiling", r.json()["kernel_efficiency"])

    def check_bad(self, old, new, *expected):
        self.assertIn(old, self.TABLE)
        path = self.write("bad.yaml", self.TABLE.replace(old, new, 1))
        r = run("config", "check", path)
        self.assertInputError(r, f"{path}:", *expected)
        gpu = self.write("gpu.yaml", "schema_version: 1\nkind: gpu\nname: g\nkernels: bad.yaml\n")
        r = run("fabric", "kernels", gpu)
        self.assertInputError(r, "bad.yaml:", *expected)

    def test_missing_unit_is_exit_2_naming_file_and_key(self):
        self.check_bad("memory_half_bytes: 4 MB", "memory_half_bytes: 4", "memory_half_bytes:",
                       "missing unit")
        self.check_bad("launch_overhead: 0 s", "launch_overhead: 3", "launch_overhead:",
                       "missing unit")

    def test_negative_efficiency_is_exit_2_naming_file_and_key(self):
        self.check_bad("efficiency: [0.111, 0.181, 0.298]", "efficiency: [0.111, -0.181, 0.298]",
                       "gemm[0].efficiency[1]: -0.181 is out of range")

    def test_non_monotone_sizes_are_exit_2_naming_file_and_key(self):
        self.check_bad("sizes: [64, 128, 4096], efficiency: [0.111",
                       "sizes: [64, 4096, 128], efficiency: [0.111",
                       "gemm[0]:", "'sizes' must be strictly increasing")

    def test_prefill_result_names_its_efficiency_source(self):
        base = ["prefill", "run", "deepseek_h800", "--fabric", "hgx_h800", "--gpus", "32",
                "--plan", "TP=1,EP=32", "--json"]
        r = run(*base)
        self.assertExit(r, 0)
        self.assertTrue(r.json()["kernel_efficiency"].startswith("kernel table 'h800'"))
        # --set reaches the table through the GPU's reference.
        slow = run(*base, "--set", "fabric.gpu.kernels.memory_efficiency_max=0.3")
        self.assertExit(slow, 0)
        self.assertLess(slow.json()["tokens_per_s_per_gpu"], r.json()["tokens_per_s_per_gpu"])



class FabricDesignCli(CliTest):
    def test_presets(self):
        r = run("fabric", "design", "copper_nvl72", "--json")
        self.assertExit(r, 0)
        doc = r.json()
        self.assertEqual(doc["domain"]["gpus"], 72)
        self.assertEqual(doc["domain"]["binding"][0], "reach")
        self.assertEqual(doc["bandwidth"]["bidirectional_Bps"], 1.8e12)
        r = run("fabric", "design", "photonic_pod_1152")
        self.assertExit(r, 0)
        self.assertIn("domain: 1152 GPUs in 16 rack(s), bound by racks", r.out)

    def test_set_varies_an_input(self):
        # Three metres of copper reach the neighbours in the row; two switch levels hold them.
        r = run("fabric", "design", "copper_nvl72", "--set", "reach=3 m", "--set",
                "switch_levels=2", "--json")
        self.assertExit(r, 0)
        self.assertEqual(r.json()["domain"]["gpus"], 3 * 72)
        self.assertEqual(r.json()["domain"]["binding"], ["reach"])

    def test_bad_input(self):
        r = run("fabric", "design", "copper_nvl72", "--set", "lanes_per_gpu=0")
        self.assertInputError(r, "lanes_per_gpu", "out of range")
        r = run("fabric", "design", "copper_nvl72", "--set", "reach=-1 m")
        self.assertInputError(r, "reach", "out of range")
        r = run("fabric", "design", "copper_nvl72", "--set", "reach=0.5 m")
        self.assertInputError(r, "shorter than in_rack_cable")
        r = run("fabric", "design", "nope")
        self.assertInputError(r, "no fabric design 'nope'")


if __name__ == "__main__":
    unittest.main()

"""The compensation studies `enhancement` and `balanced` at their quick size: result JSON with
the seed's figures beside ours, the tables and charts, and a bad config rejected."""
import json
import unittest

from clitest import CliTest, run


class CompensationStudies(CliTest):
    def run_study(self, name):
        out = self.tmp / name
        r = run("study", "run", name, "--quick", "--out", out, "--json", timeout=300)
        self.assertExit(r, 0)
        doc = json.loads((out / f"{name}.json").read_text())
        self.assertEqual(doc["study"], name)
        return doc, r.json()

    def test_enhancement(self):
        doc, printed = self.run_study("enhancement")
        self.assertEqual(printed["study"], "enhancement")
        claims = {c["id"]: c for c in doc["claims"]}
        self.assertEqual(claims["single_evaluation_recall"]["seed_value"], 0.57)
        self.assertEqual(claims["voted_recall"]["seed_value"], 0.81)
        self.assertIn("no traceable source", claims["voted_recall"]["explanation"])
        for c in claims.values():
            self.assertIsNotNone(c["ours"])
        tables = {t["name"]: t for t in doc["tables"]}
        voting = tables["voting"]
        cols = [c["name"] for c in voting["columns"]]
        rows = [dict(zip(cols, row)) for row in voting["rows"]]
        self.assertEqual({r["condition"] for r in rows},
                         {"as_configured", "noise", "static", "noise_and_static"})
        for r in rows:
            self.assertGreaterEqual(r["recall_hw"], 0.0)
            self.assertLessEqual(r["recall_hw"], 1.0)
        one = [r for r in rows if r["votes"] == 1][0]
        five = [r for r in rows if r["votes"] == 5 and r["condition"] == one["condition"]][0]
        self.assertAlmostEqual(five["dynamic_energy_nj"], 5 * one["dynamic_energy_nj"])
        self.assertEqual({r[0] for r in tables["projections"]["rows"]}, {"random", "pca", "qat"})
        self.assertEqual(len(doc["charts"]), 2)

    def test_balanced(self):
        doc, _ = self.run_study("balanced")
        claim = doc["claims"][0]
        self.assertEqual(claim["id"], "balanced_recall8_gain")
        self.assertEqual(claim["seed_value"], 0.87)
        self.assertIsNotNone(claim["ours"])
        table = doc["tables"][0]
        modes = {row[1] for row in table["rows"]}
        self.assertEqual(modes, {"balanced", "single_ended"})

    def test_set_addresses_the_study_not_the_seed_reference(self):
        # top_k is a key of the balanced study's config; the seed reference has none.
        out = self.tmp / "balanced_k4"
        r = run("study", "run", "balanced", "--quick", "--set", "top_k=4", "--out", out,
                timeout=300)
        self.assertExit(r, 0)
        doc = json.loads((out / "balanced.json").read_text())
        claim = doc["claims"][0]
        self.assertEqual(claim["seed_value"], 0.87)
        self.assertIn("Recall@8 by 87%", claim["claim"])
        self.assertIn("Recall@4", doc["tables"][0]["title"])
        # Our Recall@4 gain is shown beside the seed's Recall@8 gain, not judged against it.
        self.assertEqual(claim["verdict"], "not comparable")
        self.assertIsNotNone(claim["ours"])

    def test_set_never_rewrites_the_seed_claim(self):
        # weight_bits=6 sets the study's bits; the seed's 4-bit figures stay its own, and a
        # 6-bit figure of ours is shown beside them, not judged against them.
        out = self.tmp / "enhancement_6bit"
        r = run("study", "run", "enhancement", "--quick", "--set", "weight_bits=6", "--out", out,
                timeout=300)
        self.assertExit(r, 0)
        doc = json.loads((out / "enhancement.json").read_text())
        self.assertIn("6-bit", doc["title"])
        claims = {c["id"]: c for c in doc["claims"]}
        single, voted = claims["single_evaluation_recall"], claims["voted_recall"]
        self.assertEqual(single["claim"], "4-bit Recall@32 of one evaluation is 0.57")
        self.assertEqual(voted["claim"], "50 Monte-Carlo votes raise 4-bit Recall@32 to 0.81")
        self.assertEqual(single["seed_value"], 0.57)
        for c in (single, voted):
            self.assertEqual(c["verdict"], "not comparable")
            self.assertIsNotNone(c["ours"])
            self.assertIn("6-bit weights", c["explanation"])

    def test_bad_votes_is_an_input_error(self):
        cfg = self.write("e.yaml", "schema_version: 1\nkind: enhancement_study\n"
                         "accelerator: {preset: seed_fit}\nworkload: {preset: qwen2.5-7b}\n"
                         "votes: [0]\n")
        self.assertInputError(run("study", "run", "enhancement", "--config", cfg, "--out",
                                  self.tmp / "o"), "votes")


if __name__ == "__main__":
    unittest.main()

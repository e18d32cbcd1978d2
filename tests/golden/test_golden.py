"""Golden outputs of main: every case of cases.json against its stored data/<case>.json.

Each case runs the real binary at --threads 2 (golden.py); its JSON must agree with the stored
file field by field under the case's tolerances (compare.py). A legitimate change of output is
stored with `make golden` and reviewed as a diff of tests/golden/data/ (docs/golden.md).
"""
import json
import subprocess
import unittest

import golden
from compare import Rules, compare


class Golden(unittest.TestCase):
    def test_every_case_has_one_stored_file(self):
        cases = {golden.stored_path(c).name for c in golden.load_cases()}
        stored = {p.name for p in golden.DATA.glob("*.json")}
        self.assertEqual(sorted(cases - stored), [],
                         "cases without a stored file: run `make golden`")
        self.assertEqual(sorted(stored - cases), [], "stored files of no case: run `make golden`")

    def test_every_registered_study_has_a_case(self):
        listed = subprocess.run([golden.BIN, "study", "list", "--json"], capture_output=True,
                                text=True, check=True).stdout
        cased = {c["args"][2] for c in golden.load_cases() if c["args"][:2] == ["study", "run"]}
        self.assertEqual(sorted(set(json.loads(listed)) - cased), [],
                         "registered studies without a golden case: add them to cases.json")

    def test_every_case_agrees_with_its_stored_file(self):
        def on_result(case, document, seconds):
            with self.subTest(case["name"]):
                if isinstance(document, golden.CaseError):
                    self.fail(str(document))
                path = golden.stored_path(case)
                if not path.exists():
                    self.fail(f"{case['name']}: no stored file {path} (run `make golden`)")
                stored = json.loads(path.read_text(encoding="utf-8"))
                mismatches = compare(stored, document, Rules.of_case(case), case["name"])
                self.assertEqual(mismatches, [], "\n" + "\n".join(mismatches) +
                                 "\n(if the change is intended: `make golden`, docs/golden.md)")

        golden.run_all(golden.load_cases(), 2, on_result)


if __name__ == "__main__":
    unittest.main()

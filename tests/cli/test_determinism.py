"""Every registered study gives byte-identical results at 1 and 2 threads (issue 10, part 3).

The study list comes from `lightsim study list --json`, so studies added later are covered
without editing this file. Each runs at --quick size; every file it writes (<name>.json and
one CSV per table) is compared byte for byte.
"""
import unittest

from clitest import CliTest, run


def written_files(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class Determinism(CliTest):
    def test_every_study_is_identical_at_one_and_two_threads(self):
        listed = run("study", "list", "--json")
        self.assertExit(listed, 0)
        names = listed.json()
        if not names:
            self.skipTest("no study is registered yet (`lightsim study list` is empty)")
        for name in names:
            with self.subTest(name):
                outputs = []
                for threads in (1, 2):
                    out = self.tmp / f"{name}-threads{threads}"
                    r = run("study", "run", name, "--quick", "--threads", threads, "--out", out,
                            "-q", timeout=600)
                    self.assertExit(r, 0)
                    outputs.append(written_files(out))
                one, two = outputs
                self.assertIn(f"{name}.json", one)
                self.assertEqual(sorted(one), sorted(two), "different files written")
                for file in one:
                    self.assertTrue(one[file] == two[file],
                                    f"{name}: {file} differs between --threads 1 and 2")


if __name__ == "__main__":
    unittest.main()

"""Output failures (issue 10, part 4): an unusable or full output folder is reported before any
work starts (exit 2, naming the folder); a disk that fills up during a write is an I/O error
(exit 1) naming the file, and leaves neither a truncated result nor a temporary file.

The full and read-only disks are small tmpfs mounts; without the right to mount (not root)
those cases are skipped with a message.
"""
import subprocess
import unittest

from clitest import CliTest, run

# 2 layers x 2 KV heads x 16384 tokens x 64 channels in float16: 8 MiB per array.
KV_LARGE = """schema_version: 1
kind: kv_synthetic
preset: qwen2.5-7b
model_layers: 2
layers: []
kv_heads: 2
q_heads: 4
head_dim: 64
tokens: 16384
steps: 4
key_rank: 8
needle_tokens: 16
"""
KV_TINY = KV_LARGE.replace("tokens: 16384", "tokens: 1024").replace("head_dim: 64", "head_dim: 32")


class FailureHandling(CliTest):
    def setUp(self):
        super().setUp()
        self.mounts = []

    def tearDown(self):
        for point in reversed(self.mounts):  # before the scratch folder is removed
            subprocess.run(["umount", str(point)], check=False)
        super().tearDown()

    def mount_tmpfs(self, name, options):
        point = self.tmp / name
        point.mkdir()
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            self.skipTest(f"cannot mount a tmpfs here ({proc.stderr.strip()})")
        self.mounts.append(point)
        return point

    def test_output_folder_under_a_file_fails_before_work(self):
        config = self.write("kv.yaml", KV_TINY)
        blocker = self.write("blocker", "a file, not a folder\n")
        out = blocker / "cache"
        r = run("kv", "generate", config, "--out", out)
        self.assertInputError(r, str(out), "not writable")
        r = run("reproduce", "--out", out, "-q")
        self.assertInputError(r, str(out), "not writable")

    def test_read_only_output_folder_fails_before_work(self):
        mount = self.mount_tmpfs("ro", "size=1m,ro")
        config = self.write("kv.yaml", KV_TINY)
        r = run("kv", "generate", config, "--out", mount / "cache")
        self.assertInputError(r, str(mount / "cache"), "not writable")

    def test_full_disk_fails_before_work(self):
        mount = self.mount_tmpfs("full", "size=64k")
        config = self.write("kv.yaml", KV_TINY)
        r = run("kv", "generate", config, "--out", mount)
        self.assertInputError(r, str(mount), "full file system")
        self.assertEqual(list(mount.iterdir()), [])

    def test_disk_filling_during_a_write_leaves_no_partial_file(self):
        mount = self.mount_tmpfs("small", "size=2m")
        config = self.write("kv.yaml", KV_LARGE)
        r = run("kv", "generate", config, "--out", mount, "-q")
        self.assertExit(r, 1)
        self.assertIn("keys.npy", r.err)
        self.assertIn("No space left on device", r.err)
        self.assertNotIn("terminate called", r.err)
        self.assertEqual(list(mount.iterdir()), [], "a partial or temporary file was left")


if __name__ == "__main__":
    unittest.main()

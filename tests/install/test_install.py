"""`cmake --install` to a temporary prefix, moved away from where it was installed, then used
with neither the source tree nor the build tree (docs/install.md):

- the installed `lightsim` runs a quick study and writes the report with its chart libraries
  from <prefix>/share/lightsim, with LIGHTSIM_DATA unset and the working directory elsewhere;
  under strace (when it can trace) no file of the source or build tree is touched;
- its result equals the build tree's byte for byte; LIGHTSIM_DATA names another data folder;
  a missing data folder is exit 2 naming LIGHTSIM_DATA;
- tests/install/downstream, a CMake project outside the build, finds the package with
  find_package(lightsim), links lightsim::photonics and runs.

Installs from the build folder as built (no rebuild): LIGHTSIM_BUILD_DIR, CMAKE, CMAKE_CXX and
CMAKE_GENERATOR come from CTest.
"""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD = Path(os.environ["LIGHTSIM_BUILD_DIR"])
CMAKE = os.environ.get("CMAKE", "cmake")
JOB = "schema_version: 1\nkind: reproduce\nsize: quick\nstudies: [decode]\n"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k != "LIGHTSIM_DATA"}
    env.update(extra)
    return env


def run(args, **kwargs):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300, **kwargs)


def can_strace(tmp):
    if shutil.which("strace") is None:
        return False
    return run(["strace", "-qq", "-o", Path(tmp) / "probe.txt", "true"]).returncode == 0


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="lightsim-install-"))
        staged = cls.tmp / "staged"
        proc = run([CMAKE, "--install", BUILD, "--prefix", staged])
        assert proc.returncode == 0, proc.stdout + proc.stderr
        # Moved after installing: nothing may depend on the path it was installed to.
        cls.prefix = cls.tmp / "prefix"
        staged.rename(cls.prefix)
        cls.binary = cls.prefix / "bin" / "lightsim"

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_layout(self):
        for part in ("bin/lightsim", "include/lightsim/core/data_dir.h",
                     "include/lightsim/photonics/ring.h", "lib/liblightsim_core.a",
                     "lib/cmake/lightsim/lightsimConfig.cmake",
                     "lib/cmake/lightsim/lightsimConfigVersion.cmake",
                     "share/lightsim/configs/reproduce.yaml",
                     "share/lightsim/configs/accelerators/seed.yaml",
                     "share/lightsim/third_party/vega/vega.min.js"):
            self.assertTrue((self.prefix / part).exists(), part)

    def test_installed_program_runs_a_study_from_its_own_data(self):
        work = self.tmp / "run"
        work.mkdir()
        (work / "job.yaml").write_text(JOB)
        command = [self.binary, "--threads", "1", "-q", "reproduce", "job.yaml", "--out", "out"]
        traced = can_strace(self.tmp)
        if traced:
            command = ["strace", "-f", "-qq", "-e", "trace=%file", "-o", work / "trace.txt",
                       *command]
        proc = run(command, cwd=work, env=clean_env())
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        report = (work / "out" / "report.html").read_text()
        vega = (self.prefix / "share/lightsim/third_party/vega/vega.min.js").read_text()
        self.assertIn(vega[:200], report)  # the chart library, inlined
        # The same result as the build tree's program.
        built = run([BUILD / "bin" / "lightsim", "--threads", "1", "-q", "study", "run",
                     "decode", "--quick", "--out", work / "built"], cwd=work)
        self.assertEqual(built.returncode, 0, built.stderr)
        self.assertEqual((work / "out" / "decode.json").read_bytes(),
                         (work / "built" / "decode.json").read_bytes())
        if traced:
            trace = (work / "trace.txt").read_text()
            self.assertIn(str(self.prefix / "share/lightsim/configs"), trace)
            for tree in {SOURCE.resolve(), BUILD.resolve()}:
                touched = [line for line in trace.splitlines() if str(tree) + "/" in line]
                self.assertEqual(touched, [], "the installed program opened files of %s" % tree)
        else:
            print("strace cannot trace here: the no-source-tree check ran without it")

    def test_data_folder_from_the_variable_and_missing(self):
        moved = self.tmp / "elsewhere"
        shutil.copytree(self.prefix / "share" / "lightsim", moved)
        proc = run([self.binary, "config", "explain", "reproduce"], cwd=self.tmp,
                   env=clean_env(LIGHTSIM_DATA=str(moved)))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # No data folder beside the program and none named: exit 2 naming LIGHTSIM_DATA.
        lonely = self.tmp / "lonely" / "bin"
        lonely.mkdir(parents=True)
        shutil.copy2(self.binary, lonely / "lightsim")
        proc = run([lonely / "lightsim", "prism", "cost", "seed"], cwd=self.tmp, env=clean_env())
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("set LIGHTSIM_DATA", proc.stderr)
        self.assertIn(str(self.tmp / "lonely" / "share" / "lightsim"), proc.stderr)
        proc = run([lonely / "lightsim", "prism", "cost", "seed"], cwd=self.tmp,
                   env=clean_env(LIGHTSIM_DATA=str(self.tmp / "nowhere")))
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("LIGHTSIM_DATA=" + str(self.tmp / "nowhere"), proc.stderr)
        proc = run([lonely / "lightsim", "prism", "cost", "seed"], cwd=self.tmp,
                   env=clean_env(LIGHTSIM_DATA=str(moved)))
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_downstream_project_finds_links_and_runs(self):
        build = self.tmp / "downstream"
        configure = [CMAKE, "-S", SOURCE / "tests/install/downstream", "-B", build,
                     "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_PREFIX_PATH=" + str(self.prefix)]
        if os.environ.get("CMAKE_GENERATOR"):
            configure += ["-G", os.environ["CMAKE_GENERATOR"]]
        if os.environ.get("CMAKE_CXX"):
            configure += ["-DCMAKE_CXX_COMPILER=" + os.environ["CMAKE_CXX"]]
        env = clean_env()
        if shutil.which("ccache"):
            # Paths under the temporary folder hash as relative ones: a rerun hits the cache.
            configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            env["CCACHE_BASEDIR"] = str(self.tmp)
        proc = run(configure, env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        proc = run([CMAKE, "--build", build], env=env)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        data = (build / "lightsim_data_dir.txt").read_text()
        self.assertEqual(Path(data), self.prefix / "share" / "lightsim")
        proc = run([build / "downstream"], cwd=self.tmp, env=clean_env(LIGHTSIM_DATA=data))
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("data folder: " + data, proc.stdout)
        self.assertIn("tfln ring FSR: 8.31", proc.stdout)  # lightsim photonics ring tfln
        proc = run([build / "downstream"], cwd=self.tmp, env=clean_env())
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("LIGHTSIM_DATA", proc.stderr)


if __name__ == "__main__":
    unittest.main()

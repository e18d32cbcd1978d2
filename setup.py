"""The build step of the Python package `lightsim` (pyproject.toml, docs/install.md).

The compiled module lightsim._core, its type stubs (__init__.pyi) and the data folder
(lightsim/data: configs/ and third_party/vega/) join the pure-Python files of python/lightsim/
in the wheel. The module comes from a CMake build of this tree:
  - $LIGHTSIM_BUILD_DIR when set: an existing build folder (only its lightsim_python_stubs
    target is brought up to date: nothing to do after `make`);
  - else build/ when it holds a CMake cache (the folder `make` builds);
  - else a new Release build in build-python/ without tests or benchmarks, against the
    interpreter running this (the whole library: several minutes on 2 cores).
"""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def version():
    """The project version of CMakeLists.txt (`project(lightsim VERSION x.y.z ...)`)."""
    text = (SOURCE / "CMakeLists.txt").read_text(encoding="utf-8")
    return re.search(r"project\(lightsim VERSION ([0-9.]+)", text).group(1)


def cmake_build_dir():
    given = os.environ.get("LIGHTSIM_BUILD_DIR")
    if given:
        return Path(given).resolve()
    if (SOURCE / "build" / "CMakeCache.txt").exists():
        return SOURCE / "build"
    return SOURCE / "build-python"


def run(command):
    print("lightsim setup.py:", " ".join(str(c) for c in command), flush=True)
    subprocess.run([str(c) for c in command], check=True)


class CMakeBuild(build_ext):
    """Builds lightsim._core with CMake and copies it, the stubs and the data folder."""

    def run(self):
        build = cmake_build_dir()
        if not (build / "CMakeCache.txt").exists():
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            run(["cmake", "-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
                 "-DLIGHTSIM_BUILD_TESTS=OFF", "-DLIGHTSIM_BUILD_BENCH=OFF",
                 "-DPython3_EXECUTABLE=" + sys.executable])
        run(["cmake", "--build", build, "--target", "lightsim_python_stubs"])
        built = build / "python" / "lightsim"
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        module = built / ("_core" + suffix)
        if not module.exists():
            found = ", ".join(p.name for p in built.glob("_core.*")) or "nothing"
            sys.exit("lightsim setup.py: %s has no %s (found: %s): that build is for another "
                     "Python; set LIGHTSIM_BUILD_DIR to a build configured with "
                     "-DPython3_EXECUTABLE=%s" % (built, module.name, found, sys.executable))
        target = Path(self.get_ext_fullpath("lightsim._core"))
        package = target.parent
        package.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, target)
        shutil.copymode(module, target)
        shutil.copyfile(built / "__init__.pyi", package / "__init__.pyi")
        data = package / "data"
        shutil.rmtree(data, ignore_errors=True)
        shutil.copytree(SOURCE / "configs", data / "configs")
        shutil.copytree(SOURCE / "third_party" / "vega", data / "third_party" / "vega")


# setuptools' own working folders go under the CMake build folder, not the source tree.
WORK = cmake_build_dir() / "python-package"
WORK.mkdir(parents=True, exist_ok=True)
setup(
    version=version(),
    ext_modules=[Extension("lightsim._core", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(WORK / "build")},
             "egg_info": {"egg_base": str(WORK)}},
)

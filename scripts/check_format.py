#!/usr/bin/env python3
"""Runs `clang-format --dry-run -Werror` over every C++ source under version control.

Usage: check_format.py [CLANG_FORMAT]   (run from the repository root)
Exit 0 when every file is formatted; 1 with the offending files listed otherwise.
"""
import subprocess
import sys

clang_format = sys.argv[1] if len(sys.argv) > 1 else "clang-format"
listed = subprocess.run(
    ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.h", "*.cpp", ":!third_party"],
    check=True, capture_output=True, text=True).stdout.split()
if not listed:
    print("check_format: no C++ files found (not a git checkout?)", file=sys.stderr)
    sys.exit(1)
result = subprocess.run([clang_format, "--dry-run", "-Werror", *listed], capture_output=True, text=True)
if result.returncode != 0:
    sys.stderr.write(result.stderr[:20000])
    print(f"check_format: run `{clang_format} -i` on the files above", file=sys.stderr)
    sys.exit(1)
print(f"check_format: {len(listed)} files formatted")

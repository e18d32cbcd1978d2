#!/usr/bin/env python3
"""Golden outputs: run each case of cases.json with the real binary, store or compare its JSON.

    golden.py check      [--threads N] [--case NAME ...]   compare with data/<case>.json
    golden.py regenerate [--threads N] [--case NAME ...]   rewrite data/<case>.json (`make golden`)

A case runs `lightsim --json --threads N -q ARGS...` from the source tree. Its JSON is what the
command prints on stdout, or the file named by the case's `result` (a study's full result,
`<out>/<name>.json`). `{tmp}` in the arguments is one temporary folder shared by every case of
the run (cases run in the listed order, so a later case may read what an earlier one wrote) and
`{out}` is `{tmp}/<case name>`; the temporary folder's path is written as `{tmp}` in every string
of the result, so stored files hold no machine path. Stored files are pretty-printed with sorted
keys so that a regenerated file reviews as a readable diff; a value the case ignores is stored as
"<ignored>", so that regenerating an unchanged build changes no file. docs/golden.md explains
the rules.

The binary comes from $LIGHTSIM_BIN (default build/bin/lightsim); exit 0 when every case agrees.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import Rules, compare, mask  # noqa: E402

HERE = Path(__file__).resolve().parent
SOURCE = Path(os.environ.get("LIGHTSIM_SOURCE_DIR", HERE.parents[1]))
BIN = os.path.abspath(os.environ.get("LIGHTSIM_BIN", SOURCE / "build" / "bin" / "lightsim"))
CASES = HERE / "cases.json"
DATA = HERE / "data"
TIMEOUT_S = 300


class CaseError(Exception):
    """A case's command failed or printed no JSON."""


def load_cases(path=CASES):
    cases = json.loads(Path(path).read_text(encoding="utf-8"))["cases"]
    names = [c["name"] for c in cases]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"{path}: duplicate case names {duplicates}")
    for case in cases:
        for rule in case.get("ignore", []) + case.get("tolerance", []):
            if not rule.get("reason"):
                raise ValueError(f"{path}: case {case['name']}: rule {rule['path']} "
                                 "gives no reason")
        Rules.of_case(case)  # patterns must parse
    return cases


def stored_path(case):
    return DATA / f"{case['name']}.json"


def dump(document):
    """The stored form: two-space indent, sorted keys, one trailing newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _replace_strings(value, old, new):
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, list):
        return [_replace_strings(v, old, new) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, old, new) for k, v in value.items()}
    return value


def run_case(case, tmp, threads):
    """The case's JSON document, temporary paths replaced by `{tmp}`."""
    out = tmp / case["name"]
    args = [a.replace("{out}", str(out)).replace("{tmp}", str(tmp)) for a in case["args"]]
    command = [BIN, "--json", "--threads", str(threads), "-q", *args]
    proc = subprocess.run(command, capture_output=True, text=True, cwd=SOURCE,
                          timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise CaseError(f"{case['name']}: `{' '.join(command)}` exited {proc.returncode}\n"
                        f"{proc.stderr.strip()[:2000]}")
    if "result" in case:
        result = Path(case["result"].replace("{out}", str(out)).replace("{tmp}", str(tmp)))
        if not result.is_file():
            raise CaseError(f"{case['name']}: `{' '.join(command)}` wrote no {result}")
        text, origin = result.read_text(encoding="utf-8"), str(result)
    else:
        text, origin = proc.stdout, "stdout"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise CaseError(f"{case['name']}: {origin} is not JSON ({error}): {text[:300]!r}")
    return _replace_strings(document, str(tmp), "{tmp}")


def run_all(cases, threads, on_result):
    """Runs the cases in order in one temporary folder; on_result(case, document, seconds),
    where document is the CaseError when the case's command failed."""
    with tempfile.TemporaryDirectory(prefix="lightsim-golden-") as name:
        tmp = Path(name)
        for case in cases:
            start = time.monotonic()
            try:
                document = run_case(case, tmp, threads)
            except CaseError as error:
                on_result(case, error, time.monotonic() - start)
                continue
            on_result(case, document, time.monotonic() - start)


def select(cases, names):
    if not names:
        return cases
    unknown = sorted(set(names) - {c["name"] for c in cases})
    if unknown:
        raise SystemExit(f"golden.py: no case named {unknown} in {CASES}")
    # A selected case still needs the cases before it that write what it reads (kv cache).
    needed = set(names) | {n for c in cases if c["name"] in names for n in c.get("needs", [])}
    return [c for c in cases if c["name"] in needed]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["check", "regenerate"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--case", action="append", default=[], help="only this case (repeatable)")
    options = parser.parse_args(argv)
    cases = select(load_cases(), options.case)
    failures = []
    total = 0.0

    def on_result(case, document, seconds):
        nonlocal total
        total += seconds
        if isinstance(document, CaseError):
            failures.append(str(document))
            print(f"{seconds:6.1f} s  {case['name']}: FAILED")
            return
        if options.action == "regenerate":
            text = dump(mask(document, Rules.of_case(case)))
            stored_path(case).write_text(text, encoding="utf-8")
            print(f"{seconds:6.1f} s  wrote data/{stored_path(case).name}")
            return
        path = stored_path(case)
        if not path.exists():
            failures.append(f"{case['name']}: no stored file {path} (run `make golden`)")
            return
        stored = json.loads(path.read_text(encoding="utf-8"))
        found = compare(stored, document, Rules.of_case(case), case["name"])
        failures.extend(found)
        print(f"{seconds:6.1f} s  {case['name']}: {'ok' if not found else 'DIFFERS'}")

    DATA.mkdir(exist_ok=True)
    run_all(cases, options.threads, on_result)
    if options.action == "regenerate" and not options.case:
        listed = {stored_path(c).name for c in cases}
        for stale in sorted(DATA.glob("*.json")):
            if stale.name not in listed:
                stale.unlink()
                print(f"removed data/{stale.name} (no such case)")
    print(f"{len(cases)} cases, {total:.1f} s of runs at --threads {options.threads}")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

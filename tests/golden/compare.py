"""Field-by-field comparison of two JSON documents under per-field tolerances.

A JSON path names one value: `$` is the document, `.key` a member, `[3]` an element, e.g.
`$.rows[3].energy_pj`. A pattern is a path whose components may be `*` (any one member or
element, `[*]` for elements), `[A-B]` (an element whose index is A to B, both included) or
`**` (any number of components, none included), e.g. `$.**.wall_time_s`,
`$.points[*].seconds` or `$.tables[3].rows[18-23][5]`.

Rules (the `ignore` and `tolerance` lists of a case in cases.json):
  {"path": PATTERN, "reason": "..."}                               ignore the value(s) there
  {"path": PATTERN, "rel": 1e-6, "abs": 1e-12, "reason": "..."}    a looser numeric tolerance
The first tolerance rule whose pattern matches a number applies; otherwise the default
(relative DEFAULT_REL with the absolute floor DEFAULT_ABS). Two integers with no rule are
compared exactly. Strings, booleans and null are compared exactly; a key present on one side
only is a mismatch, as is a list of another length or a value of another type.
"""
import math
import re

DEFAULT_REL = 1e-9
DEFAULT_ABS = 1e-20

_TOKEN = re.compile(r"\.([^.\[\]]+)|\[(\*|\d+|\d+-\d+)\]")
_RANGE = re.compile(r"\[(\d+)-(\d+)\]")


def parse_path(text):
    """`$.a[2].b` -> ["a", "[2]", "b"]; raises ValueError on a malformed path."""
    if not text.startswith("$"):
        raise ValueError(f"JSON path {text!r} must start with '$'")
    parts, pos = [], 1
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match:
            raise ValueError(f"JSON path {text!r}: cannot read from position {pos}")
        parts.append(match.group(1) if match.group(1) is not None else f"[{match.group(2)}]")
        bounds = _RANGE.fullmatch(parts[-1])
        if bounds and int(bounds.group(1)) > int(bounds.group(2)):
            raise ValueError(f"JSON path {text!r}: range {parts[-1]} runs backwards")
        pos = match.end()
    return parts


def format_path(parts):
    return "$" + "".join(p if p.startswith("[") else "." + p for p in parts)


def matches(pattern, parts):
    """True when the parsed pattern matches the parsed path (see the module comment)."""
    if not pattern:
        return not parts
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(matches(rest, parts[i:]) for i in range(len(parts) + 1))
    if not parts:
        return False
    part = parts[0]
    if head == "*":
        ok = not part.startswith("[")
    elif head == "[*]":
        ok = part.startswith("[")
    elif _RANGE.fullmatch(head):
        low, high = (int(v) for v in _RANGE.fullmatch(head).groups())
        ok = part.startswith("[") and part[1:-1].isdigit() and low <= int(part[1:-1]) <= high
    else:
        ok = head == part
    return ok and matches(rest, parts[1:])


class Rules:
    """The ignore and tolerance rules of one case, patterns parsed once."""

    def __init__(self, ignore=(), tolerance=()):
        self.ignore = [parse_path(rule["path"]) for rule in ignore]
        self.tolerance = [(parse_path(rule["path"]), rule.get("rel", DEFAULT_REL),
                           rule.get("abs", DEFAULT_ABS)) for rule in tolerance]

    @classmethod
    def of_case(cls, case):
        return cls(case.get("ignore", ()), case.get("tolerance", ()))

    def ignored(self, parts):
        return any(matches(p, parts) for p in self.ignore)

    def tolerance_at(self, parts):
        """(rel, abs) of the first matching rule, or None for the default."""
        for pattern, rel, absolute in self.tolerance:
            if matches(pattern, parts):
                return rel, absolute
        return None


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _numbers_agree(stored, got, tolerance):
    if isinstance(stored, int) and isinstance(got, int) and tolerance is None:
        return stored == got
    rel, absolute = tolerance or (DEFAULT_REL, DEFAULT_ABS)
    if math.isnan(stored) or math.isnan(got):
        return math.isnan(stored) and math.isnan(got)
    if math.isinf(stored) or math.isinf(got):
        return stored == got
    return abs(stored - got) <= max(absolute, rel * max(abs(stored), abs(got)))


def _short(value):
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def compare(stored, got, rules=None, case="", limit=50):
    """Mismatch messages (empty when the documents agree), at most `limit` of them.

    Each message reads `CASE: $.path: stored X, got Y` (or names the missing/extra key)."""
    rules = rules or Rules()
    out = []

    def report(parts, text):
        if len(out) < limit:
            out.append(f"{case}: {format_path(parts)}: {text}")

    def walk(a, b, parts):
        if rules.ignored(parts):
            return
        kind_a, kind_b = _kind(a), _kind(b)
        if kind_a != kind_b:
            report(parts, f"stored {kind_a} {_short(a)}, got {kind_b} {_short(b)}")
        elif kind_a == "object":
            for key in sorted(set(a) | set(b)):
                child = parts + [key]
                if key not in b:
                    if not rules.ignored(child):
                        report(child, f"missing key (stored {_short(a[key])})")
                elif key not in a:
                    if not rules.ignored(child):
                        report(child, f"extra key (got {_short(b[key])})")
                else:
                    walk(a[key], b[key], child)
        elif kind_a == "array":
            if len(a) != len(b):
                report(parts, f"stored {len(a)} elements, got {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                walk(x, y, parts + [f"[{i}]"])
        elif kind_a == "number":
            if not _numbers_agree(a, b, rules.tolerance_at(parts)):
                report(parts, f"stored {a!r}, got {b!r}")
        elif a != b:
            report(parts, f"stored {_short(a)}, got {_short(b)}")

    walk(stored, got, [])
    return out


IGNORED = "<ignored>"


def mask(document, rules):
    """The document with every value at an ignored path replaced by IGNORED, so that a stored
    file does not change when only ignored (machine-dependent) values do."""

    def walk(value, parts):
        if parts and rules.ignored(parts):
            return IGNORED
        if isinstance(value, dict):
            return {k: walk(v, parts + [k]) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, parts + [f"[{i}]"]) for i, v in enumerate(value)]
        return value

    return walk(document, [])

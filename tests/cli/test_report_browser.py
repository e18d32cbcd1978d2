"""report.html in a real browser: headless Chromium (Debian `chromium`, installed by scripts/setup).

Renders the golden result set (tests/data/report/) with the real binary, loads the page from
disk in headless Chromium, and checks in the resulting DOM that every chart drew an <svg>, that
the page's status says every chart settled, and that no script error or warning was recorded
(the page captures window errors, unhandled rejections, console.error and console.warn into
#report-errors). Chromium's own console log on stderr is checked for uncaught errors too.
A screenshot and the page are kept under $LIGHTSIM_ARTIFACT_DIR/report_browser/.

The checker is proven able to fail: a copy of the golden set with one broken chart spec must
be reported as one chart not rendered, with its error.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
from html.parser import HTMLParser
from pathlib import Path

from clitest import SOURCE, CliTest, run

FIXTURES = SOURCE / "tests" / "data" / "report"
ARTIFACTS = Path(os.environ.get("LIGHTSIM_ARTIFACT_DIR", SOURCE / "build" / "test-artifacts"))
CHROMIUM = shutil.which("chromium")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class ReportDom(HTMLParser):
    """What the browser's DOM says: each chart div and whether it holds an <svg> or <canvas>,
    the status element's data attributes, and the recorded problems (<li> of #report-errors)."""

    def __init__(self, text):
        super().__init__()
        self.charts = {}   # chart id -> True when an <svg>/<canvas> is inside it
        self.chart_text = {}  # chart id -> the text drawn inside it (SVG <text>), joined by |
        self.status = {}
        self.problems = []
        self._stack = []   # open elements: (tag, chart id or "" , inside #report-errors)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        chart = next((c for _, c, _ in reversed(self._stack) if c), "")
        in_errors = bool(self._stack) and self._stack[-1][2]
        if tag == "div" and "chart" in (a.get("class") or "").split():
            chart = a.get("id", "?")
            self.charts[chart] = False
        elif tag in ("svg", "canvas") and chart:
            self.charts[chart] = True
        if a.get("id") == "report-status":
            self.status = {k[5:]: v for k, v in a.items() if k.startswith("data-")}
        if tag == "li" and in_errors:
            self.problems.append("")
        if tag not in VOID:
            self._stack.append((tag, chart, in_errors or a.get("id") == "report-errors"))

    def handle_endtag(self, tag):
        while self._stack:
            if self._stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        chart = next((c for _, c, _ in reversed(self._stack) if c), "")
        if chart and any(tag == "text" for tag, _, _ in self._stack):
            self.chart_text[chart] = self.chart_text.get(chart, "") + data + "|"
        if self._stack and self._stack[-1][0] == "li" and self._stack[-1][2] and self.problems:
            self.problems[-1] += data


def chromium(*args, timeout=240):
    with tempfile.TemporaryDirectory(prefix="lightsim-chromium-") as profile:
        cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
               "--disable-background-networking", "--disable-extensions", "--no-first-run",
               "--disable-sync", "--enable-logging=stderr", "--v=0",
               f"--user-data-dir={profile}", "--virtual-time-budget=30000", *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)


def load(page):
    """Loads `page` in headless Chromium; returns (parsed DOM, uncaught console errors)."""
    proc = chromium("--dump-dom", page.resolve().as_uri())
    if proc.returncode != 0:
        raise AssertionError(f"chromium exit {proc.returncode}\n{proc.stderr[-4000:]}")
    console = [line for line in proc.stderr.splitlines()
               if "CONSOLE" in line and "Uncaught" in line]
    return ReportDom(proc.stdout), console


class ReportInBrowser(CliTest):
    def setUp(self):
        super().setUp()
        self.assertIsNotNone(CHROMIUM, "chromium is not installed: run scripts/setup "
                             "(Debian package `chromium`, listed in scripts/packages.txt)")

    def render(self, results):
        page = self.tmp / f"{results.name}.html"
        r = run("report", results, "-o", page)
        self.assertExit(r, 0)
        return page

    def test_golden_report_renders_every_chart_without_errors(self):
        page = self.render(FIXTURES)
        expected = sum(len(json.loads(f.read_text())["charts"])
                       for f in sorted(FIXTURES.glob("*.json")))
        dom, console = load(page)
        self.assertEqual(len(dom.charts), expected, dom.charts)
        missing = [chart for chart, drawn in dom.charts.items() if not drawn]
        self.assertEqual(missing, [], f"charts without <svg>/<canvas>; problems: {dom.problems}")
        self.assertEqual(dom.status.get("done"), "1", dom.status)
        self.assertEqual(dom.status.get("expected"), str(expected), dom.status)
        self.assertEqual(dom.status.get("rendered"), str(expected), dom.status)
        self.assertEqual(dom.problems, [])
        self.assertEqual(dom.status.get("errors"), "0", dom.status)
        self.assertEqual(dom.status.get("warnings"), "0", dom.status)
        self.assertEqual(console, [])

        # The first screen is the summary block, before the contents and the claims.
        text = page.read_text()
        self.assertLess(text.index('<section id="summary"'), text.index('<nav id="contents">'))

        # Artifacts: the page and a screenshot of it at a desktop and a narrow (phone) width.
        keep = ARTIFACTS / "report_browser"
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(page, keep / "report.html")
        for width, height in ((1280, 4000), (420, 3000)):
            shot = keep / f"report-{width}.png"
            if shot.exists():
                shot.unlink()
            proc = chromium("--hide-scrollbars", f"--window-size={width},{height}",
                            f"--screenshot={shot}", page.resolve().as_uri())
            self.assertEqual(proc.returncode, 0, proc.stderr[-4000:])
            self.assertTrue(shot.is_file(), proc.stderr[-4000:])
            self.assertEqual([line for line in proc.stderr.splitlines()
                              if "CONSOLE" in line and "Uncaught" in line], [])
            data = shot.read_bytes()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual(int.from_bytes(data[16:20], "big"), width)  # PNG IHDR width
            self.assertGreater(len(data), 20000)  # a blank page compresses to far less
            print(f"\nreport_browser: screenshot {shot}")

    def test_a_study_chart_draws_the_seed_figure_beside_ours(self):
        # A real result (the energy study at its quick size): its energy chart carries the
        # seed documents' energies per query as labelled markers (studies::with_seed_figures).
        results = self.tmp / "energy"
        r = run("-q", "--threads", "2", "study", "run", "energy", "--quick", "--out", results,
                timeout=600)
        self.assertExit(r, 0)
        dom, console = load(self.render(results))
        self.assertEqual(dom.problems, [])
        self.assertEqual(console, [])
        self.assertEqual(dom.status.get("rendered"), str(len(dom.charts)), dom.status)
        marked = [c for c, text in dom.chart_text.items() if "seed figure" in text]
        self.assertTrue(marked, f"no chart shows a seed figure: {dom.chart_text}")

    def test_a_broken_chart_is_caught(self):
        results = self.tmp / "broken"
        shutil.copytree(FIXTURES, results, ignore=shutil.ignore_patterns("*.md"))
        doc = json.loads((results / "fixture_prefill.json").read_text())
        doc["charts"][0]["vega_lite"]["mark"] = "barr"  # not a Vega-Lite mark type
        (results / "fixture_prefill.json").write_text(json.dumps(doc))
        dom, _ = load(self.render(results))
        self.assertEqual(dom.charts["chart-fixture_prefill-0"], False)
        self.assertEqual(dom.status.get("done"), "1", dom.status)
        self.assertEqual(dom.status.get("rendered"), str(len(dom.charts) - 1), dom.status)
        self.assertTrue(any("Prefill latency vs GPUs" in p for p in dom.problems), dom.problems)
        self.assertNotEqual(dom.status.get("errors"), "0", dom.status)


if __name__ == "__main__":
    unittest.main()

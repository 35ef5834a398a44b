#!/usr/bin/env python3
"""The run report in a real browser (Debian's chromium, headless), as a person would open it.

Runs a small real `accelopt optimize --report` on silu (and a second, smaller one to compare
with), `accelopt report`, `accelopt report A B` and `accelopt bench --tasks silu --html`, then
loads every page from disk with no network and checks: the page rendered without a script error
(console and the page's own error box), the expected charts are in the rendered DOM, the headline
figure matches summary.json, and a lineage node opens its diff. Screenshots go to --artifacts.

--large BENCH: also builds a synthetic run of thousands of evaluations with bench_report_page
and reports the browser's load time of its page (median of three loads; docs/performance.md).

Exit 77 (skipped) when chromium is not installed.
"""
import argparse
import html.parser
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Dom(html.parser.HTMLParser):
    """Collects the attributes of every element of a dumped DOM."""

    def __init__(self, text):
        super().__init__()
        self.elements = []
        self.text = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def attr_values(self, name):
        return [a[name] for _, a in self.elements if name in a]

    def body(self):
        return next(a for t, a in self.elements if t == "body")


def browse(chromium, page, profile_dir, fragment="", screenshot=None, height=2600):
    """Loads a page headless from disk; returns (dumped DOM, console error lines)."""
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", f"--user-data-dir={profile_dir}", "--enable-logging=stderr", "--v=0",
             "--hide-scrollbars", f"--window-size=1280,{height}"]
    url = "file://" + os.path.abspath(page) + fragment
    if screenshot:
        flags.append(f"--screenshot={screenshot}")
    else:
        flags.append("--dump-dom")
    run = subprocess.run(flags + [url], capture_output=True, text=True, timeout=180)
    if run.returncode != 0:
        raise AssertionError(f"chromium failed on {page}: {run.stderr[-2000:]}")
    # The pages log nothing: any console message (console.error, an uncaught exception) is a fault.
    console = [line for line in run.stderr.splitlines() if ":CONSOLE" in line]
    return run.stdout, console


def page_data(path):
    text = open(path, encoding="utf-8").read()
    start = text.index('id="report-data">') + len('id="report-data">')
    return json.loads(text[start:text.index("</script>", start)])


class Checks:
    def __init__(self):
        self.failures = []
        self.count = 0

    def expect(self, condition, what):
        self.count += 1
        if not condition:
            self.failures.append(what)
            print(f"FAIL: {what}")


def check_page(checks, chromium, profile, page, name, charts, sections=(), fragment=""):
    dom_text, console = browse(chromium, page, profile, fragment)
    dom = Dom(dom_text)
    body = dom.body()
    checks.expect(body.get("data-render") == "ok", f"{name}: rendered without error (data-render={body.get('data-render')})")
    checks.expect(not console, f"{name}: nothing on the console: {console[:3]}")
    found = dom.attr_values("data-chart")
    for chart, least in charts.items():
        checks.expect(found.count(chart) >= least, f"{name}: at least {least} '{chart}' chart(s) (found {found.count(chart)})")
    titles = dom.attr_values("data-section")
    for s in sections:
        checks.expect(any(t.startswith(s) for t in titles), f"{name}: section '{s}' (sections: {titles})")
    return dom


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    started = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        raise AssertionError(f"{cmd[1]} failed ({done.returncode}): {done.stderr[-3000:]}")
    print(f"  ({time.time() - started:.1f} s)", flush=True)
    return done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--accelopt", required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--large", help="bench_report_page binary: also measure a large run's load time")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    chromium = chromium_binary()
    if not chromium:
        print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
        return 77
    os.makedirs(args.artifacts, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="accelopt-browser-")
    profile = os.path.join(tmp, "chromium-profile")
    checks = Checks()
    try:
        a, b = os.path.join(tmp, "silu-a"), os.path.join(tmp, "silu-b")
        run([args.accelopt, "optimize", "--task", "silu", "--agent", "builtin", "--B", "2", "--N", "2", "--K", "1",
             "--T", "2", "--check-seeds", "0", "--out", a, "--report", "--no-progress"])
        run([args.accelopt, "optimize", "--task", "silu", "--agent", "builtin", "--B", "1", "--N", "2", "--K", "1",
             "--T", "1", "--check-seeds", "0", "--out", b, "--no-progress"])
        checks.expect(os.path.exists(os.path.join(a, "report.html")), "optimize --report wrote RUN_DIR/report.html")
        run([args.accelopt, "report", b])
        compare = os.path.join(tmp, "compare.html")
        run([args.accelopt, "report", a, b, "--out", compare])
        bench = os.path.join(tmp, "bench.html")
        run([args.accelopt, "bench", "--tasks", "silu", "--html", bench, "--quiet"])

        page = os.path.join(a, "report.html")
        dom = check_page(checks, chromium, profile, page, "run page",
                         {"bars": 3, "lines": 2, "lineage": 1, "timeline": 1},
                         ("Tasks: baseline vs best", "Cost and benefit", "Search progress", "Lineage", "Profile",
                          "Failures", "Optimization memory", "Configuration"))
        summary = json.load(open(os.path.join(a, "summary.json")))
        speedups = [t["speedup"] for t in summary["tasks"] if t.get("speedup")]
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        text = " ".join(dom.text)
        checks.expect(f"{geo:.3f}×" in text, f"run page: the geomean speedup {geo:.3f}× of summary.json is shown")
        data = page_data(page)
        lineage = data["tasks"][0]["lineage"]
        best = lineage["best"]
        checks.expect(best != lineage["baseline"] or summary["tasks"][0]["speedup"] <= 1.0,
                      "run page: the best kernel is not the baseline when the run found a speedup")
        dom = check_page(checks, chromium, profile, page, "run page, best kernel's diff", {"lineage": 1},
                         fragment=f"#node={best}&nodeView=diff")
        views = dom.attr_values("data-view")
        checks.expect("diff" in views, f"the best kernel opens a side-by-side diff against its parent (views: {views})")
        checks.expect(any(a.get("class") in ("add", "del") for _, a in dom.elements), "the diff marks changed lines")
        browse(chromium, page, profile, screenshot=os.path.join(args.artifacts, "report-run.png"), height=3400)

        check_page(checks, chromium, profile, os.path.join(b, "report.html"), "second run page", {"lineage": 1})
        dom = check_page(checks, chromium, profile, compare, "comparison page", {"bars": 1, "lines": 1},
                         ("Runs", "Speedup per task", "Cost and benefit", "What differs"))
        text = " ".join(dom.text)
        checks.expect("silu-a" in text and "silu-b" in text, "comparison page: names both runs")
        browse(chromium, compare, profile, screenshot=os.path.join(args.artifacts, "report-compare.png"), height=1800)
        dom = check_page(checks, chromium, profile, bench, "bench page", {"bars": 2}, ("Percent of peak", "Latency and peak latency"))
        checks.expect("geomean-peak" in dom.attr_values("data-kpi"), "bench page: the geomean percent of peak")
        browse(chromium, bench, profile, screenshot=os.path.join(args.artifacts, "report-bench.png"), height=1400)

        if args.large:
            out = run([args.large, tmp, "--repeat", "1"]).stdout
            print(out, end="")
            large = os.path.join(tmp, "large-run", "report.html")
            times = []
            for _ in range(3):
                started = time.time()
                dom = check_page(checks, chromium, profile, large, "large run page", {"lineage": 1, "lines": 2})
                wall = time.time() - started
                times.append((int(dom.body().get("data-render-ms", "0")), wall))
            render_ms = statistics.median(t[0] for t in times)
            wall_s = statistics.median(t[1] for t in times)
            evaluations = re.search(r"synthetic run: (\d+) evaluations", out).group(1)
            size_mb = os.path.getsize(large) / 1048576
            print(f"large run: {evaluations} evaluations, page {size_mb:.1f} MiB: rendered {render_ms:.0f} ms after "
                  f"navigation start (median of 3; whole chromium process {wall_s:.1f} s)")
            checks.expect(render_ms < 10000, f"large run page renders within 10 s (took {render_ms} ms)")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept", tmp)
    print(f"{checks.count - len(checks.failures)} passed, {len(checks.failures)} failed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())

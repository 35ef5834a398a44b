#!/usr/bin/env python3
"""The run report in a real browser (Debian's chromium, headless), as a person would open it.

Runs a small real `accelopt optimize --report` on silu (and a second, smaller one to compare
with), `accelopt report`, `accelopt report A B` and `accelopt bench --tasks silu --html`, then
loads every page from disk with no network and checks: the page rendered without a script error
(console and the page's own error box), the expected charts are in the rendered DOM, the headline
figure matches summary.json, and a lineage node opens its diff. Screenshots go to --artifacts.

--large BENCH: also builds a synthetic run of thousands of evaluations with bench_report_page
and reports the browser's load time of its page (median of three loads; docs/performance.md).

Exit 77 (skipped) when chromium is not installed, except under CI=true, where that fails.
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


def missing_program(name, artifacts=None):
    """The exit code of a ui test whose program is not installed: skipped (77), except under
    CI=true, where scripts/install-test-deps.sh must have installed it: failed (1). The one
    exception is chromium on a disk too small for it: install-test-deps.sh then writes why into
    the build directory (the artifacts' parent), and the test is skipped with that reason."""
    note = os.path.join(os.path.dirname(os.path.abspath(artifacts)), f"{name}-not-installed.txt") if artifacts else None
    if note and os.path.exists(note):
        with open(note) as f:
            print(f"SKIP: {name} is not installed: {f.read().strip()}")
        return 77
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        print(f"FAIL: {name} is not installed, and under CI=true this test must run "
              "(scripts/install-test-deps.sh installs it)")
        return 1
    print(f"SKIP: {name} is not installed (scripts/install-test-deps.sh installs it)")
    return 77


class Dom(html.parser.HTMLParser):
    """Collects the attributes of every element of a dumped DOM."""

    def __init__(self, text):
        super().__init__()
        self.elements = []
        self.text = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self.hidden = tag

    def handle_endtag(self, tag):
        if tag == getattr(self, "hidden", None):
            self.hidden = None

    def handle_data(self, data):
        if not getattr(self, "hidden", None):  # the page's text, not its code or data
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
    checks.expect("[object " not in " ".join(dom.text), f"{name}: no object printed as text ([object ...])")
    found = dom.attr_values("data-chart")
    for chart, least in charts.items():
        checks.expect(found.count(chart) >= least, f"{name}: at least {least} '{chart}' chart(s) (found {found.count(chart)})")
    titles = dom.attr_values("data-section")
    for s in sections:
        checks.expect(any(t.startswith(s) for t in titles), f"{name}: section '{s}' (sections: {titles})")
    return dom


ADD_HEADER = """import numpy as np
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.isa as nisa


@nki.jit
def kernel(x, y):
    rows, cols = x.shape
    out = nl.ndarray((rows, cols), dtype=x.dtype, buffer=nl.shared_hbm)
"""


def add_kernel(width, op="nl.add"):
    """The elementwise add of examples/add in column chunks of `width` (narrower = slower)."""
    return ADD_HEADER + f"""    for r in nl.affine_range(rows // 128):
        for c in nl.affine_range(cols // {width}):
            x_tile = nl.load(x[r * 128:(r + 1) * 128, c * {width}:(c + 1) * {width}])
            y_tile = nl.load(y[r * 128:(r + 1) * 128, c * {width}:(c + 1) * {width}])
            total = nisa.tensor_tensor(x_tile, y_tile, {op})
            nl.store(out[r * 128:(r + 1) * 128, c * {width}:(c + 1) * {width}], value=total)
    return out
"""


def llm_run(accelopt, fake_llm, source_dir, tmp):
    """An LLM run against the scripted fake server (tests/support): plans that make the kernel
    faster, slower, wrong and broken (then fixed), so the page has models, spending, failures and
    a fixer's lineage. Returns the run directory."""
    bench = os.path.join(tmp, "bench")
    os.makedirs(os.path.join(bench, "reference"))
    os.makedirs(os.path.join(bench, "kernels"))
    shutil.copy(os.path.join(source_dir, "examples/add/reference.py"), os.path.join(bench, "reference/add_M256_N512.py"))
    with open(os.path.join(bench, "kernels/add_M256_N512_0.py"), "w") as f:
        f.write(add_kernel(128))
    with open(os.path.join(bench, "summary.json"), "w") as f:
        json.dump({"add": {"seed": "", "cases": {"M256_N512": {"values": {"M": 256, "N": 512}, "impls": [
            {"task": "./reference/add_M256_N512.py", "kernel": "./kernels/add_M256_N512_0.py"}]}}}}, f)
    fenced = lambda code: "Here is the kernel:\n```python\n" + code + "```\n"
    plans = json.dumps([{"title": "wider tiles", "plan": "MARK_FAST load whole rows"},
                        {"title": "narrower tiles", "plan": "MARK_SLOW load 32 columns at a time"},
                        {"title": "subtract", "plan": "MARK_WRONG use another op"},
                        {"title": "rewrite", "plan": "MARK_BROKEN rewrite from scratch"}])
    rules = [("summarizer", "Explain what made the difference",
              json.dumps({"key_change": "changed the DMA size", "lesson": "move large blocks per DMA"}), 300, 30),
             ("fixer", "Fix the kernel so that it runs", fenced(add_kernel(512)), 200, 50),
             ("planner", "different optimization plans", plans, 100, 40),
             ("exec_fast", "MARK_FAST", fenced(add_kernel(512)), 150, 60),
             ("exec_slow", "MARK_SLOW", fenced(add_kernel(32)), 150, 61),
             ("exec_wrong", "MARK_WRONG", fenced(add_kernel(512, "nl.multiply")), 150, 62),
             ("exec_broken", "MARK_BROKEN", "```python\ndef kernel(x, y)\n    return x\n```\n", 150, 63)]
    script = os.path.join(tmp, "script.json")
    with open(script, "w") as f:
        json.dump({"rules": [{"name": n, "contains": c, "replies": [{"text": t, "usage": {"input_tokens": i, "output_tokens": o}}]}
                             for n, c, t, i, o in rules]}, f)
    port_file = os.path.join(tmp, "port")
    server = subprocess.Popen([fake_llm, "--script", script, "--port-file", port_file],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        port = open(port_file).read().strip()
        agents = os.path.join(tmp, "agents.yaml")
        with open(agents, "w") as f:
            f.write(f"defaults: {{api: openai, url: http://127.0.0.1:{port}, timeout_s: 5, max_retries: 1, price_in: 2.0, price_out: 10.0}}\n"
                    "agents:\n  planner: {model: fake-planner}\n  executor: {model: fake-executor}\n"
                    "  summarizer: {model: fake-summarizer}\n  fixer: {model: fake-fixer}\n")
        out = os.path.join(tmp, "llm-run")
        run([accelopt, "optimize", "--agent", "llm", "--task", "add", "--bench-root", bench, "--config", agents,
             "--out", out, "--B", "2", "--N", "4", "--K", "1", "--T", "2", "--topk", "8", "--expn", "3", "--t-neg", "1.01",
             "--fixer-attempts", "1", "--workers", "1", "--no-progress", "--seed", "7", "--report"],
             env=dict(os.environ, OPENAI_API_KEY="unused"))
        return out
    finally:
        server.terminate()
        server.wait(timeout=30)


def check_band(checks, chromium, profile, accelopt, run_dir, tmp):
    """The simulator's error band and an unconfirmed speedup, as summary.json carries them
    (docs/optimize.md, "Unconfirmed speedups"): a copy of a real run whose summary gets the band
    fields of its task, drawn again. The fields are added here so that the page is tested whether
    or not the simulator of this build writes them."""
    banded = os.path.join(tmp, "silu-band")
    shutil.copytree(run_dir, banded)
    path = os.path.join(banded, "summary.json")
    summary = json.load(open(path))
    task = summary["tasks"][0]
    base, best = task["baseline_latency_ms"], task["best_latency_ms"]
    task.update({"baseline_latency_low": base * 0.8, "baseline_latency_high": base * 1.25,
                 "best_latency_low": best * 0.8, "best_latency_high": best * 1.25, "speedup_confidence": "unconfirmed"})
    json.dump(summary, open(path, "w"))
    run([accelopt, "report", banded])
    dom = check_page(checks, chromium, profile, os.path.join(banded, "report.html"), "run page with an error band", {"bars": 1})
    text = " ".join(dom.text)
    checks.expect("unconfirmed" in dom.attr_values("data-confidence"), "error band: the task's speedup is marked unconfirmed")
    checks.expect("confirmed" in dom.attr_values("data-kpi"), "error band: the count of confirmed speedups is a headline figure")
    checks.expect("inside the simulator's error band" in text, "error band: a note says why the speedup is unconfirmed")
    checks.expect(f"{best * 0.8:.4f}–{best * 1.25:.4f} ms" in text, "error band: the best latency's band is shown")


def run(cmd, timeout=420, **kw):
    """Runs an accelopt command; a hang fails the test (subprocess.TimeoutExpired) instead of CI's."""
    print("+", " ".join(cmd), flush=True)
    started = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    if done.returncode != 0:
        raise AssertionError(f"{cmd[1]} failed ({done.returncode}): {done.stderr[-3000:]}")
    print(f"  ({time.time() - started:.1f} s)", flush=True)
    return done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--accelopt", required=True)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--large", help="bench_report_page binary: also measure a large run's load time")
    ap.add_argument("--fake-llm", help="accelopt-fake-llm binary: also draw an LLM run against the scripted server")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    chromium = chromium_binary()
    if not chromium:
        return missing_program("chromium", args.artifacts)
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
        check_band(checks, chromium, profile, args.accelopt, b, tmp)
        dom = check_page(checks, chromium, profile, compare, "comparison page", {"bars": 1, "lines": 1},
                         ("Runs", "Speedup per task", "Cost and benefit", "What differs"))
        text = " ".join(dom.text)
        checks.expect("silu-a" in text and "silu-b" in text, "comparison page: names both runs")
        browse(chromium, compare, profile, screenshot=os.path.join(args.artifacts, "report-compare.png"), height=1800)
        dom = check_page(checks, chromium, profile, bench, "bench page", {"bars": 2}, ("Percent of peak", "Latency and peak latency"))
        checks.expect("geomean-peak" in dom.attr_values("data-kpi"), "bench page: the geomean percent of peak")
        browse(chromium, bench, profile, screenshot=os.path.join(args.artifacts, "report-bench.png"), height=1400)

        if args.fake_llm:
            source_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            out = llm_run(args.accelopt, args.fake_llm, source_dir, tmp)
            page = os.path.join(out, "report.html")
            dom = check_page(checks, chromium, profile, page, "LLM run page", {"bars": 3, "lines": 2, "lineage": 1},
                             ("Failures", "Optimization memory", "Configuration"))
            text = " ".join(dom.text)
            for model in ("fake-planner", "fake-executor", "fake-summarizer", "fake-fixer"):
                checks.expect(model in text, f"LLM run page: the models table names {model}")
            checks.expect("Spending by agent and model" in text, "LLM run page: summary.json's spending by agent and model")
            checks.expect("failed kernels" in dom.attr_values("data-series-rug"),
                          "LLM run page: the failed kernels are marked on the search-progress chart")
            data = page_data(page)
            task = data["tasks"][0]
            statuses = {s for r in task["failures"]["rounds"] for s in r["counts"]}
            checks.expect({"ok", "incorrect"} <= statuses, f"LLM run page: failures by status ({statuses})")
            summary = json.load(open(os.path.join(out, "summary.json")))
            checks.expect(abs(sum(m["cost_usd"] for m in data["models"]) - summary["usage"]["cost_usd"]) < 1e-9,
                          "LLM run page: the models' USD add up to summary.json's")
            checks.expect(any(n["plan"] == "wider tiles" for n in task["lineage"]["nodes"]),
                          "LLM run page: the lineage names the plan that made the best kernel")
            browse(chromium, page, profile, screenshot=os.path.join(args.artifacts, "report-llm.png"), height=3400)

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

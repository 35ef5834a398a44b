#!/usr/bin/env python3
"""The progress view in a real terminal, read as a person sees it (tmux capture-pane).

Runs a small `accelopt optimize --report` on silu in a detached tmux pane of 100 x 30 (its own
tmux server, on its own socket, killed at the end) and reads the screen every 0.1 s. Checks: while
a round runs, the panel shows the task's place, the round, a bar of the round's evaluations with
running and failed counts, elapsed time and an estimate, best so far, spend and where the report
is; it is redrawn in place (never two panels on screen, no line longer than the pane); when the
run ends, one log line per round is left, the panel is gone, and the report's path is printed.
With chromium installed, the report is also kept as it was in round 1 (a
running run that reloads itself; opened after the run, as the run may end before a browser loads it) and at the end (the finished run). The screens seen are saved to
--artifacts/progress-screens.txt. Exit 77 (skipped) without tmux,
except under CI=true, where that fails.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report_browser_test import Dom, browse, chromium_binary, missing_program  # noqa: E402

WIDTH, HEIGHT = 100, 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--accelopt", required=True)
    ap.add_argument("--artifacts", required=True)
    args = ap.parse_args()
    tmux = shutil.which("tmux")
    if not tmux:
        return missing_program("tmux")
    os.makedirs(args.artifacts, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="accelopt-tmux-")
    run_dir = os.path.join(tmp, "run")
    socket = f"accelopt-test-{os.getpid()}"
    base = [tmux, "-L", socket, "-f", "/dev/null"]
    command = (f"{args.accelopt} optimize --task silu --agent builtin --B 2 --N 3 --K 1 --T 3 --check-seeds 0 --out {run_dir} --report; "
               f"echo EXIT=$?; sleep 600")
    subprocess.run(base + ["new-session", "-d", "-s", "progress", "-x", str(WIDTH), "-y", str(HEIGHT), command], check=True, timeout=60)
    screens = []
    failures = []
    checks = 0

    def expect(condition, what):
        nonlocal checks
        checks += 1
        if not condition:
            failures.append(what)
            print("FAIL:", what)

    chromium = chromium_binary()
    page = os.path.join(run_dir, "report.html")
    live_copy = None  # the report as a person who opened it during the run saw it
    try:
        deadline = time.time() + 600
        while time.time() < deadline:
            screen = subprocess.run(base + ["capture-pane", "-p", "-t", "progress"], capture_output=True, text=True, timeout=60).stdout
            if not screens or screens[-1] != screen:
                screens.append(screen)
            if "EXIT=" in screen:
                break
            if chromium and live_copy is None and "round 1/3: planned" in screen and os.path.exists(page):
                # Keep the page as it is now: the run may finish (a task stops at its DMA floor)
                # before chromium has loaded it. The page is replaced atomically, so a copy is whole.
                live_copy = os.path.join(tmp, "live-report.html")
                shutil.copyfile(page, live_copy)
            time.sleep(0.1)
    finally:
        subprocess.run(base + ["kill-server"], capture_output=True, timeout=60)
    with open(os.path.join(args.artifacts, "progress-screens.txt"), "w") as out:
        for i, s in enumerate(screens):
            out.write(f"===== screen {i} =====\n{s}")
    final = screens[-1] if screens else ""
    expect("EXIT=0" in final, f"the run finished with exit 0 (final screen:\n{final})")

    head = re.compile(r"\[run\] task 1/1 silu\S* · round [123]/3 · planned \d+, written \d+ \(\d+ unparsed\)")
    bar = re.compile(r"^  evaluations \[[#-]{20}\] \d+/\d+ · running \d+ · failed \d+ · elapsed \d+:\d\d · left (\?|~\d+:\d\d)")
    spend = re.compile(r"^  best (-|\d+\.\d{3}x \(\d+\.\d% of peak\)) · \d+ tokens · \d+\.\d{4} USD · report: ")
    live = [s for s in screens if any(bar.search(line) for line in s.splitlines())]
    expect(len(live) > 0, f"a panel with the evaluation bar was seen during the run ({len(screens)} screens)")
    for s in live:
        lines = s.splitlines()
        expect(sum(1 for line in lines if bar.search(line)) == 1, f"exactly one panel on screen:\n{s}")
        i = next(i for i, line in enumerate(lines) if bar.search(line))
        expect(i > 0 and head.search(lines[i - 1]) is not None, f"the panel's first line names the task and round:\n{s}")
        expect(i + 1 < len(lines) and spend.search(lines[i + 1]) is not None, f"the panel's last line has best, spend, report:\n{s}")
        expect(all(len(line) <= WIDTH for line in lines), "no line wider than the pane")
    running = [s for s in live if re.search(r"running [1-9]", s)]
    expect(len(running) > 0, "kernels were seen running")
    estimated = [s for s in live if re.search(r"left ~\d+:\d\d", s)]
    expect(len(estimated) > 0, "an estimate of the time left was shown")
    # A task may stop before its last round (at its DMA floor: the round line and the end say so).
    rounds_run = int(m.group(1)) if (m := re.search(r"done after (\d) rounds?", final.replace("\n", ""))) else 3
    for r in range(1, rounds_run + 1):
        expect(len(re.findall(rf"silu\S* round {r}/3: planned", final)) == 1, f"one log line for round {r}:\n{final}")
    expect(not bar.search(final) and "evaluations [" not in final, "the panel is gone at the end")
    joined = final.replace("\n", "")  # tmux wraps long lines without adding characters
    expect(re.search(r"done after [123] rounds?( \(.*\))?, .* ms -> .* ms \(\d+\.\d{3}x(, unconfirmed: inside the simulator's error band)?\); report: ", joined) is not None,
           "the task's end says where the report is")
    expect(f"report: {run_dir}/report.html" in joined, "the final line names the report")
    expect(os.path.exists(os.path.join(run_dir, "report.html")), "the report exists")
    if chromium:
        live_page = Dom(browse(chromium, live_copy, os.path.join(tmp, "profile"))[0]) if live_copy else None
        # optimize --report: during the run the page says it is running and reloads itself; at the
        # end it is the finished run's page, which no longer reloads.
        expect(live_page is not None and "running" in live_page.attr_values("data-status"),
               "the report opened after round 1 shows a running run")
        expect(live_page is not None and "reloads itself" in " ".join(live_page.text), "the live report says it reloads itself")
        done = Dom(browse(chromium, os.path.join(run_dir, "report.html"), os.path.join(tmp, "profile"))[0])
        expect("finished" in done.attr_values("data-status"), "the report at the end shows the finished run")
        expect("reloads itself" not in " ".join(done.text), "the finished report does not reload")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"{checks - len(failures)} passed, {len(failures)} failed ({len(screens)} screens seen)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

// The page of one optimize run (docs/report.md): summary, cost/benefit curves, the beam lineage,
// profiles, memory, failures and configuration. Reads the data embedded by `accelopt report`.
"use strict";

const RUN_STATE_KEY = "accelopt-report-state";

function taskSpeedup(t) { return t.baseline_latency_ms && t.best_latency_ms ? t.baseline_latency_ms / t.best_latency_ms : null; }
function tokens(u) { return u ? (u.input_tokens || 0) + (u.output_tokens || 0) : 0; }

// Geomean speedup over all tasks after every round of the run, against evaluations, USD, tokens.
function overallCurve(tasks) {
  const best = new Map(tasks.map((t) => [t.task, 1]));
  const pts = [{ evaluations: 0, usd: 0, tokens: 0, speedup: 1, label: "start" }];
  for (const t of tasks) {
    for (const r of t.rounds || []) {
      if (t.baseline_latency_ms && r.best_latency_ms) best.set(t.task, Math.max(best.get(t.task), t.baseline_latency_ms / r.best_latency_ms));
      pts.push({ evaluations: r.evaluations, usd: (r.usage || {}).cost_usd || 0, tokens: tokens(r.usage),
        speedup: geomean([...best.values()]), label: `${t.task} round ${r.round}` });
    }
    if (taskSpeedup(t)) best.set(t.task, taskSpeedup(t));  // the re-checked result
  }
  return pts;
}

function header(data) {
  const r = data.run, u = data.usage || {};
  const tasks = data.tasks.filter((t) => taskSpeedup(t));
  const geo = geomean(tasks.map(taskSpeedup));
  const peaks = tasks.map((t) => t.best_peak_percent).filter((v) => v > 0);
  const confident = data.tasks.filter((t) => t.speedup_confidence);
  const top = el("header", { class: "top" },
    // A run still going says so (its checkpoint summary calls itself "incomplete").
    el("h1", {}, `accelopt run ${r.name} `, el("span", { class: `badge ${r.live ? "running" : r.status}`, "data-status": r.live ? "running" : r.status }, r.live ? "running" : r.status)),
    el("div", { class: "meta" }, el("span", {}, `started ${r.created_at}`), el("span", {}, `${num(r.elapsed_s, 0)} s`),
      el("span", {}, `${r.evaluations} evaluations`), el("span", {}, `${num(u.cost_usd || 0, 4)} USD`),
      el("span", {}, `${num(tokens(u), 0)} tokens`), el("span", {}, `report generated ${data.generated_at}`)));
  const kpis = el("div", { class: "kpis" },
    el("div", { class: "kpi", "data-kpi": "geomean-speedup" }, el("b", {}, times(geo)), el("span", {}, `geometric-mean speedup over ${tasks.length} task(s)`)),
    el("div", { class: "kpi" }, el("b", {}, peaks.length ? pct(geomean(peaks)) : "–"), el("span", {}, "geometric-mean percent of peak (best kernels)")),
    ...(confident.length ? [el("div", { class: "kpi", "data-kpi": "confirmed" }, el("b", {}, `${confident.filter((t) => t.speedup_confidence === "confirmed").length} of ${confident.length}`),
      el("span", {}, "speedups beyond the simulator's error band (confirmed)"))] : []),
    el("div", { class: "kpi" }, el("b", {}, String(r.evaluations)), el("span", {}, "kernels evaluated")),
    el("div", { class: "kpi" }, el("b", {}, num(u.cost_usd || 0, 4)), el("span", {}, "USD spent on models")));
  return { top, kpis };
}

function confidenceBadge(t) {
  if (!t.speedup_confidence) return "–";
  const why = t.speedup_confidence === "unconfirmed" ? "the best's error band overlaps the baseline's: the gain may not hold on a device"
    : "the best's error band lies below the baseline's";
  return el("span", { class: `badge ${t.speedup_confidence}`, "data-confidence": t.speedup_confidence, title: why }, t.speedup_confidence);
}

function summaryCard(data) {
  const tasks = data.tasks;
  const withPeak = tasks.some((t) => t.peak_latency_ms > 0);
  const groups = tasks.filter((t) => !t.error).map((t) => withPeak
    ? { label: t.task, values: [t.baseline_peak_percent ?? null, t.best_peak_percent ?? null] }
    : { label: t.task, values: [1, taskSpeedup(t)] });
  const chart = barChart({ groups, yLabel: withPeak ? "percent of peak" : "speedup (baseline = 1)",
    series: [{ name: "baseline", color: "#9aa7b5" }, { name: "best", color: "#2f6fb3" }],
    refLine: withPeak ? { value: 100, label: "peak (100%)" } : { value: 1, label: "baseline" } });
  // The simulator's error band (summary.json, when the run's simulator had one): a latency's
  // low-high range, and whether the best's range lies below the baseline's.
  const banded = tasks.some((t) => t.speedup_confidence || t.best_latency_high > 0);
  const rows = tasks.map((t) => t.error
    ? [t.task, el("span", { class: "badge failed" }, "error"), t.error, "", "", ...(banded ? [""] : []), "", "", "", "", ""]
    : [t.task, el("span", { class: `badge ${t.recheck || "incomplete"}` }, t.recheck || "not re-checked"),
      withBand(t.baseline_latency_ms, t.baseline_latency_low, t.baseline_latency_high), withBand(t.best_latency_ms, t.best_latency_low, t.best_latency_high),
      times(taskSpeedup(t)), ...(banded ? [confidenceBadge(t)] : []), pct(t.baseline_peak_percent), pct(t.best_peak_percent),
      String(t.rounds_done ?? ""), String(t.evaluations ?? ""), num(((t.usage || {}).cost_usd) || 0, 4)]);
  const notes = tasks.flatMap((t) => [
    t.recheck_note ? `${t.task}: ${t.recheck_note}` : null,
    t.speedup_confidence === "unconfirmed" ? `${t.task}: the speedup ${times(taskSpeedup(t))} is inside the simulator's error band (best ` +
      `${bandText(t.best_latency_low, t.best_latency_high)} against the baseline's ${bandText(t.baseline_latency_low, t.baseline_latency_high)}): ` +
      "the simulator has been this wrong on public kernels of this kind, so the gain may not hold on a device (optimize --confirm-with-profiler measures it)." : null,
    t.profiler_best_latency_ms > 0 ? `${t.task}: profiler: baseline ${ms(t.profiler_baseline_latency_ms)} (simulated ${ms(t.baseline_latency_ms)}), best ` +
      `${ms(t.profiler_best_latency_ms)} (simulated ${ms(t.best_latency_ms)}), speedup ${times(t.profiler_baseline_latency_ms / t.profiler_best_latency_ms)} ` +
      `on the profiler vs ${times(taskSpeedup(t))} simulated.` : null,
    t.profiler_note ? `${t.task}: profiler: ${t.profiler_note}` : null].filter((n) => n).map((n) => el("p", { class: "note" }, n)));
  return card("Tasks: baseline vs best", "Per task, the baseline kernel and the best kernel found (re-checked with the task's five seeds). " +
      (withPeak ? "Bars: percent of the published peak-latency bound (higher is better)." : "Bars: speedup over the baseline."),
    legend([["baseline", "#9aa7b5"], ["best", "#2f6fb3"]]), chart,
    table(["task", "re-check", "baseline", "best", "speedup", ...(banded ? ["sim band"] : []), "peak before", "peak after", "rounds", "evaluations", "USD"], rows,
      { numeric: banded ? [2, 3, 4, 6, 7, 8, 9, 10] : [2, 3, 4, 5, 6, 7, 8, 9] }),
    notes);
}

function costCard(data, state, rerender) {
  const pts = overallCurve(data.tasks);
  const axis = state.costAxis || "evaluations";
  const labels = { evaluations: "evaluations", usd: "USD spent", tokens: "tokens" };
  const resumes = (data.resumes || []).map((r) => ({ value: r[axis], label: "resumed" }));
  const chart = lineChart({ xLabel: labels[axis], yLabel: "geometric-mean speedup", yZero: false, vlines: resumes,
    series: [{ name: "geomean speedup", color: "#2f6fb3", step: true, dots: true,
      points: pts.map((p) => [p[axis], p.speedup, `${p.label}: ${times(p.speedup)} after ${num(p.evaluations, 0)} evaluations, ${num(p.usd, 4)} USD, ${num(p.tokens, 0)} tokens`]) }],
    hlines: [{ value: 1, label: "baseline", color: "#888" }] });
  return card("Cost and benefit", "Geometric-mean speedup over all tasks after each round (tasks not reached yet count as 1×), against what it cost.",
    el("div", { class: "controls" }, "x axis:", toggle([["evaluations", "evaluations"], ["usd", "USD"], ["tokens", "tokens"]], axis, (v) => { state.costAxis = v; rerender(); })),
    chart);
}

function taskCurveCard(t, data, state, rerender) {
  const curve = t.curve || [];
  const axis = state.taskAxis || "evaluations";
  let chart;
  const resumes = (data.resumes || []).filter((r) => r.task === t.task);
  if (axis === "evaluations") {
    const dots = curve.map(([n, id, status, lat]) => [n, lat, `#${n} kernel ${id}: ${status}${lat ? ", " + ms(lat) : ""}`, statusColor(status)]);
    chart = lineChart({ xLabel: "distinct kernels of the task evaluated, in order", yLabel: "latency (ms, log scale)", logY: true,
      series: [{ name: "evaluated kernels", color: "#999", line: false, dots: true, points: dots.filter((d) => d[1]) },
        { name: "failed kernels", color: "#c0392b", line: false, rug: true, points: dots.filter((d) => !d[1]) },
        { name: "best so far", color: "#2f6fb3", step: true, points: curve.filter((c) => c[4] > 0).map((c) => [c[0], c[4]]) }],
      hlines: [{ value: t.baseline_latency_ms, label: "baseline", color: "#888" }, { value: t.peak_latency_ms, label: "peak bound", color: "#27ae60" }],
      vlines: resumes.map((r) => ({ value: r.task_evaluations + 0.5, label: `resumed after round ${r.round}` })) });
  } else {
    const first = (t.rounds || [])[0];
    const key = axis === "usd" ? (r) => (r.usage || {}).cost_usd || 0 : (r) => tokens(r.usage);
    const pts = (t.rounds || []).map((r) => [key(r), r.best_latency_ms, `round ${r.round}: best ${ms(r.best_latency_ms)}`]);
    chart = lineChart({ xLabel: axis === "usd" ? "USD spent by the run" : "tokens used by the run", yLabel: "best latency (ms)", logY: true,
      series: [{ name: "best after round", color: "#2f6fb3", step: true, dots: true, points: pts }],
      vlines: resumes.map((r) => ({ value: axis === "usd" ? r.usd : r.tokens, label: `resumed after round ${r.round}` })),
      hlines: [{ value: t.baseline_latency_ms, label: "baseline", color: "#888" }, { value: t.peak_latency_ms, label: "peak bound", color: "#27ae60" }] });
    if (!first) chart = el("p", { class: "note" }, "No round completed yet.");
  }
  const statuses = [...new Set(curve.map((c) => c[2]))];
  return card(`Search progress: ${t.task}`, "Every evaluated kernel (dots, coloured by status; only correct kernels have a latency, a failed one is a cross on the x axis) and the best latency so far (line). " +
      "A kernel written again with the same text is evaluated once (the evaluation cache) and drawn once, so there can be fewer dots than the run's evaluations.",
    el("div", { class: "controls" }, "x axis:", toggle([["evaluations", "evaluations"], ["usd", "USD"], ["tokens", "tokens"]], axis, (v) => { state.taskAxis = v; rerender(); })),
    legend(statuses.map((s) => [`${s} (${curve.filter((c) => c[2] === s).length})`, statusColor(s)])), chart);
}

// Tidy tree: x = depth from the baseline, y = leaf order (parents centred on their children).
function layoutTree(nodes) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const kids = new Map(nodes.map((n) => [n.id, []]));
  const roots = [];
  for (const n of nodes) (byId.has(n.parent) ? kids.get(n.parent) : roots).push(n);
  let leaf = 0;
  const place = (n, depth) => {
    n.depth = depth;
    const cs = kids.get(n.id);
    if (!cs.length) { n.y = leaf++; return; }
    cs.forEach((c) => place(c, depth + 1));
    n.y = (cs[0].y + cs[cs.length - 1].y) / 2;
  };
  roots.forEach((r) => place(r, 0));
  return { kids, leaves: Math.max(1, leaf), depth: Math.max(0, ...nodes.map((n) => n.depth)) };
}

function lineageCard(t, data, state, rerender) {
  const lin = t.lineage;
  if (!lin || !lin.nodes.length) return card(`Lineage: ${t.task}`, "No kernel has been stored for this task yet.");
  const nodes = lin.nodes.map((n) => Object.assign({}, n));
  const { kids, leaves, depth } = layoutTree(nodes);
  const colW = 160, rowH = 54, width = Math.max(640, 80 + (depth + 1) * colW), height = 36 + leaves * rowH;
  const X = (n) => 24 + n.depth * colW, Y = (n) => 30 + n.y * rowH;
  const PATH = "#2f6fb3";
  const svg = sv("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width, "data-chart": "lineage" });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  for (const n of nodes) {
    const p = byId.get(n.parent);
    if (!p) continue;
    const path = n.on_best_path && p.on_best_path;
    svg.append(sv("path", { d: `M${X(p)},${Y(p)} C${X(p) + colW / 2},${Y(p)} ${X(n) - colW / 2},${Y(n)} ${X(n)},${Y(n)}`,
      fill: "none", stroke: path ? PATH : "#b8c2cc", "stroke-width": path ? 3.5 : 1.5 }));
  }
  const selected = state.node && byId.has(state.node) ? state.node : lin.best;
  for (const n of nodes) {
    const tried = n.children.length, better = n.children.filter((c) => c.speedup_vs_parent > 1).length;
    const g = sv("g", { class: "node" + (n.id === selected ? " selected" : ""), "data-node": n.id, transform: `translate(${X(n)},${Y(n)})` });
    g.append(sv("circle", { r: n.is_baseline || n.id === lin.best ? 9 : 7, fill: statusColor(n.status), stroke: n.id === lin.best ? PATH : "#fff", "stroke-width": 2 }));
    // Labels above the node, clear of the edges that leave it to the right.
    const label = n.is_baseline ? "baseline" : (n.id === lin.best ? "best " : "") + (n.speedup_vs_baseline ? times(n.speedup_vs_baseline) : n.status);
    g.append(sv("text", { x: -8, y: -13, "font-weight": n.id === lin.best || n.is_baseline ? 600 : null }, label));
    if (tried) g.append(sv("text", { x: -8, y: 22, class: "muted", "font-size": 10 }, `${better}/${tried} faster`));
    g.append(tip(`kernel ${n.id}${n.plan ? " — " + n.plan : ""}\n${n.status}${n.latency_ms ? ", " + ms(n.latency_ms) : ""}` +
      `${n.speedup_vs_baseline ? ", " + times(n.speedup_vs_baseline) + " vs baseline" : ""}\nin beam after rounds: ${n.beam_rounds.join(", ") || "none"}`));
    g.addEventListener("click", () => { state.node = n.id; state.child = null; rerender(); });
    svg.append(g);
  }
  return card(`Lineage: ${t.task}`, "The kernels that were in the beam, from the baseline (left) to the best kernel (blue path). " +
      "Each node says its speedup over the baseline and how many of the kernels written from it were faster. Click a node for its plan, code, diff and children.",
    legend([...["ok", "incorrect", "compile_error", "runtime_error"].map((s) => [s, statusColor(s)]), ["path to the best kernel", "#2f6fb3"]]),
    el("div", { style: "overflow-x:auto" }, svg), nodeDetail(byId.get(selected), lin, state, rerender));
}

function codeView(lin, id, parentId, state, key, rerender) {
  const code = lin.codes[String(id)], parent = parentId ? lin.codes[String(parentId)] : null;
  if (code === undefined) return el("p", { class: "note" }, "This kernel's text is not embedded (the run is large); `accelopt show` or run.db has it.");
  const mode = state[key] || (parent !== null && parent !== undefined ? "diff" : "code");
  const controls = el("div", { class: "controls" }, toggle([["code", "kernel"]].concat(parent !== undefined && parent !== null ? [["diff", "diff against its parent"]] : []), mode,
    (v) => { state[key] = v; rerender(); }));
  return el("div", {}, controls, mode === "diff" && parent !== undefined && parent !== null ? sideBySide(parent, code) : el("pre", { class: "code", "data-view": "code" }, code));
}

function nodeDetail(n, lin, state, rerender) {
  if (!n) return null;
  const children = n.children.slice().sort((a, b) => (b.speedup_vs_parent || 0) - (a.speedup_vs_parent || 0));
  const childRows = children.map((c) => [String(c.id), String(c.round), c.plan || "", el("span", { class: `badge ${c.status}` }, c.status),
    ms(c.latency_ms), times(c.speedup_vs_parent), c.in_tree ? "yes" : "", c.diagnostic || ""]);
  const child = state.child ? children.find((c) => c.id === state.child) : null;
  return el("div", { class: "detail", "data-detail": n.id },
    el("h3", {}, n.is_baseline ? "Baseline kernel" : `Kernel ${n.id} (round ${n.round})`, " ", el("span", { class: `badge ${n.status}` }, n.status)),
    el("p", {}, `latency ${ms(n.latency_ms)}; ${times(n.speedup_vs_baseline)} vs the baseline; ${times(n.speedup_vs_parent)} vs its parent; in the beam after round(s) ${n.beam_rounds.join(", ") || "—"}`),
    n.plan_text ? el("details", { open: true }, el("summary", {}, "plan: " + n.plan), el("pre", { class: "code" }, n.plan_text)) : null,
    n.diagnostics ? el("details", {}, el("summary", {}, "diagnostics"), el("pre", { class: "code" }, n.diagnostics)) : null,
    codeView(lin, n.id, n.parent, state, "nodeView", rerender),
    children.length ? el("div", {}, el("h3", {}, `${children.length} kernel(s) written from it`),
      table(["kernel", "round", "plan", "status", "latency", "vs parent", "in tree", "diagnostic"], childRows,
        { numeric: [4, 5], long: [2, 7], onclick: (i) => { state.child = children[i].id; rerender(); } })) : null,
    child ? el("div", { class: "detail", "data-detail": child.id }, el("h3", {}, `Kernel ${child.id}: ${child.plan}`),
      codeView(lin, child.id, child.parent, state, "childView", rerender)) : null);
}

function profileCard(t) {
  const p = t.profiles || {}, a = p.baseline, b = p.best;
  if (!a && !b) return card(`Profile: ${t.task}`, "No profile stored yet.");
  const engines = [...new Set(Object.keys((a || {}).engine_busy_ms || {}).concat(Object.keys((b || {}).engine_busy_ms || {})))];
  const chart = barChart({ yLabel: "busy time (ms)", groups: engines.map((e) => ({ label: e, values: [((a || {}).engine_busy_ms || {})[e] ?? null, ((b || {}).engine_busy_ms || {})[e] ?? null] })),
    series: [{ name: "baseline", color: "#9aa7b5" }, { name: "best", color: "#2f6fb3" }], height: 240 });
  const fields = [["latency", (x) => ms(x.latency)], ["latency low (error band)", (x) => x.latency_low !== undefined ? ms(x.latency_low) : null],
    ["latency high (error band)", (x) => x.latency_high !== undefined ? ms(x.latency_high) : null],
    ["bound class (error band)", (x) => x.bound_class !== undefined ? String(x.bound_class) : null],
    ["HBM read", (x) => bytes(x.hbm_read_bytes)], ["HBM write", (x) => bytes(x.hbm_write_bytes)],
    ["spill save / reload", (x) => `${bytes(x.spill_save_bytes)} / ${bytes(x.spill_reload_bytes)}`],
    ["PSUM read / write", (x) => `${bytes(x.psum_read_bytes)} / ${bytes(x.psum_write_bytes)}`],
    ["HFU (estimated)", (x) => pct(100 * (x.hfu_estimated_percent || 0))], ["Vector Engine active", (x) => pct(100 * (x.vector_engine_active_time_percent || 0))],
    ["Scalar Engine active", (x) => pct(100 * (x.scalar_engine_active_time_percent || 0))], ["GpSimd active", (x) => pct(100 * (x.gpsimd_engine_active_time_percent || 0))],
    ["instructions", (x) => num(x.instructions, 0)]];
  const rows = fields.map(([name, f]) => [name, a ? f(a) : "–", b ? f(b) : "–"]).filter((r) => r[1] !== null || r[2] !== null);
  const tl = t.timeline;
  let timeline = null;
  if (tl && tl.tracks) timeline = el("div", {}, el("h3", {}, "Simulated timeline of the best kernel"),
    el("p", { class: "note" }, "Each row is an engine or DMA queue; darker = busier. ",
      tl.file ? el("span", {}, "Full trace: ", el("a", { href: tl.file }, tl.file), " (open it in Perfetto or chrome://tracing).") : ""),
    stripChart({ tracks: tl.tracks, totalUs: tl.total_us }));
  else if (tl && tl.error) timeline = el("p", { class: "note" }, "No timeline: " + tl.error);
  return card(`Profile: ${t.task}`, "The simulated profile of the baseline and of the best kernel: where the time goes, per engine.",
    legend([["baseline", "#9aa7b5"], ["best", "#2f6fb3"]]), chart, table(["", "baseline", "best"], rows, { numeric: [1, 2] }), timeline);
}

function failuresCard(t) {
  const f = t.failures || { rounds: [], top: [] };
  const statuses = [...new Set(f.rounds.flatMap((r) => Object.keys(r.counts)))].sort((x, y) => x === "ok" ? -1 : y === "ok" ? 1 : x.localeCompare(y));
  const chart = statuses.length ? barChart({ yLabel: "kernels", height: 240,
    groups: f.rounds.map((r) => ({ label: `round ${r.round}`, values: statuses.map((s) => r.counts[s] || 0) })),
    series: statuses.map((s) => ({ name: s, color: statusColor(s) })) }) : el("p", { class: "note" }, "No kernel evaluated yet.");
  // The status is the evaluation's typed status; the stage (when the store recorded the typed
  // failure) is where it happened: parse_kernel, run_kernel, compare, lower, ...
  const staged = f.top.some((d) => d.stage);
  const topRows = f.top.map((d) => [el("span", { class: `badge ${d.status || ""}`, style: `background:${statusColor(d.status)}` }, d.status || "?"),
    ...(staged ? [d.stage || "–"] : []), d.text, String(d.count), el("details", {}, el("summary", {}, "show"), el("pre", { class: "code" }, d.example))]);
  const headers = ["status", ...(staged ? ["stage"] : []), "diagnostic", "kernels", "example"];
  return card(`Failures: ${t.task}`, "Evaluated kernels per round by status, and the most common failures by status" +
      (staged ? ", the stage where they happened" : "") + " and diagnostic (numbers folded into N).",
    legend(statuses.map((s) => [s, statusColor(s)])), chart,
    f.top.length ? table(headers, topRows, { numeric: [headers.indexOf("kernels")], long: [headers.indexOf("diagnostic")] })
      : el("p", { class: "note" }, "No failed kernel."));
}

function memoryCard(data) {
  const m = data.memory || {}, items = m.items || [];
  const rows = items.slice().reverse().map((i) => [i.task || "", String(i.round ?? ""), el("span", { class: `badge ${i.kind === "negative" ? "failed" : "ok"}` }, i.kind || "positive"),
    // A negative item's pair is the kernel that got slower: its speedup over the parent is below 1.
    i.kind === "negative" && i.speedup ? times(1 / i.speedup) : times(i.speedup), i.plan || "", i.lesson || "", String(i.offered), String(i.reused), i.reused ? `${i.reused_improved}/${i.reused_kernels}` : "–", i.evicted ? "evicted" : ""]);
  return card("Optimization memory", `What the summarizer learned (${items.length} item(s) added in this run, newest first; capacity ${m.capacity}). ` +
      "Speedup: of the item's kernel over its parent (below 1×: a rewrite that made it slower, kept as a warning). Offered: plans made while the item was in memory. Reused: of those, plans with the item's plan title; improved: their kernels that beat their parent.",
    items.length ? table(["task", "round", "kind", "speedup", "plan", "lesson", "offered", "reused", "improved", ""], rows, { numeric: [3, 6, 7, 8], long: [4, 5] })
      : el("p", { class: "note" }, "No memory item was added."));
}

function configCard(data) {
  const r = data.run, c = r.config || {}, p = c.params || {}, b = c.budgets || {}, e = c.executor || {};
  const kv = [["agent", c.agent], ["tasks", c.tasks], ["arch", c.arch], ["beam B / plans N / kernels K / rounds T", `${p.B} / ${p.N} / ${p.K} / ${p.T}`],
    ["memory capacity / top-k pairs", `${p.expn} / ${p.topk}`], ["t_pos / t_neg", `${p.t_pos} / ${p.t_neg}`], ["memory in", c.memory_in || "—"],
    ["budgets", Object.entries(b).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(", ") || "none"],
    ["executor", `${e.kind || "local"}, ${e.workers ?? ""} workers, profiler ${e.profiler || "sim"}`], ["kernels from", c.kernels || "the benchmark"],
    ["run directory", r.dir]];
  const models = (data.models || []).map((m) => [m.agent, m.model, String(m.calls), String(m.failed), num(m.input_tokens, 0), num(m.output_tokens, 0), num(m.cost_usd, 4), num(m.mean_latency_s, 2)]);
  // summary.json's spending by agent and by model (cached prompt tokens included), when the run has it.
  const u = data.usage || {};
  const spending = [["agent", u.by_agent], ["model", u.by_model]].flatMap(([kind, rows]) => Object.entries(rows || {}).map(([name, x]) =>
    [`${kind} ${name}`, String(x.calls ?? 0), String(x.failed_calls ?? 0), num(x.input_tokens || 0, 0), num(x.cached_input_tokens || 0, 0),
      num(x.output_tokens || 0, 0), num(x.cost_usd || 0, 4)]));
  return card("Configuration", "How the run was set up, the agents and models it used, and the command that reproduces it.",
    table(["setting", "value"], kv.map(([k, v]) => [k, String(v ?? "")])),
    el("h3", {}, "Reproduce"), el("pre", { class: "code", "data-view": "command" }, r.command),
    el("h3", {}, "Agents and models"),
    models.length ? table(["agent", "model", "calls", "failed", "input tokens", "output tokens", "USD", "mean latency (s)"], models, { numeric: [2, 3, 4, 5, 6, 7] })
      : el("p", { class: "note" }, c.agent === "llm" ? "No model call recorded yet." : `The ${c.agent} agent calls no model (no tokens, no cost).`),
    spending.length ? el("div", {}, el("h3", {}, "Spending by agent and model"),
      table(["", "calls", "failed", "input tokens", "cached input tokens", "output tokens", "USD"], spending, { numeric: [1, 2, 3, 4, 5, 6] })) : null,
    r.agents_file_text ? el("details", {}, el("summary", {}, "agents file (models, prices) " + r.agents_file), el("pre", { class: "code" }, r.agents_file_text)) : null,
    el("details", {}, el("summary", {}, "config.json"), el("pre", { class: "code" }, JSON.stringify(c, null, 2))));
}

// What the person was looking at survives the live page's reloads (sessionStorage); a link can
// open a view directly: report.html#task=T&node=ID&nodeView=diff&child=ID.
function initialState(key) {
  let state = {};
  try { state = JSON.parse(sessionStorage.getItem(key) || "{}"); } catch (e) { state = {}; }
  for (const [k, v] of new URLSearchParams(location.hash.slice(1))) state[k] = /^\d+$/.test(v) ? +v : v;
  return state;
}

function renderRun(data, app) {
  const key = RUN_STATE_KEY + ":" + data.run.dir;
  const state = initialState(key);
  const save = (k, v) => { try { sessionStorage.setItem(k, v); } catch (e) { /* storage may be off */ } };
  const rerender = () => { save(key, JSON.stringify(state)); draw(); };
  const draw = () => {
    app.replaceChildren();
    const { top, kpis } = header(data);
    app.append(top);
    const main = el("main", {});
    if (data.run.live) main.append(el("div", { class: "live" }, `This run is still going (or was stopped without finishing): the page reloads itself every 15 s while accelopt optimize --report rewrites it.`));
    if (data.run.stop_message) main.append(el("p", { class: "note" }, "stopped: " + data.run.stop_message));
    main.append(kpis, summaryCard(data), costCard(data, state, rerender));
    const tasks = data.tasks.filter((t) => t.curve);
    if (tasks.length) {
      if (!tasks.some((t) => t.task === state.task)) state.task = tasks[0].task;
      const t = tasks.find((x) => x.task === state.task);
      main.append(el("div", { class: "controls", style: "position:sticky;top:0;background:var(--bg);padding:6px 0;z-index:2" }, el("b", {}, "Task: "),
        el("select", { "data-control": "task", onchange: (e) => { state.task = e.target.value; state.node = null; state.child = null; rerender(); } },
          tasks.map((x) => el("option", { value: x.task, selected: x.task === state.task }, x.task)))));
      main.append(taskCurveCard(t, data, state, rerender), lineageCard(t, data, state, rerender), profileCard(t), failuresCard(t));
    }
    main.append(memoryCard(data), configCard(data));
    app.append(main);
  };
  draw();
  if (data.run.live) {
    setTimeout(() => { save(key + ":scroll", String(window.scrollY)); location.reload(); }, 15000);
    let y = 0;
    try { y = +sessionStorage.getItem(key + ":scroll"); } catch (e) { y = 0; }
    if (y) window.scrollTo(0, y);
  }
}

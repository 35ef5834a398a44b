// `accelopt report RUN_A RUN_B ...`: several runs on the same axes (memory vs no memory, two
// agents, two budgets): per-task speedup, geomean speedup against cost, and what differs in
// their configurations.
"use strict";

function flatten(obj, prefix = "", out = {}) {
  for (const [k, v] of Object.entries(obj || {})) {
    if (v && typeof v === "object" && !Array.isArray(v)) flatten(v, prefix + k + ".", out);
    else out[prefix + k] = JSON.stringify(v);
  }
  return out;
}

function renderCompare(data, app) {
  const runs = data.runs;
  const state = { axis: "evaluations" };
  const color = (i) => PALETTE[i % PALETTE.length];
  const draw = () => {
    app.replaceChildren();
    app.append(el("header", { class: "top" }, el("h1", {}, `accelopt: ${runs.length} runs compared`),
      el("div", { class: "meta" }, el("span", {}, runs.map((r) => r.run.name).join(" · ")), el("span", {}, `generated ${data.generated_at}`))));
    const main = el("main", {});
    const rows = runs.map((r, i) => {
      const c = r.run.config || {}, p = c.params || {}, ts = r.tasks.filter((t) => taskSpeedup(t));
      return [el("span", {}, el("i", { style: `display:inline-block;width:10px;height:10px;background:${color(i)};margin-right:6px` }), r.run.name),
        el("span", { class: `badge ${r.run.status}` }, r.run.status), c.agent || "", `B${p.B} N${p.N} K${p.K} T${p.T}`, c.memory_in || "—",
        times(geomean(ts.map(taskSpeedup))), String(r.run.evaluations), num((r.usage || {}).cost_usd || 0, 4), num(r.run.elapsed_s, 0)];
    });
    main.append(card("Runs", "One row per run; the colour is the run's in every chart below.",
      table(["run", "status", "agent", "search", "memory in", "geomean speedup", "evaluations", "USD", "seconds"], rows, { numeric: [5, 6, 7, 8] })));
    const names = [...new Set(runs.flatMap((r) => r.tasks.map((t) => t.task)))];
    const groups = names.map((n) => ({ label: n, values: runs.map((r) => { const t = r.tasks.find((x) => x.task === n); return t ? taskSpeedup(t) : null; }) }));
    // A speedup inside the simulator's error band is marked, as on the run's page.
    const cell = (n, i) => {
      const t = runs[i].tasks.find((x) => x.task === n);
      if (!t || !taskSpeedup(t)) return "–";
      return t.speedup_confidence === "unconfirmed" ? el("span", {}, times(taskSpeedup(t)), " ", el("span", { class: "badge unconfirmed", title: "inside the simulator's error band" }, "unconfirmed"))
        : times(taskSpeedup(t));
    };
    main.append(card("Speedup per task", "Best kernel's speedup over the baseline, per task and run (\"unconfirmed\": inside the simulator's error band).",
      legend(runs.map((r, i) => [r.run.name, color(i)])),
      barChart({ groups, series: runs.map((r, i) => ({ name: r.run.name, color: color(i) })), yLabel: "speedup", refLine: { value: 1, label: "baseline" } }),
      table(["task"].concat(runs.map((r) => r.run.name)), groups.map((g) => [g.label].concat(runs.map((_, i) => cell(g.label, i)))), { numeric: runs.map((_, i) => i + 1) })));
    const labels = { evaluations: "evaluations", usd: "USD spent", tokens: "tokens" };
    main.append(card("Cost and benefit", "Geometric-mean speedup over each run's tasks after every round, against what it cost.",
      el("div", { class: "controls" }, "x axis:", toggle([["evaluations", "evaluations"], ["usd", "USD"], ["tokens", "tokens"]], state.axis, (v) => { state.axis = v; draw(); })),
      legend(runs.map((r, i) => [r.run.name, color(i)])),
      lineChart({ xLabel: labels[state.axis], yLabel: "geometric-mean speedup", hlines: [{ value: 1, label: "baseline", color: "#888" }],
        series: runs.map((r, i) => ({ name: r.run.name, color: color(i), step: true, dots: true,
          points: overallCurve(r.tasks).map((p) => [p[state.axis], p.speedup, `${r.run.name}, ${p.label}: ${times(p.speedup)}`]) })) })));
    const flat = runs.map((r) => flatten(r.run.config));
    const keys = [...new Set(flat.flatMap((f) => Object.keys(f)))].sort().filter((k) => new Set(flat.map((f) => f[k])).size > 1);
    main.append(card("What differs", "Configuration values that are not the same in every run.",
      keys.length ? table(["setting"].concat(runs.map((r) => r.run.name)), keys.map((k) => [k].concat(flat.map((f) => f[k] ?? "—"))))
        : el("p", { class: "note" }, "The runs have the same configuration."),
      el("h3", {}, "Commands"), el("pre", { class: "code" }, runs.map((r) => r.run.command).join("\n"))));
    app.append(main);
  };
  draw();
}

// `accelopt bench --html FILE`: the benchmark as a page: percent of peak per task (coloured by
// what bounds the peak estimate), latency against the peak latency, correctness.
"use strict";

const BOUND_COLORS = { memory: "#2f6fb3", vector: "#d35400", matmul: "#8e44ad" };

function renderBench(data, app) {
  const b = data.bench, tasks = b.tasks || [];
  const label = (t) => `${t.task} ${t.config || ""}`.trim();
  const correct = tasks.filter((t) => t.correct).length;
  app.append(el("header", { class: "top" }, el("h1", {}, `accelopt bench (${b.arch})`),
    el("div", { class: "meta" }, el("span", {}, `${tasks.length} tasks`), el("span", {}, `${correct} correct`), el("span", {}, `generated ${data.generated_at}`))));
  const main = el("main", {});
  main.append(el("div", { class: "kpis" },
    el("div", { class: "kpi", "data-kpi": "geomean-peak" }, el("b", {}, pct(b.geomean_percent_of_peak)), el("span", {}, "geometric-mean percent of peak")),
    el("div", { class: "kpi" }, el("b", {}, `${correct}/${tasks.length}`), el("span", {}, "tasks correct"))));
  const groups = tasks.map((t) => ({ label: label(t), values: [t.percent_of_peak ?? null], colors: [BOUND_COLORS[t.bound] || "#7f8c8d"],
    notes: [`${t.bound || "no"}-bound peak estimate, ${ms(t.latency)} vs peak ${ms(t.peak_latency)}`] }));
  main.append(card("Percent of peak", "Peak latency (the published max of vector, matmul and memory time) over the simulated latency; the colour is what bounds the peak.",
    legend(Object.entries(BOUND_COLORS).map(([k, c]) => [k + "-bound", c])),
    barChart({ groups, series: [{ name: "percent of peak", color: "#2f6fb3" }], yLabel: "percent of peak", refLine: { value: 100, label: "peak" } })));
  const lat = tasks.filter((t) => t.latency).map((t) => ({ label: label(t), values: [t.latency, t.peak_latency ?? null] }));
  main.append(card("Latency and peak latency", "Simulated latency of each kernel beside the latency the peak estimate allows.",
    legend([["simulated latency", "#2f6fb3"], ["peak latency", "#27ae60"]]),
    barChart({ groups: lat, series: [{ name: "latency (ms)", color: "#2f6fb3" }, { name: "peak latency (ms)", color: "#27ae60" }], yLabel: "ms" }),
    table(["task", "config", "status", "latency", "peak latency", "bound", "percent of peak", "worst rel. L2", "seconds"],
      tasks.map((t) => [t.task, t.config || "", el("span", { class: `badge ${t.status}` }, t.status), withBand(t.latency, t.latency_low, t.latency_high), ms(t.peak_latency), t.bound || "–",
        pct(t.percent_of_peak), t.rel_l2 !== undefined ? num(t.rel_l2, 6) : "–", num(t.seconds, 1)]), { numeric: [3, 4, 6, 7, 8] })));
  const failed = tasks.filter((t) => !t.correct);
  if (failed.length) main.append(card("Failures", "Diagnostics of the kernels that did not pass.",
    failed.map((t) => el("div", {}, el("h3", {}, `${label(t)}: ${t.status}`), el("pre", { class: "code" }, (t.diagnostics || []).join("\n"))))));
  main.append(card("Peak constants", null, el("p", {}, b.peak_constants || "")));
  app.append(main);
}

boot({ run: renderRun, compare: renderCompare, bench: renderBench });

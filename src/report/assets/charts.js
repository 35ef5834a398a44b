// Small SVG chart helpers shared by the run, comparison and benchmark pages. Every mark carries
// a <title>, so the numbers are on hover; every chart is also summarised in a table by its page.
"use strict";
const SVGNS = "http://www.w3.org/2000/svg";
const PALETTE = ["#2f6fb3", "#d35400", "#27ae60", "#8e44ad", "#c0392b", "#16a085", "#7f8c8d", "#f1c40f"];
const STATUS_COLORS = { ok: "#2e7d4f", incorrect: "#c0392b", compile_error: "#8e44ad", runtime_error: "#d35400",
  timeout: "#7f8c8d", resource_error: "#34495e", lower_precision: "#d68910", internal_error: "#000000",
  no_code: "#95a5a6", not_evaluated: "#bdc3c7" };
const statusColor = (s) => STATUS_COLORS[s] || "#95a5a6";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "onclick" || k === "onchange") node[k] = v; else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}
function sv(tag, attrs, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) node.setAttribute(k, v);
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  return node;
}
const tip = (text) => sv("title", {}, text);

// `fixed`: always `digits` decimals, as the terminal prints them (1.260x, 0.9080 ms, 58.8%), so that
// the page and the log read the same number the same way.
function num(v, digits = 3, fixed = false) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  if (typeof v !== "number") return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
  return v.toLocaleString("en-US", { minimumFractionDigits: fixed ? digits : 0, maximumFractionDigits: digits });
}
const ms = (v) => v ? num(v, 4, true) + " ms" : "–";
const pct = (v) => (v === null || v === undefined) ? "–" : num(v, 1, true) + "%";
const times = (v) => v ? num(v, 3, true) + "×" : "–";
// A latency with the simulator's error band under it (trn/error_band.h), when there is one.
const bandText = (lo, hi) => lo > 0 && hi > 0 ? `${num(lo, 4, true)}–${num(hi, 4, true)} ms` : "–";
function withBand(v, lo, hi) {
  if (!(lo > 0 && hi > 0)) return ms(v);
  return el("span", { title: `simulator's error band: ${bandText(lo, hi)}` }, ms(v), el("br"), el("small", { class: "muted" }, `(${bandText(lo, hi)})`));
}
function bytes(v) {
  if (!v) return "0 B";
  const units = ["B", "KiB", "MiB", "GiB"]; let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return num(v, 1) + " " + units[i];
}
function geomean(values) {
  const xs = values.filter((v) => v > 0);
  return xs.length ? Math.exp(xs.reduce((s, v) => s + Math.log(v), 0) / xs.length) : null;
}

function table(headers, rows, opts = {}) {
  // numeric: right-aligned columns; long: columns of long text (a lesson, a diagnostic) that may
  // break anywhere, so that they rather than the short columns give up width.
  const numeric = opts.numeric || [], long = opts.long || [];
  const head = el("tr", {}, headers.map((h, i) => el("th", { class: numeric.includes(i) ? "num" : null }, h)));
  const body = rows.map((r, ri) => {
    const tr = el("tr", { class: opts.onclick ? "clickable" : null },
      r.map((c, i) => el("td", { class: numeric.includes(i) ? "num" : long.includes(i) ? "long" : null }, c)));
    if (opts.onclick) tr.onclick = () => opts.onclick(ri);
    return tr;
  });
  // In a scrolling box: a wide table scrolls inside its card instead of running past it.
  return el("div", { class: "table-box" }, el("table", { class: "data" }, el("thead", {}, head), el("tbody", {}, body)));
}
function legend(items) {
  return el("div", { class: "legend" }, items.map(([name, color]) => el("span", {}, el("i", { style: `background:${color}` }), name)));
}
function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) { hi = lo + 1; }
  const step0 = (hi - lo) / count, mag = Math.pow(10, Math.floor(Math.log10(step0)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= step0) || step0;
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
  return ticks;
}

// Grouped vertical bars: groups [{label, values: [v per series], notes: [text per series]}].
function barChart({ groups, series, yLabel, width, height = 300, refLine, yMax }) {
  // Narrow for a few groups (one task's two bars need no 900 px), at most 900.
  width = width || Math.max(380, Math.min(900, 110 + groups.length * Math.max(70, 24 * series.length + 30)));
  const m = { l: 58, r: 12, t: 14, b: 78 };
  const w = width - m.l - m.r, h = height - m.t - m.b;
  const top = yMax || Math.max(1e-9, ...groups.flatMap((g) => g.values.filter((v) => v !== null)), refLine ? refLine.value : 0);
  // The axis ends on a labelled tick at or above the tallest bar (a 1.29x bar under an axis that
  // stops at 1 reads as off the chart), with a little headroom for the reference line's label.
  const ticks = niceTicks(0, top);
  if (ticks.length >= 2 && ticks[ticks.length - 1] < top) ticks.push(+(2 * ticks[ticks.length - 1] - ticks[ticks.length - 2]).toPrecision(12));
  const scale = Math.max(top * 1.04, ticks[ticks.length - 1]);
  const Y = (v) => m.t + h - (v / scale) * h;
  const gw = w / Math.max(1, groups.length), bw = Math.min(28, (gw * 0.8) / series.length);
  const svg = sv("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width, role: "img", "data-chart": "bars" });
  svg.append(sv("g", { class: "grid" }, ticks.map((t) => sv("line", { x1: m.l, x2: m.l + w, y1: Y(t), y2: Y(t) }))));
  svg.append(sv("g", { class: "axis" }, ticks.map((t) => sv("text", { x: m.l - 6, y: Y(t) + 4, "text-anchor": "end" }, num(t))),
    sv("line", { x1: m.l, x2: m.l + w, y1: m.t + h, y2: m.t + h })));
  svg.append(sv("text", { x: 12, y: m.t + h / 2, transform: `rotate(-90 12 ${m.t + h / 2})`, "text-anchor": "middle", class: "muted" }, yLabel));
  groups.forEach((g, gi) => {
    const x0 = m.l + gi * gw + (gw - bw * series.length) / 2;
    g.values.forEach((v, si) => {
      if (v === null || v === undefined) return;
      const color = (g.colors && g.colors[si]) || series[si].color;
      svg.append(sv("rect", { x: x0 + si * bw, y: Y(v), width: bw - 2, height: Math.max(0, m.t + h - Y(v)), fill: color, "data-mark": "bar" },
        tip(`${g.label} — ${series[si].name}: ${num(v)}${g.notes && g.notes[si] ? " — " + g.notes[si] : ""}`)));
    });
    const lx = m.l + gi * gw + gw / 2, ly = m.t + h + 10;
    svg.append(sv("text", { x: lx, y: ly, transform: `rotate(30 ${lx} ${ly})`, "font-size": 11 }, g.label.length > 26 ? g.label.slice(0, 25) + "…" : g.label));
  });
  if (refLine) {
    svg.append(sv("line", { x1: m.l, x2: m.l + w, y1: Y(refLine.value), y2: Y(refLine.value), stroke: "#555", "stroke-dasharray": "4 3" }));
    svg.append(sv("text", { x: m.l + w - 4, y: Y(refLine.value) - 4, "text-anchor": "end", class: "muted" }, refLine.label));
  }
  return svg;
}

// Lines and dots on numeric axes. series: [{name, color, points: [[x, y, hover]], step, dots, dash}].
function lineChart({ series, xLabel, yLabel, width = 900, height = 300, hlines = [], vlines = [], logY = false, yZero = false }) {
  const m = { l: 64, r: 16, t: 14, b: 40 };
  const w = width - m.l - m.r, h = height - m.t - m.b;
  const all = series.flatMap((s) => s.points).filter((p) => p[1] !== null && p[1] !== undefined && (!logY || p[1] > 0));
  // x spans every point, also those without a y (a series with `rug` marks them on the x axis).
  const xs = series.flatMap((s) => s.points).map((p) => p[0]).filter((x) => x !== null && x !== undefined), ys = all.map((p) => p[1]).concat(hlines.map((l) => l.value).filter((v) => v > 0));
  let x0 = Math.min(0, ...xs), x1 = Math.max(1, ...xs);
  let y0 = yZero ? 0 : Math.min(...ys), y1 = Math.max(...ys);
  if (!isFinite(y0)) { y0 = 0; y1 = 1; }
  if (y1 <= y0) { y1 = y0 * 1.1 + 1e-9; y0 = y0 * 0.9; }
  const T = logY ? Math.log10 : (v) => v;
  const pad = (T(y1) - T(y0)) * 0.06;
  const ty0 = T(y0) - pad, ty1 = T(y1) + pad;
  const X = (v) => m.l + ((v - x0) / (x1 - x0)) * w, Y = (v) => m.t + h - ((T(v) - ty0) / (ty1 - ty0)) * h;
  const svg = sv("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width, role: "img", "data-chart": "lines" });
  const yt = logY ? niceTicks(y0, y1, 5).filter((t) => t > 0) : niceTicks(ty0, ty1, 5);
  const xt = niceTicks(x0, x1, 8);
  svg.append(sv("g", { class: "grid" }, yt.map((t) => sv("line", { x1: m.l, x2: m.l + w, y1: Y(t), y2: Y(t) }))));
  svg.append(sv("g", { class: "axis" },
    yt.map((t) => sv("text", { x: m.l - 6, y: Y(t) + 4, "text-anchor": "end" }, num(t, 4))),
    xt.map((t) => sv("text", { x: X(t), y: m.t + h + 16, "text-anchor": "middle" }, num(t))),
    sv("line", { x1: m.l, x2: m.l + w, y1: m.t + h, y2: m.t + h }), sv("line", { x1: m.l, x2: m.l, y1: m.t, y2: m.t + h })));
  svg.append(sv("text", { x: m.l + w / 2, y: height - 4, "text-anchor": "middle", class: "muted" }, xLabel));
  svg.append(sv("text", { x: 12, y: m.t + h / 2, transform: `rotate(-90 12 ${m.t + h / 2})`, "text-anchor": "middle", class: "muted" }, yLabel));
  for (const l of hlines) {
    if (!(l.value > 0) || l.value < y0 / 2 || l.value > y1 * 2) continue;
    svg.append(sv("line", { x1: m.l, x2: m.l + w, y1: Y(l.value), y2: Y(l.value), stroke: l.color || "#555", "stroke-dasharray": "5 4" }));
    svg.append(sv("text", { x: m.l + w - 4, y: Y(l.value) - 4, "text-anchor": "end", fill: l.color || "#555" }, l.label));
  }
  for (const l of vlines) {
    svg.append(sv("line", { x1: X(l.value), x2: X(l.value), y1: m.t, y2: m.t + h, stroke: l.color || "#999", "stroke-dasharray": "2 3" }, tip(l.label)));
    svg.append(sv("text", { x: X(l.value) + 3, y: m.t + 10, class: "muted" }, l.label));
  }
  for (const s of series) {
    const pts = s.points.filter((p) => p[1] !== null && p[1] !== undefined && (!logY || p[1] > 0));
    if (s.line !== false && pts.length) {
      let d = "";
      pts.forEach((p, i) => {
        if (i === 0) d += `M${X(p[0])},${Y(p[1])}`;
        else d += s.step ? `H${X(p[0])}V${Y(p[1])}` : `L${X(p[0])},${Y(p[1])}`;
      });
      svg.append(sv("path", { d, fill: "none", stroke: s.color, "stroke-width": s.width || 2, "stroke-dasharray": s.dash, "data-series": s.name }));
    }
    if (s.rug) {
      // Points without a value (a kernel that failed has no latency): a small cross on the x axis.
      const g = sv("g", { "data-series-rug": s.name });
      for (const p of s.points.filter((q) => q[1] === null || q[1] === undefined)) {
        const cx = X(p[0]), cy = m.t + h - 5;
        g.append(sv("path", { d: `M${cx - 3},${cy - 3}L${cx + 3},${cy + 3}M${cx - 3},${cy + 3}L${cx + 3},${cy - 3}`, stroke: p[3] || s.color, "stroke-width": 1.5 },
          p[2] ? tip(p[2]) : null));
      }
      svg.append(g);
    }
    if (s.dots) {
      const g = sv("g", { "data-series-dots": s.name });
      for (const p of pts) g.append(sv("circle", { cx: X(p[0]), cy: Y(p[1]), r: s.r || 2.5, fill: p[3] || s.color, "fill-opacity": 0.75 }, p[2] ? tip(p[2]) : null));
      svg.append(g);
    }
  }
  return svg;
}

// One strip per track, each bucket shaded by how busy the track was (timeline of a kernel).
function stripChart({ tracks, totalUs, width = 900 }) {
  const rowH = 18, m = { l: 110, r: 10, t: 6, b: 26 };
  const height = m.t + m.b + rowH * tracks.length, w = width - m.l - m.r;
  const svg = sv("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width, role: "img", "data-chart": "timeline" });
  tracks.forEach((t, i) => {
    const y = m.t + i * rowH, bw = w / t.busy.length;
    svg.append(sv("text", { x: m.l - 6, y: y + 13, "text-anchor": "end" }, t.name));
    svg.append(sv("rect", { x: m.l, y, width: w, height: rowH - 3, fill: "#f1f3f5" }));
    t.busy.forEach((b, j) => {
      if (b <= 0) return;
      svg.append(sv("rect", { x: m.l + j * bw, y, width: bw + 0.3, height: rowH - 3, fill: PALETTE[i % PALETTE.length], "fill-opacity": 0.15 + 0.85 * b / 100 }));
    });
    svg.append(sv("rect", { x: m.l, y, width: w, height: rowH - 3, fill: "transparent" },
      tip(`${t.name}: busy ${num(t.busy_us, 1)} µs of ${num(totalUs, 1)} µs (${num(100 * t.busy_us / totalUs, 1)}%), ${t.events} instructions`)));
  });
  niceTicks(0, totalUs, 8).forEach((t) => {
    const x = m.l + (t / totalUs) * w;
    if (x <= m.l + w + 1) svg.append(sv("text", { x, y: height - 8, "text-anchor": "middle", class: "muted" }, num(t, 1) + " µs"));
  });
  return svg;
}

// Side-by-side line diff (jsdiff's diffLines, embedded from Debian's node-diff).
function sideBySide(before, after) {
  const left = [], right = [];
  for (const part of Diff.diffLines(before || "", after || "")) {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (part.added) { lines.forEach((l) => right.push(["add", l])); }
    else if (part.removed) { lines.forEach((l) => left.push(["del", l])); }
    else {
      while (left.length < right.length) left.push(["pad", ""]);
      while (right.length < left.length) right.push(["pad", ""]);
      lines.forEach((l) => { left.push(["", l]); right.push(["", l]); });
    }
  }
  while (left.length < right.length) left.push(["pad", ""]);
  while (right.length < left.length) right.push(["pad", ""]);
  const render = (rows) => el("pre", { class: "code" }, rows.map(([cls, text]) => cls ? el("span", { class: cls }, text || " ", "\n") : text + "\n"));
  return el("div", { class: "diff", "data-view": "diff" }, render(left), render(right));
}

function card(title, explain, ...content) {
  return el("section", { class: "card", "data-section": title }, el("h2", {}, title), explain ? el("p", { class: "explain" }, explain) : null, content);
}
function toggle(options, current, onPick) {
  return el("span", {}, options.map(([value, label]) => el("button", { class: value === current ? "on" : null, onclick: () => onPick(value) }, label)));
}

// Renders the page for the embedded data, records render time and errors on <body> (the browser
// test reads data-render and data-render-ms).
function boot(renderers) {
  const errors = [];
  const box = document.getElementById("errors");
  const report = (msg) => { errors.push(msg); box.style.display = "block"; box.append(el("div", {}, msg)); document.body.dataset.render = "error"; };
  window.addEventListener("error", (e) => report("script error: " + e.message));
  try {
    const data = JSON.parse(document.getElementById("report-data").textContent);
    const render = renderers[data.kind];
    if (!render) throw new Error("unknown report kind " + data.kind);
    render(data, document.getElementById("app"));
    if (!errors.length) document.body.dataset.render = "ok";
  } catch (e) {
    report("render failed: " + (e && e.stack || e));
  }
  document.body.dataset.renderMs = Math.round(performance.now());
}

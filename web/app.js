// kforge serve's page: hash routes (#/ sessions, #/run/ID, #/hitl/ID) over the JSON API. Every
// text from the store or a model goes into the page as text (textContent), never as HTML; the
// one markup taken from the server, Graphviz's SVG, is parsed as SVG and stripped of scripts.
"use strict";

const main = document.getElementById("main");
let cleanup = [];  // event sources and timers of the page shown

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick" || k === "onchange" || k === "oninput" || k === "onkeydown") e[k] = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined)
    e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  return e;
}

function status(text, isError) {
  const s = document.getElementById("status");
  s.textContent = text || "";
  s.className = isError ? "error" : "";
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, init);
  const type = res.headers.get("Content-Type") || "";
  const data = type.startsWith("application/json") ? await res.json() : await res.text();
  if (!res.ok) throw new Error((data && data.error) || res.statusText);
  return data;
}

const fmtRatio = (r) => (r === null || r === undefined) ? "—" : r.toFixed(2) + "x";
const fmtMs = (ms) => (ms === null || ms === undefined) ? "—" : ms.toPrecision(4) + " ms";
const fmtUsd = (c) => "$" + (c || 0).toFixed(4);
const verdictClass = (v) => v === "correct" ? "verdict-correct" : v ? "verdict-bad" : "";

function code(src) {
  const pre = el("pre", { class: "code" });
  pre.appendChild(kforgeHighlight.render(src || ""));
  return pre;
}

function diffBlock(text) {
  const pre = el("pre", { class: "diff" });
  pre.appendChild(kforgeHighlight.diff(text));
  return pre;
}

// ---------------------------------------------------------------- sessions

async function showSessions() {
  main.replaceChildren(el("h1", { text: "Sessions" }));
  const filter = el("input", { type: "text", id: "filter", placeholder: "filter: task, mode, state, id" });
  const table = el("table", { id: "sessions" });
  main.append(el("p", {}, filter), table);
  main.append(startHitlForm(), launchForm());
  let rows = [];
  const draw = () => {
    const f = filter.value.trim().toLowerCase();
    const head = el("tr", {}, ...["session", "mode", "task", "size", "state", "nodes", "best",
      "tokens", "cost", "started", ""].map((h) => el("th", { text: h })));
    const body = rows.filter((r) => !f || [r.session, r.mode, r.task, r.state, r.size]
      .some((x) => String(x).toLowerCase().includes(f))).map((r) => {
        const link = el("a", { href: "#/run/" + r.session, text: r.session });
        const actions = el("td");
        if (r.mode === "hitl") actions.append(el("button", {
          class: "resume", text: r.open_here ? "open" : "resume", onclick: () => resumeHitl(r.session) }));
        return el("tr", { "data-session": r.session }, el("td", {}, link), el("td", { text: r.mode }),
          el("td", { text: r.task }), el("td", { text: r.size }), el("td", { text: r.state }),
          el("td", { class: "num", text: String(r.nodes) }),
          el("td", { class: "num best", text: fmtRatio(r.best_speedup) }),
          el("td", { class: "num", text: (r.tokens_estimated ? "~" : "") + r.tokens }),
          el("td", { class: "num", text: fmtUsd(r.cost_usd) }), el("td", { text: r.created_at }), actions);
      });
    table.replaceChildren(head, ...body);
  };
  filter.oninput = draw;
  try {
    rows = await api("/api/sessions");
    draw();
    status(rows.length + " session(s)");
  } catch (e) { status(e.message, true); }
}

function startHitlForm() {
  const task = el("input", { type: "text", id: "hitl-task", placeholder: "task (e.g. 12p_rmsnorm)" });
  const size = el("input", { type: "text", id: "hitl-size", placeholder: "size (ci, cpu, full)" });
  const model = el("input", { type: "text", id: "hitl-model", placeholder: "model (default: serve's)" });
  const go = el("button", { id: "hitl-start", text: "start hitl session", onclick: async () => {
    go.disabled = true;
    status("setting the session up (measuring the baseline)…");
    try {
      const r = await api("/api/hitl", { task: task.value, size: size.value, model: model.value });
      location.hash = "#/hitl/" + r.run_id;
    } catch (e) { status(e.message, true); go.disabled = false; }
  } });
  return el("div", { class: "panel" }, el("h2", { text: "New hitl session" }), task, " ", size, " ", model, " ", go);
}

// auto and search started from the page: the server runs the same commands a terminal would.
function launchForm() {
  const mode = el("select", { id: "launch-mode" }, el("option", { value: "auto", text: "auto" }),
    el("option", { value: "search", text: "search" }));
  const task = el("input", { type: "text", id: "launch-task", placeholder: "task" });
  const size = el("input", { type: "text", id: "launch-size", placeholder: "size", size: 6 });
  const model = el("input", { type: "text", id: "launch-model", placeholder: "model (default: kforge.toml)" });
  const count = el("input", { type: "text", id: "launch-count", size: 4, placeholder: "iters / width" });
  const list = el("div", { id: "launches" });
  const go = el("button", { id: "launch-start", text: "start", onclick: async () => {
    const body = { mode: mode.value, task: task.value, size: size.value, model: model.value };
    const n = Number(count.value);
    if (count.value && n > 0) body[mode.value === "auto" ? "iterations" : "width"] = n;
    try { await api("/api/launch", body); status(""); await draw(); } catch (e) { status(e.message, true); }
  } });
  const draw = async () => {
    let launches;
    try { launches = await api("/api/launches"); } catch (e) { return; }
    list.replaceChildren(...launches.slice().reverse().map((l) => el("div", { class: "panel launch", "data-launch": l.number },
      el("b", { text: l.command }), " · ",
      el("span", { class: "launch-state", text: l.running ? "running" : "ended (exit " + l.exit_status + ")" }),
      l.run_id ? el("a", { class: "launch-run", href: "#/run/" + l.run_id, text: " run " + l.run_id }) : null,
      l.running ? el("button", { class: "launch-stop", text: "stop", onclick: async () => {
        try { await api("/api/launches/" + l.number + "/stop", {}); } catch (e) { status(e.message, true); }
      } }) : null,
      el("pre", { class: "launch-log", text: l.log }))));
  };
  const timer = setInterval(draw, 1000);
  cleanup.push(() => clearInterval(timer));
  draw();
  return el("div", { class: "panel" }, el("h2", { text: "Start a run" }), mode, " ", task, " ", size, " ",
    model, " ", count, " ", go, list);
}

async function resumeHitl(id) {
  status("resuming " + id + "…");
  try {
    await api("/api/hitl", { resume: id });
    location.hash = "#/hitl/" + id;
  } catch (e) { status(e.message, true); }
}

// ---------------------------------------------------------------- a run

// Graphviz's SVG, parsed as SVG (not HTML) and stripped of anything active.
function safeSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = doc.documentElement;
  if (svg.nodeName !== "svg") return el("p", { class: "error", text: "the graph could not be drawn" });
  for (const bad of svg.querySelectorAll("script, foreignObject, a")) bad.remove();
  for (const node of svg.querySelectorAll("*"))
    for (const a of [...node.attributes])
      if (/^on/i.test(a.name) || /href$/i.test(a.name)) node.removeAttribute(a.name);
  return document.importNode(svg, true);
}

async function showRun(id, nodeWanted) {
  main.replaceChildren(el("h1", { id: "run-title", text: "Run " + id }));
  const summary = el("div", { id: "run-summary" });
  const graph = el("div", { id: "graph" });
  const nodes = el("div", { id: "nodes" });
  const detail = el("div", { id: "node-detail" });
  const calls = el("div", { id: "calls" });
  main.append(summary, el("div", { class: "columns" }, el("div", {}, graph, nodes), el("div", {}, detail)), calls);
  let view = null, selected = nodeWanted, shownSvg = null;

  const select = (nodeId) => {
    selected = nodeId;
    const n = view && view.nodes.find((x) => x.id === nodeId);
    for (const tr of nodes.querySelectorAll("tr[data-node]"))
      tr.classList.toggle("selected", Number(tr.dataset.node) === nodeId);
    detail.replaceChildren(n ? nodeDetail(n, view) : el("p", { class: "muted", text: "click a node" }));
  };

  const drawGraph = async () => {
    try {
      const text = await api("/api/runs/" + id + "/graph.svg");
      // The stream reports a change on connecting and for rows the graph does not show: the
      // graph is redrawn only when it differs, so a node is not replaced under the pointer.
      if (text === shownSvg) return;
      shownSvg = text;
      const svg = safeSvg(text);
      graph.replaceChildren(svg);
      for (const g of svg.querySelectorAll("g.node")) {
        const title = g.querySelector("title");
        const nodeId = title ? Number(title.textContent.replace(/^n/, "")) : NaN;
        if (!Number.isNaN(nodeId)) { g.dataset.node = nodeId; g.onclick = () => select(nodeId); }
      }
    } catch (e) { shownSvg = null; graph.replaceChildren(el("p", { class: "error", text: e.message })); }
  };

  const load = async () => {
    try {
      view = await api("/api/runs/" + id);
    } catch (e) { status(e.message, true); return; }
    const r = view.run;
    summary.replaceChildren(el("p", {},
      el("b", { text: r.mode + " · " + r.task + " (" + r.size + ")" }), " · state ",
      el("span", { id: "run-state", text: r.state }), r.stop_reason ? " · " + r.stop_reason : "",
      " · " + view.nodes.length + " node(s) · best ", el("span", { id: "run-best", text:
        fmtRatio(r.best_node !== null ? (view.nodes.find((n) => n.id === r.best_node) || {}).speedup : null) }),
      r.mode === "hitl" ? el("button", { text: "open hitl session", onclick: () => resumeHitl(id) }) : null));
    const head = el("tr", {}, ...["node", "iter", "strategy", "state", "verdict", "speedup", "ms"]
      .map((h) => el("th", { text: h })));
    nodes.replaceChildren(el("h2", { text: "Nodes" }), el("table", { id: "node-table" }, head,
      ...view.nodes.map((n) => el("tr", { class: "clickable", "data-node": n.id, onclick: () => select(n.id) },
        el("td", { text: String(n.id) }), el("td", { text: String(n.iteration) }),
        el("td", { text: n.strategy }), el("td", { text: n.state }),
        el("td", { class: verdictClass(n.verdict), text: n.verdict || "" }),
        el("td", { class: "num", text: fmtRatio(n.speedup) }), el("td", { class: "num", text: fmtMs(n.median_ms) })))));
    calls.replaceChildren(callsTable(view.calls));
    if (selected !== undefined) select(selected);
    status(r.state === "running" ? "live: updates as the run goes on" : "");
  };

  await Promise.all([load(), drawGraph()]);
  // Live: the server says when the run's rows change; the page then reads them again.
  // graph.dataset.updates counts the changes taken in, for whoever waits on the page to catch up.
  const events = new EventSource("/api/runs/" + id + "/events");
  let pending = null, updates = 0;
  events.addEventListener("change", () => {
    if (pending) return;
    pending = setTimeout(async () => {
      pending = null;
      await Promise.all([load(), drawGraph()]);
      graph.dataset.updates = String(++updates);
    }, 150);
  });
  // The run ended: the server closes the stream (EventSource would reconnect, so close it here)
  // and the page reads the final state once more.
  events.addEventListener("end", async () => {
    events.close();
    await Promise.all([load(), drawGraph()]);
    graph.dataset.ended = "1";
  });
  cleanup.push(() => events.close(), () => pending && clearTimeout(pending));
}

function interval(d) {
  if (!d || !d.ratio) return "—";
  const ci = d.ratio.ci95 || [];
  return fmtRatio(d.ratio.median) + (ci.length === 2 ? " [" + ci[0].toFixed(3) + ", " + ci[1].toFixed(3) + "]" : "") +
    (d.winner ? " · " + d.winner : "") + (d.busy ? " · busy" : "");
}

function nodeDetail(n, view) {
  const parts = [el("h2", { text: "Node " + n.id + (n.parent !== null ? " (parent " + n.parent + ")" : "") })];
  const dl = el("dl", { id: "evaluation" });
  const row = (k, v, cls) => dl.append(el("dt", { text: k }), el("dd", { class: cls || "", text: v }));
  row("strategy", n.strategy_text || n.strategy);
  row("state", n.state);
  row("verdict", n.verdict || "—", verdictClass(n.verdict));
  if (n.reason) row("reason", n.reason);
  row("time", fmtMs(n.median_ms) + " (baseline " + fmtMs(n.baseline_ms) + ")");
  row("speedup", fmtRatio(n.speedup));
  if (n.decision) row("vs best so far", interval(n.decision));
  if (n.vs_parent) row("vs parent", interval(n.vs_parent));
  if (n.vs_best) row("vs best", interval(n.vs_best));
  if (n.roofline !== null) row("roofline", (100 * n.roofline).toFixed(1) + "%" + (n.roofline_reason ? " — " + n.roofline_reason : ""));
  row("tokens", n.tokens_in + " in / " + n.tokens_out + " out · " + fmtUsd(n.cost_usd));
  parts.push(el("div", { class: "panel" }, dl));
  if (n.plan) parts.push(el("h2", { text: "Plan" }), el("pre", { class: "plan", text: n.plan }));
  if (n.source) parts.push(el("h2", { text: "Kernel" }), code(n.source));
  if (n.diff) parts.push(el("h2", { text: "Diff to parent" }), diffBlock(n.diff));
  if (n.profile) parts.push(el("h2", { text: "Profile" }), el("pre", { text: n.profile }));
  if (n.diagnosis) parts.push(el("h2", { text: "Profiler's diagnosis" }), el("pre", { text: n.diagnosis }));
  if (n.extra && Object.keys(n.extra).length)
    parts.push(el("h2", { text: "Details" }), el("pre", { text: JSON.stringify(n.extra, null, 2) }));
  return el("div", {}, ...parts);
}

function callsTable(calls) {
  if (!calls.length) return el("p", { class: "muted", text: "no model calls" });
  let tokens = 0, cost = 0;
  for (const c of calls) { tokens += c.input_tokens + c.output_tokens; cost += c.cost_usd; }
  return el("div", {}, el("h2", { text: "Model calls: " + calls.length + " · " + tokens + " tokens · " + fmtUsd(cost) }),
    el("table", { id: "call-table" }, el("tr", {}, ...["#", "role", "model", "in", "out", "ms", "cost", ""]
      .map((h) => el("th", { text: h }))),
    ...calls.map((c) => el("tr", {}, el("td", { text: String(c.call) }), el("td", { text: c.role }),
      el("td", { text: c.model }), el("td", { class: "num", text: (c.tokens_estimated ? "~" : "") + c.input_tokens }),
      el("td", { class: "num", text: String(c.output_tokens) }), el("td", { class: "num", text: c.latency_ms.toFixed(0) }),
      el("td", { class: "num", text: fmtUsd(c.cost_usd) }), el("td", { class: "error", text: c.error || (c.cached ? "cached" : "") })))));
}

// ---------------------------------------------------------------- hitl

const hitlCommands = ["plan", "implement", "compile", "check", "time", "profile", "tune", "fix",
  "status", "history", "cost", "diff", "edit", "edit plan"];

async function showHitl(id) {
  main.replaceChildren(el("h1", {}, "hitl session ", el("a", { href: "#/run/" + id, text: id })));
  const gate = el("div", { id: "gate" });
  const transcript = el("pre", { id: "transcript" });
  const commands = el("div", { id: "commands", class: "panel" });
  const stateView = el("div", { id: "hitl-state" });
  main.append(el("div", { class: "columns" }, el("div", {}, gate, commands, transcript), el("div", {}, stateView)));
  let offset = 0, gateShown = null, ended = false, events = null;

  const send = async (line) => {
    try {
      await api("/api/hitl/" + id + "/command", { line });
      main.dataset.busy = "1";  // accepted: running or queued until a snapshot says otherwise
      status("");
    } catch (e) { status(e.message, true); }
  };
  const input = el("input", { type: "text", id: "command-line", size: 50, placeholder: "a command (plan HINT, ask TEXT, accept FILE, …)" });
  input.onkeydown = (ev) => { if (ev.key === "Enter" && input.value.trim()) { send(input.value.trim()); input.value = ""; } };
  commands.append(...hitlCommands.map((c) => el("button", { "data-command": c, text: c, onclick: () => send(c) })),
    el("br"), input, el("button", { id: "command-send", text: "run", onclick: () => { if (input.value.trim()) { send(input.value.trim()); input.value = ""; } } }),
    el("button", { id: "quit", text: "quit", onclick: () => send("quit") }));

  const answer = async (g, text, cancel) => {
    try { await api("/api/hitl/" + id + "/answer", { gate: g.id, text, cancel: !!cancel }); status(""); }
    catch (e) { status(e.message, true); }
  };
  const drawGate = (g) => {
    if (!g) { gate.replaceChildren(); gateShown = null; return; }
    if (gateShown === g.id) return;
    gateShown = g.id;
    const box = el("div", { class: "panel gate", "data-gate": g.id }, el("b", { text: g.prompt }), el("br"));
    if (g.kind === "edit") {
      const area = el("textarea", { id: "editor", spellcheck: "false" });
      area.value = g.text;
      box.append(area, el("button", { id: "editor-save", text: "save", onclick: () => answer(g, area.value) }),
        el("button", { id: "editor-cancel", text: "cancel", onclick: () => answer(g, "", true) }));
    } else if (/approve/.test(g.prompt)) {
      const reason = el("input", { type: "text", id: "reject-reason", size: 40, placeholder: "reason to reject" });
      box.append(el("button", { id: "approve", text: "approve", onclick: () => answer(g, "a") }),
        el("button", { id: "edit-plan", text: "edit", onclick: () => answer(g, "e") }), reason,
        el("button", { id: "reject", text: "reject", onclick: () => answer(g, "r " + reason.value) }));
    } else if (/\[y\/n\]/.test(g.prompt)) {
      box.append(el("button", { id: "keep", text: "keep", onclick: () => answer(g, "y") }),
        el("button", { id: "drop", text: "drop", onclick: () => answer(g, "n") }));
    } else {
      const text = el("input", { type: "text", id: "gate-answer", size: 40 });
      box.append(text, el("button", { id: "gate-send", text: "answer", onclick: () => answer(g, text.value) }));
    }
    gate.replaceChildren(box);
  };
  const drawState = (s, running) => {
    const cur = (s.versions || []).find((v) => v.number === s.current);
    const parts = [el("h2", { text: "State" }), el("p", { id: "hitl-summary" },
      "kernel v" + s.current + (cur ? " (" + cur.origin + ")" : ""), " · plan ", s.plan ? "approved" : "none",
      " · best ", s.best_version ? "v" + s.best_version + " " + fmtRatio(s.best && s.best.speedup ? s.best.speedup.median : null) : "—",
      running ? el("span", { id: "running", text: " · running: " + running }) : null)];
    if (s.plan) parts.push(el("h2", { text: "Plan" }), el("pre", { id: "hitl-plan", text: s.plan }));
    if (cur) {
      const k = code(cur.source);
      k.id = "hitl-kernel";
      parts.push(el("h2", { text: "Kernel v" + cur.number }), k);
    }
    if ((s.versions || []).length) parts.push(el("h2", { text: "Versions" }), el("ul", {},
      ...s.versions.map((v) => el("li", { text: "v" + v.number + " " + v.origin }))));
    stateView.replaceChildren(...parts);
  };
  // One read at a time: events that arrive meanwhile ask for one more read after it.
  let reading = false, again = false;
  const refresh = async () => {
    if (reading) { again = true; return; }
    reading = true;
    try {
      do { again = false; await readSnapshot(); } while (again);
    } finally { reading = false; }
  };
  const readSnapshot = async () => {
    let snap;
    try { snap = await api("/api/hitl/" + id + "?since=" + offset); } catch (e) { status(e.message, true); return; }
    if (snap.text) transcript.appendChild(kforgeHighlight.diff(snap.text));
    offset = snap.offset;
    transcript.scrollTop = transcript.scrollHeight;
    drawGate(snap.gate);
    drawState(snap.state, snap.running);
    ended = snap.ended;
    for (const b of commands.querySelectorAll("button")) b.disabled = ended || !!snap.running || !!snap.gate;
    main.dataset.busy = snap.running ? "1" : "0";
    main.dataset.ended = ended ? "1" : "0";
    if (ended && events) events.close();
    if (ended) status("session ended: resume it from the sessions page or with kforge hitl --resume " + id);
  };
  await refresh();
  if (!ended) {
    events = new EventSource("/api/hitl/" + id + "/events");
    events.addEventListener("change", refresh);
  }
  cleanup.push(() => events && events.close());
}

// ---------------------------------------------------------------- suite

const svgNs = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(svgNs, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Speedups per task as horizontal bars with their 95% intervals; a line at 1x (the baseline).
// series: [{name, colour, tasks: {id: {speedup, low, high, verdict}}}].
function speedupPlot(series) {
  const ids = [...new Set(series.flatMap((s) => Object.keys(s.tasks)))].sort();
  const rowH = 8 + 12 * series.length, left = 230, width = 520, top = 24;
  let max = 1;
  for (const s of series) for (const t of Object.values(s.tasks))
    max = Math.max(max, t.high || 0, t.speedup || 0);
  max *= 1.1;
  const x = (v) => left + (v / max) * width;
  const svg = svgEl("svg", { id: "speedup-plot", width: left + width + 80, height: top + ids.length * rowH + 10 });
  series.forEach((s, i) => {
    svg.append(svgEl("rect", { x: left + i * 90, y: 4, width: 10, height: 10, fill: s.colour }),
      svgEl("text", { x: left + i * 90 + 14, y: 13, "font-size": 11 }, s.name));
  });
  ids.forEach((id, r) => {
    const y0 = top + r * rowH;
    svg.append(svgEl("text", { x: left - 6, y: y0 + rowH / 2 + 4, "text-anchor": "end", "font-size": 11, class: "task-label" }, id));
    series.forEach((s, i) => {
      const t = s.tasks[id];
      if (!t) return;
      const y = y0 + 4 + i * 12;
      if (t.busy && t.verdict === "correct") {  // a busy reading is no result: no bar, said why
        svg.append(svgEl("text", { x: left + 4, y: y + 9, "font-size": 10, fill: "#8a6d00", class: "busy" },
          "busy: no figure (timed on a busy machine; bench again when quiet)"));
        return;
      }
      if (t.speedup === null || t.speedup === undefined) {
        svg.append(svgEl("text", { x: left + 4, y: y + 9, "font-size": 10, fill: "#b3261e" }, t.verdict || "not evaluated"));
        return;
      }
      svg.append(svgEl("rect", { class: "bar", "data-task": id, "data-series": s.name, x: left, y, width: Math.max(1, x(t.speedup) - left), height: 10, fill: s.colour }));
      if (t.low !== null && t.high !== null && t.low !== undefined)
        svg.append(svgEl("line", { x1: x(t.low), x2: x(t.high), y1: y + 5, y2: y + 5, stroke: "#222", "stroke-width": 1.5 }));
      svg.append(svgEl("text", { x: x(Math.max(t.speedup, t.high || 0)) + 4, y: y + 9, "font-size": 10 }, t.speedup.toFixed(2) + "x"));
    });
  });
  svg.append(svgEl("line", { x1: x(1), x2: x(1), y1: top - 4, y2: top + ids.length * rowH, stroke: "#b3261e", "stroke-dasharray": "4 3" }),
    svgEl("text", { x: x(1) + 3, y: top - 6, "font-size": 10, fill: "#b3261e" }, "1x baseline"));
  return svg;
}

// One task's speedup across the kept bench results, oldest first: a point per result with its
// 95% interval, a line through the figures, 1x dashed. points: /api/results/history's.
function historyPlot(points) {
  const left = 50, width = 560, top = 16, height = 180;
  const shown = points.filter((p) => p.speedup !== null && p.speedup !== undefined);
  let max = 1;
  for (const p of shown) max = Math.max(max, p.speedup_ci95[1] || 0, p.speedup);
  max *= 1.1;
  const step = points.length > 1 ? width / (points.length - 1) : 0;
  const x = (i) => left + (points.length > 1 ? i * step : width / 2);
  const y = (v) => top + height - (v / max) * height;
  const svg = svgEl("svg", { id: "history-svg", width: left + width + 40, height: top + height + 40 });
  svg.append(svgEl("line", { x1: left, x2: left + width, y1: y(1), y2: y(1), stroke: "#b3261e", "stroke-dasharray": "4 3" }),
    svgEl("text", { x: 4, y: y(1) + 4, "font-size": 10, fill: "#b3261e" }, "1x"),
    svgEl("text", { x: 4, y: top + 4, "font-size": 10 }, max.toFixed(2) + "x"));
  let path = "";
  points.forEach((p, i) => {
    svg.append(svgEl("text", { x: x(i), y: top + height + 14, "font-size": 10, "text-anchor": "middle" }, "#" + p.result),
      svgEl("text", { x: x(i), y: top + height + 26, "font-size": 9, "text-anchor": "middle", class: "muted" }, (p.when || "").slice(0, 10)));
    if (p.speedup === null || p.speedup === undefined) {  // busy or not correct: said, not drawn
      svg.append(svgEl("text", { x: x(i), y: y(1) - 6, "font-size": 9, "text-anchor": "middle", fill: "#8a6d00", class: "no-figure" },
        p.busy && p.verdict === "correct" ? "busy" : (p.verdict || p.status || "—")));
      return;
    }
    const [lo, hi] = p.speedup_ci95 || [null, null];
    if (lo !== null && hi !== null)
      svg.append(svgEl("line", { x1: x(i), x2: x(i), y1: y(lo), y2: y(hi), stroke: "#222", "stroke-width": 1.5 }));
    svg.append(svgEl("circle", { class: "point", "data-result": p.result, cx: x(i), cy: y(p.speedup), r: 4, fill: "#4a7fd4" }),
      svgEl("text", { x: x(i) + 6, y: y(p.speedup) - 6, "font-size": 10 }, p.speedup.toFixed(2) + "x"));
    path += (path ? " L " : "M ") + x(i) + " " + y(p.speedup);
  });
  if (path) svg.append(svgEl("path", { d: path, fill: "none", stroke: "#4a7fd4", "stroke-width": 1 }));
  return svg;
}

async function showSuite() {
  main.replaceChildren(el("h1", { text: "Suite results" }));
  const kept = el("div", { id: "kept-results" });
  const taskPick = el("select", { id: "history-task" });
  const history = el("div", { id: "history-plot" });
  const fileA = el("input", { type: "file", id: "bench-a", accept: ".json,application/json" });
  const fileB = el("input", { type: "file", id: "bench-b", accept: ".json,application/json" });
  const plot = el("div", { id: "suite-plot" });
  const table = el("div", { id: "suite-compare" });
  main.append(el("h2", { text: "Kept bench results" }), kept,
    el("h2", { text: "A task's speedup over time" }), el("p", {}, "task ", taskPick), history,
    el("h2", { text: "Compare" }),
    el("p", { class: "muted", text: "Pick A and B above, or the JSON of `kforge bench --json > result.json` here (read by this page only)." }),
    el("p", {}, "A ", fileA, " B ", fileB), plot, table);
  const chosen = { a: null, b: null };  // {name, json}: a kept result or a file
  const read = (input) => new Promise((resolve, reject) => {
    const f = input.files[0];
    if (!f) return resolve(null);
    const r = new FileReader();
    r.onload = () => { try { resolve(JSON.parse(r.result)); } catch (e) { reject(new Error(f.name + ": not JSON")); } };
    r.onerror = () => reject(new Error(f.name + ": cannot be read"));
    r.readAsText(f);
  });
  const byTask = (list) => Object.fromEntries(list.map((t) => [t.task, t]));
  const draw = async () => {
    try {
      const series = [];
      if (chosen.a) series.push({ name: chosen.a.name, colour: "#4a7fd4", tasks: byTask((await api("/api/bench/speedups", { result: chosen.a.json })).tasks) });
      if (chosen.b) series.push({ name: chosen.b.name, colour: "#e0892b", tasks: byTask((await api("/api/bench/speedups", { result: chosen.b.json })).tasks) });
      plot.replaceChildren(series.length ? speedupPlot(series) : el("span"));
      if (chosen.a && chosen.b) {
        const c = await api("/api/bench/compare", { a: chosen.a.json, b: chosen.b.json });
        const s = c.summary;
        table.replaceChildren(el("h2", { text: chosen.b.name + " against " + chosen.a.name }), el("p", { id: "compare-summary", text:
          s.compared + (s.compared === 1 ? " task" : " tasks") + " correct in both: B faster on " + s.b_faster + ", slower on " + s.b_slower +
          ", within noise on " + s.within_noise + "; geomean B/A " + fmtRatio(s.geomean_ratio) +
          (s.busy ? "; " + s.busy + (s.busy === 1 ? " task" : " tasks") + " not compared (timed busy: no figure)" : "") }),
        el("table", { id: "compare-table" }, el("tr", {}, ...["task", "A", "B", "B/A", "outcome"].map((h) => el("th", { text: h }))),
          ...c.tasks.map((t) => el("tr", { "data-task": t.task }, el("td", { text: t.task }),
            el("td", { class: "num", text: t.a_busy ? "busy" : fmtRatio(t.a) }),
            el("td", { class: "num", text: t.b_busy ? "busy" : fmtRatio(t.b) }),
            el("td", { class: "num", text: fmtRatio(t.ratio) }),
            el("td", { class: t.outcome === "B faster" ? "verdict-correct" : t.outcome === "B slower" ? "verdict-bad" : "", text: t.outcome })))));
      } else table.replaceChildren();
      status("");
    } catch (e) { status(e.message, true); }
  };
  const pickFile = (side, input) => async () => {
    try {
      const json = await read(input);
      chosen[side] = json ? { name: side.toUpperCase(), json } : null;
      await draw();
    } catch (e) { status(e.message, true); }
  };
  fileA.onchange = pickFile("a", fileA);
  fileB.onchange = pickFile("b", fileB);
  const pickKept = async (side, id) => {
    chosen[side] = { name: "#" + id, json: await api("/api/results/" + id) };
    for (const input of kept.querySelectorAll("input[name='" + side + "']")) input.checked = input.value === String(id);
    await draw();
  };
  const drawHistory = async () => {
    if (!taskPick.value) return history.replaceChildren();
    const h = await api("/api/results/history/" + encodeURIComponent(taskPick.value));
    history.replaceChildren(h.points.length ? historyPlot(h.points) : el("p", { class: "muted", text: "no kept result has this task" }));
  };
  taskPick.onchange = () => drawHistory().catch((e) => status(e.message, true));

  // The kept results: a table with A and B choices; the newest two are compared from the start, and
  // the newest's first task is plotted over time.
  let sets = [];
  try { sets = await api("/api/results?command=bench"); } catch (e) { return status(e.message, true); }
  if (!sets.length) {
    kept.replaceChildren(el("p", { class: "muted", text: "No bench results kept yet: `kforge bench` keeps every run here." }));
    return;
  }
  kept.replaceChildren(el("table", { id: "kept-table" },
    el("tr", {}, ...["A", "B", "result", "when", "tasks", "correct", "geomean", "state", "machine", "commit"].map((h) => el("th", { text: h }))),
    ...sets.map((s) => el("tr", { "data-result": String(s.id) },
      el("td", {}, el("input", { type: "radio", name: "a", value: String(s.id), onchange: () => pickKept("a", s.id).catch((e) => status(e.message, true)) })),
      el("td", {}, el("input", { type: "radio", name: "b", value: String(s.id), onchange: () => pickKept("b", s.id).catch((e) => status(e.message, true)) })),
      el("td", { class: "num", text: "#" + s.id }), el("td", { text: s.created_at }),
      el("td", { class: "num", text: String(s.summary.rows) }),
      el("td", { class: "num", text: s.summary.correct + "/" + s.summary.rows }),
      el("td", { class: "num", text: fmtRatio(s.summary.geomean_speedup) }),
      el("td", { text: s.state }),
      el("td", { text: s.machine.hostname + " " + s.machine.isa + " " + s.machine.threads + "t" }),
      el("td", { text: (s.git_sha || "").slice(0, 10) })))));
  const tasks = [...new Set(sets.flatMap((s) => s.task_ids))].sort();
  taskPick.replaceChildren(...tasks.map((t) => el("option", { value: t, text: t })));
  if (sets[0].task_ids.length) taskPick.value = sets[0].task_ids[0];
  try {
    await drawHistory();
    if (sets.length > 1) await pickKept("a", sets[1].id);
    await pickKept("b", sets[0].id);
  } catch (e) { status(e.message, true); }
}

// ---------------------------------------------------------------- routes

async function route() {
  for (const f of cleanup) f();
  cleanup = [];
  status("");
  const parts = location.hash.replace(/^#\/?/, "").split("/");
  if (parts[0] === "run" && parts[1]) return showRun(decodeURIComponent(parts[1]), parts[2] ? Number(parts[2]) : undefined);
  if (parts[0] === "hitl" && parts[1]) return showHitl(decodeURIComponent(parts[1]));
  if (parts[0] === "suite") return showSuite();
  return showSessions();
}
window.addEventListener("hashchange", route);
route();

/* The campus report: draws the scorecard, charts, timeline, transcripts and map from the
   JSON embedded in this page. No library and no network: everything is drawn here.
   Transcripts are rendered only when a task is opened; the timeline shows one week at a time. */
"use strict";
(function () {
  let DATA;
  try {
    DATA = JSON.parse(document.getElementById("report-data").textContent);
  } catch (error) {
    document.getElementById("app").textContent = "This report's data cannot be read (" + error.message + "); write the report again with 'campus report', after 'campus verify' on its runs.";
    throw error;
  }
  const RUNS = DATA.runs;
  const VS = RUNS.length > 1;
  const COMPARISON = DATA.comparison;
  const DIVERGENCE = COMPARISON ? COMPARISON.divergence : null;
  const SIDES = ["a", "b"];
  const DAY = 1440;
  const DAY_NAMES = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
  const OUTCOME_TEXT = { success: "\u2713 success", failure: "\u2717 failure", unscored: "\u25cb unscored", running: "\u2026 unfinished", missing: "\u2014 not reached" };
  const ZONE_COLOURS = ["#0f766e", "#7c3aed", "#b45309", "#be185d", "#2563eb", "#4d7c0f", "#9f1239", "#0e7490", "#6d28d9", "#a16207"];
  const SVG_NS = "http://www.w3.org/2000/svg";

  // ------------------------------------------------------------ time and small helpers

  const pad = (n) => String(n).padStart(2, "0");
  const clock = (t) => pad(Math.floor((t % DAY) / 60)) + ":" + pad(t % 60);
  const dayOf = (t) => Math.floor(t / DAY);
  const dateLabel = (day) => "Week " + Math.floor(day / 7) + ", " + DAY_NAMES[day % 7];
  const label = (t) => dateLabel(dayOf(t)) + " " + clock(t);
  const pct = (x) => (x === null || x === undefined ? "n/a" : (100 * x).toFixed(1) + "%");
  const usd = (x) => (x === null || x === undefined ? "unknown" : "$" + (x < 1 ? x.toFixed(4) : x.toFixed(2)));

  /* Whether the agent reported what its replies spent (a model does; a scripted agent does not). */
  const reported = (usage) => Boolean(usage && (usage[1] || usage[2] || usage[3]));
  const FOLD_CHARACTERS = 600;

  /* [replies, prompt tokens, completion tokens, latency s, cost USD or null] and the run's [input, output] price. */
  function usageText(usage, price) {
    const [replies, prompt, completion, latency, cost] = usage;
    return replies + " model repl" + (replies === 1 ? "y" : "ies") + " \u00b7 " + prompt.toLocaleString("en") + " prompt + " +
      completion.toLocaleString("en") + " completion tokens \u00b7 " + latency.toFixed(1) + " s \u00b7 cost " + usd(cost) +
      (price ? " (at $" + price[0] + " / $" + price[1] + " per 1M tokens)" : " (no price for this model)");
  }

  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "style" && typeof value === "object") {
        for (const [name, css] of Object.entries(value)) {
          if (name.startsWith("--")) node.style.setProperty(name, css);
          else node.style[name] = css;
        }
      }
      else node.setAttribute(key, value === true ? "" : value);
    }
    append(node, children);
    return node;
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function titled(node, text) {
    node.append(svg("title", {}, text));
    return node;
  }

  // ------------------------------------------------------------ the model

  const tasks = DATA.tasks.map((row, index) => ({
    id: row[0], scenario: row[1], phase: row[2], release: row[3], flags: row[4], index,
    day: dayOf(row[3]), week: Math.floor(dayOf(row[3]) / 7),
  }));
  const taskById = new Map(tasks.map((task) => [task.id, task]));
  const scenarios = [...new Set(tasks.map((task) => task.scenario))].sort();
  const flips = new Set(COMPARISON ? COMPARISON.flips.map((flip) => flip.task_id) : []);
  const buildings = new Map(DATA.map.buildings.map((b) => [b[0], { id: b[0], name: b[1], zone: b[2], type: b[3], x: b[4], y: b[5] }]));
  const nameOf = (id) => (buildings.has(id) ? buildings.get(id).name : id);

  function spanOf(run, taskId) {
    const s = run.spans[taskId];
    if (!s) return { outcome: "missing" };
    return { start: s[0], end: s[1], t0: s[2], t1: s[3], outcome: s[4] || "running", turns: s[5], reason: s[6], detail: s[7], marks: s[8] || {} };
  }

  function groupBy(items, key) {
    const groups = new Map();
    for (const item of items) {
      const k = key(item);
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(item);
    }
    return groups;
  }

  const tasksByWeek = groupBy(tasks, (task) => task.week);
  const firstWeek = tasks.length ? tasks[0].week : 0;
  const lastWeek = tasks.length ? Math.max(...tasks.map((task) => task.week)) : 0;
  const weeks = [];
  for (let w = firstWeek; w <= lastWeek; w++) weeks.push(w);
  const walksByDay = RUNS.map((run) => groupBy(run.walks.map((w) => ({ seq: w[0], task: w[1], depart: w[2], arrive: w[3], path: w[4] })), (w) => dayOf(w.depart)));
  const betweenByDay = RUNS.map((run) => groupBy(run.between, (entry) => dayOf(entry[1])));

  const state = { week: firstWeek, day: tasks.length ? tasks[0].day : 0, task: null, open: new Set(), scenario: "", outcome: "", query: "", mapMode: "day" };

  // ------------------------------------------------------------ header and comparison banner

  function header() {
    const cards = RUNS.map((run, i) => h("div", { class: "run-card " + SIDES[i] },
      h("span", { class: "name" }, (VS ? SIDES[i].toUpperCase() + ": " : "") + run.id),
      " \u00b7 agent ", run.agent, " \u00b7 seed ", run.seed,
      run.parent ? " \u00b7 forked from " + run.parent + " at seq " + run.fork_seq : "",
      " \u00b7 ", run.events.toLocaleString("en"), " events \u00b7 ", run.finished ? "finished" : "stopped before the end",
      reported(run.usage) ? h("div", { class: "usage" }, usageText(run.usage, run.price)) : null,
      h("div", { class: "muted mono" }, "final hash " + run.final_hash.slice(0, 16) + " \u00b7 " + run.world + " \u00b7 " + run.term)));
    return h("header", { class: "top" },
      h("h1", {}, VS ? "Campus report: " + RUNS[0].id + " vs " + RUNS[1].id : "Campus report: " + RUNS[0].id),
      h("div", { class: "muted" }, tasks.length + " tasks on the timeline; click a task for its transcript, a day for its walks."),
      h("div", { class: "runs" }, cards));
  }

  function banner() {
    if (!VS) return null;
    if (!DIVERGENCE) {
      return h("section", { class: "banner same", id: "divergence-banner" },
        COMPARISON.identical ? "The two runs are identical, event for event." : "No divergence found.");
    }
    const d = DIVERGENCE;
    const sideText = (side) => {
      const ev = d[side];
      return ev ? ev.kind + ": " + JSON.stringify(ev.event) : "(no event: the run ended here)";
    };
    return h("section", { class: "banner", id: "divergence-banner" },
      h("span", { class: "divergence-mark", "data-seq": d.seq }, "First divergence \u00b7 seq " + d.seq),
      " at ", d.time, d.task ? [" in task ", h("b", {}, d.task)] : "",
      " \u00b7 ", COMPARISON.flips.length, " task outcome(s) flipped ",
      h("button", { onclick: () => goToDivergence(true) }, "Show in the timeline"),
      stateDiffLine(),
      h("div", { class: "side" },
        h("b", { style: { color: "var(--run-a)" } }, "A " + RUNS[0].id), h("pre", {}, sideText("a")),
        h("b", { style: { color: "var(--run-b)" } }, "B " + RUNS[1].id), h("pre", {}, sideText("b"))));
  }

  function stateDiffLine() {
    const parts = Object.entries(COMPARISON.state_diff)
      .filter(([, c]) => c.added.count + c.removed.count + c.changed.count > 0)
      .map(([domain, c]) => h("span", { title: ["added", "removed", "changed"].map((k) => k + ": " + c[k].keys.join(", ")).join("\n") },
        domain + " +" + c.added.count + " \u2212" + c.removed.count + " ~" + c.changed.count));
    return h("div", { class: "muted state-diff" }, "Final state, B against A (records added, removed, changed): ",
      parts.length ? parts.map((part, i) => [i ? "; " : "", part]) : "the same");
  }

  /* Every task whose outcome differs between A and B, for the whole term. */
  function flipsPanel() {
    if (!VS) return null;
    const list = COMPARISON.flips;
    const open = (taskId) => (e) => {
      e.preventDefault();
      openTask(taskId);
      document.getElementById("timeline").scrollIntoView({ block: "start" });
    };
    const mark = (outcome) => h("span", { class: "outcome-cell " + (outcome || "missing") }, (OUTCOME_TEXT[outcome || "missing"] || String(outcome)).split(" ")[0]);
    const chips = list.map((flip) => {
      const task = taskById.get(flip.task_id);
      return h("a", { class: "flip-chip", href: "#task=" + encodeURIComponent(flip.task_id), onclick: open(flip.task_id),
        "data-task": flip.task_id, "data-a": flip.a || "missing", "data-b": flip.b || "missing",
        title: (task ? task.scenario.replace(/_/g, " ") + ", released " + label(task.release) + ": " : "") +
          "A " + (flip.a || "not reached") + ", B " + (flip.b || "not reached") },
        flip.task_id, " ", mark(flip.a), "\u2192", mark(flip.b));
    });
    return h("section", { class: "panel flips", id: "flips" },
      h("h2", {}, "Flipped tasks: " + list.length + " of " + tasks.length + (list.length ? " (A \u2192 B; click one to open both transcripts)" : "")),
      list.length ? h("div", { class: "flip-list" }, chips) : h("div", { class: "muted" }, "No task's outcome differs between A and B."));
  }

  /* Per tool: calls, failed calls and the failure rate, for each run; the most failures first. */
  function toolsPanel() {
    const stat = (run, name) => run.tools[name] || [0, 0];
    const names = [...new Set(RUNS.flatMap((run) => Object.keys(run.tools)))];
    const failures = (name) => RUNS.reduce((n, run) => n + stat(run, name)[1], 0);
    const calls = (name) => RUNS.reduce((n, run) => n + stat(run, name)[0], 0);
    names.sort((x, y) => failures(y) - failures(x) || calls(y) - calls(x) || (x < y ? -1 : 1));
    const side = (i) => (VS ? SIDES[i].toUpperCase() + " " : "");
    const head = h("tr", {}, h("th", {}, "tool"), RUNS.map((run, i) => [h("th", {}, side(i) + "calls"), h("th", {}, side(i) + "failed"), h("th", {}, side(i) + "rate")]));
    const breakable = (name) => name.split(".").map((part, i) => (i ? [".", h("wbr"), part] : part));
    const rows = names.map((name) => h("tr", { "data-tool": name }, h("td", { class: "mono" }, breakable(name)), RUNS.map((run) => {
      const [n, failed] = stat(run, name);
      return [h("td", {}, n), h("td", { class: failed ? "delta-down" : "" }, failed), h("td", {}, n ? pct(failed / n) : "n/a")];
    })));
    return h("div", { class: "panel" + (VS ? " wide" : ""), id: "tool-table" }, h("h2", {}, "Tool calls and failures"),
      names.length ? h("table", { class: "score grid" }, h("thead", {}, head), h("tbody", {}, rows)) : h("div", { class: "muted" }, "No tool was called."));
  }

  // ------------------------------------------------------------ scorecard and charts

  const METRICS = [
    ["StuGPA", (c) => c.stugpa.total, (v) => v.toFixed(2)],
    ["LTRR (long-term memory)", (c) => c.ltrr, pct],
    ["PIS (self-motivated)", (c) => c.pis, pct],
    ["success, all scored tasks", (c) => c.total.success_rate, pct],
    ["tasks succeeded", (c) => c.total.succeeded, (v) => String(v)],
    ["average turns (successes)", (c) => c.avg_turns, (v) => (v === null ? "n/a" : v.toFixed(2))],
  ];

  function scoreTable() {
    const cards = RUNS.map((run) => run.scorecard);
    const head = h("tr", {}, h("th", {}, "metric"), RUNS.map((run, i) => h("th", { style: { color: i ? "var(--run-b)" : "var(--run-a)" } }, VS ? SIDES[i].toUpperCase() : run.id)), VS ? h("th", {}, "B \u2212 A") : null);
    const rows = METRICS.map(([name, get, fmt]) => {
      const values = cards.map(get);
      return h("tr", {}, h("td", {}, name), values.map((v) => h("td", {}, v === null ? "n/a" : fmt(v))), VS ? deltaCell(values[0], values[1], fmt === pct) : null);
    });
    const phases = Object.keys(cards[0].by_phase);
    const phaseRows = phases.map((phase) => {
      const values = cards.map((c) => (c.by_phase[phase] ? c.by_phase[phase].success_rate : null));
      return h("tr", {}, h("td", {}, "success, phase " + phase), values.map((v) => h("td", {}, pct(v))), VS ? deltaCell(values[0], values[1], true) : null);
    });
    return h("div", { class: "panel", id: "scorecard" }, h("h2", {}, "Scorecard"),
      h("table", { class: "score" }, h("thead", {}, head), h("tbody", {}, rows, phaseRows)), noiseLine());
  }

  function deltaCell(a, b, asRate) {
    if (a === null || b === null || a === undefined || b === undefined) return h("td", {}, "n/a");
    const delta = b - a;
    const text = asRate ? (delta >= 0 ? "+" : "") + (100 * delta).toFixed(1) + " pts" : (delta >= 0 ? "+" : "") + (Number.isInteger(delta) ? delta : delta.toFixed(2));
    return h("td", { class: delta > 0 ? "delta-up" : delta < 0 ? "delta-down" : "" }, text);
  }

  function noiseLine() {
    const noise = COMPARISON && COMPARISON.extra ? COMPARISON.extra.noise : null;
    if (!noise || typeof noise !== "object") return null;
    const verdict = noise.exceeds_noise === true ? "exceeds the noise" : noise.exceeds_noise === false ? "is within the noise" : "noise not judged";
    const p = typeof noise.p_value === "number" ? " (p = " + noise.p_value.toPrecision(3) + ")" : "";
    return h("div", { class: "noise muted" }, "The difference " + verdict + p + (noise.method ? ": " + noise.method : "") + ".");
  }

  function barChart(id, title, rows, maxValue, formatter) {
    const rowHeight = VS ? 30 : 20;
    const left = 130, width = 440, barWidth = width - left - 120;
    const chart = svg("svg", { viewBox: "0 0 " + width + " " + (rows.length * rowHeight + 10), role: "img", "aria-label": title });
    rows.forEach((row, r) => {
      const y = 5 + r * rowHeight;
      chart.append(svg("text", { x: left - 6, y: y + rowHeight / 2 + 4, "text-anchor": "end", "font-size": 11 }, row.label));
      row.values.forEach((value, i) => {
        const barY = y + 2 + i * ((rowHeight - 4) / row.values.length);
        const barH = (rowHeight - 6) / row.values.length;
        const w = value === null ? 0 : Math.max(1, (barWidth * value) / maxValue);
        chart.append(titled(svg("rect", { x: left, y: barY, width: w, height: barH, fill: i ? "var(--run-b)" : "var(--run-a)", rx: 2 }),
          (VS ? SIDES[i].toUpperCase() + " " : "") + row.label + ": " + formatter(value, row, i)));
        chart.append(svg("text", { x: left + w + 4, y: barY + barH - 1, "font-size": 10, fill: "#374151" }, (VS ? SIDES[i].toUpperCase() + " " : "") + formatter(value, row, i)));
      });
    });
    return h("div", { class: "panel", id }, h("h2", {}, title), chart);
  }

  // BEAM's ability vector: per ability for every run, then the first run's per distance bin.
  function memoryPanel() {
    const memories = RUNS.map((run) => run.memory);
    if (!memories.some((m) => m)) return null;
    const abilities = Object.keys((memories.find((m) => m) || {}).abilities);
    const runHeads = RUNS.map((run, i) => h("th", { style: { color: i ? "var(--run-b)" : "var(--run-a)" } }, VS ? SIDES[i].toUpperCase() : "all"));
    const distance = (b) => /^[<>\d]/.test(b);  // "no evidence" and "planted in the fork" are the same probes either way
    const binsOf = (m) => (m ? [...Object.keys(m.by_events).map((b) => ["by_events", b, distance(b) ? b + " events" : b]),
      ...Object.keys(m.by_days).filter(distance).map((b) => ["by_days", b, b])] : []);
    const bins = binsOf(memories[0]);
    const head = h("tr", {}, h("th", {}, "ability"), runHeads, bins.map(([, , name]) => h("th", { class: "bin" }, name)));
    const cell = (value) => h("td", { class: value === null || value === undefined ? "muted" : "" }, pct(value));
    const rows = abilities.map((ability) => h("tr", { "data-ability": ability }, h("td", {}, ability.replace(/_/g, " ")),
      memories.map((m) => cell(m ? m.abilities[ability] : null)),
      bins.map(([field, bin]) => cell(memories[0][field][bin][ability]))));
    const overall = h("tr", { class: "overall", "data-ability": "overall" }, h("td", {}, "overall (unweighted mean)"),
      memories.map((m) => cell(m ? m.overall : null)), bins.map(() => h("td", {}, "")));
    const counts = memories.map((m, i) => (VS ? SIDES[i].toUpperCase() + ": " : "") + (m ? m.probes + " probes" : "none asked")).join("; ");
    return h("div", { class: "panel", id: "memory-panel" }, h("h2", {}, "Memory probes (MPS, BEAM's abilities)"),
      h("div", { class: "scroll-x" }, h("table", { class: "score memory" }, h("thead", {}, head), h("tbody", {}, rows, overall))),
      h("div", { class: "muted" }, counts + ". Distance bins" + (VS ? " (A)" : "") +
        ": from the earliest evidence to the question, in events and in simulated days; n/a where none was asked."));
  }

  function scenarioChart() {
    const rows = scenarios.map((name) => ({
      label: name.replace(/_/g, " "),
      values: RUNS.map((run) => (run.scorecard.by_scenario[name] ? run.scorecard.by_scenario[name].success_rate : null)),
      counts: RUNS.map((run) => run.scorecard.by_scenario[name] || null),
    }));
    return barChart("scenario-chart", "Success by scenario", rows, 1, (v, row, i) => {
      const c = row.counts[i];
      return c ? pct(v) + " (" + c.succeeded + "/" + c.tasks + ")" : "no scored tasks";
    });
  }

  function gpaChart() {
    const parts = Object.keys(RUNS[0].scorecard.stugpa.points);
    const rows = parts.map((part) => ({ label: part, values: RUNS.map((run) => run.scorecard.stugpa.points[part]) }));
    const maxima = { exam: 50, class: 30, advisor: 8, club: 6, responsibility: 6 };
    const scaled = rows.map((row) => ({ label: row.label, raw: row.values, values: row.values.map((v) => v / (maxima[row.label] || 100)) }));
    return barChart("gpa-chart", "StuGPA points by component (of their maximum)", scaled, 1,
      (v, row, i) => row.raw[i].toFixed(2) + " / " + (maxima[row.label] || "?"));
  }

  function weeklyRates(run) {
    return weeks.map((w) => {
      const scored = (tasksByWeek.get(w) || []).filter((task) => !task.flags.includes("D"));
      const done = scored.filter((task) => spanOf(run, task.id).outcome === "success").length;
      return { week: w, rate: scored.length ? done / scored.length : null, done, total: scored.length };
    });
  }

  function weeklyChart() {
    const width = 420, height = 170, left = 34, right = 8, top = 10, bottom = 28;
    const step = (width - left - right) / Math.max(1, weeks.length);
    const chart = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": "success by week" });
    weeks.forEach((w, i) => {
      chart.append(titled(svg("rect", { class: "week-band", x: left + i * step, y: top, width: step, height: height - top - bottom, fill: "transparent", "data-week": w, onclick: () => showWeek(w, true) }), "Week " + w + ": show in the timeline"));
      if (i % Math.ceil(weeks.length / 11) === 0) chart.append(svg("text", { x: left + i * step + step / 2, y: height - 12, "text-anchor": "middle", "font-size": 10 }, "W" + w));
    });
    for (const tick of [0, 0.5, 1]) {
      const y = top + (1 - tick) * (height - top - bottom);
      chart.append(svg("line", { x1: left, x2: width - right, y1: y, y2: y, stroke: "#e5e7eb" }));
      chart.append(svg("text", { x: left - 4, y: y + 3, "text-anchor": "end", "font-size": 10 }, tick * 100 + "%"));
    }
    RUNS.forEach((run, r) => {
      const colour = r ? "var(--run-b)" : "var(--run-a)";
      const points = weeklyRates(run).map((row, i) => ({ ...row, x: left + i * step + step / 2, y: row.rate === null ? null : top + (1 - row.rate) * (height - top - bottom) }));
      const drawn = points.filter((p) => p.y !== null);
      chart.append(svg("polyline", { points: drawn.map((p) => p.x + "," + p.y).join(" "), fill: "none", stroke: colour, "stroke-width": 2, "stroke-dasharray": r ? "5 3" : null }));
      for (const p of drawn) chart.append(titled(svg("circle", { cx: p.x, cy: p.y, r: 2.5, fill: colour }), (VS ? SIDES[r].toUpperCase() + " " : "") + "week " + p.week + ": " + p.done + "/" + p.total + " (" + pct(p.rate) + ")"));
    });
    return h("div", { class: "panel", id: "weekly-chart" }, h("h2", {}, "Success by week (scored tasks; click a week)"), chart);
  }

  // ------------------------------------------------------------ timeline

  /* The filters act on the whole term; the week (a number, or "all") is the range shown. */
  function matches(task) {
    if (state.scenario && task.scenario !== state.scenario) return false;
    if (state.query && !task.id.toLowerCase().includes(state.query.toLowerCase())) return false;
    const outcomes = RUNS.map((run) => spanOf(run, task.id).outcome);
    if (state.outcome === "success") return outcomes.includes("success");
    if (state.outcome === "failure") return outcomes.includes("failure");
    if (state.outcome === "flipped") return flips.has(task.id);
    if (state.outcome === "missing") return outcomes.some((o) => o === "missing" || o === "running");
    return true;
  }

  const filtering = () => Boolean(state.scenario || state.outcome || state.query);

  function setFilter(key, value) {
    state[key] = value;
    state.week = "all";
    refreshTimeline();
    document.getElementById("timeline-scroll").scrollTop = 0;
  }

  function controls() {
    const scenarioSelect = h("select", { id: "filter-scenario", onchange: (e) => setFilter("scenario", e.target.value) },
      h("option", { value: "" }, "every scenario"), scenarios.map((s) => h("option", { value: s }, s.replace(/_/g, " "))));
    const outcomeSelect = h("select", { id: "filter-outcome", onchange: (e) => setFilter("outcome", e.target.value) },
      h("option", { value: "" }, "every outcome"), h("option", { value: "success" }, VS ? "succeeded in either run" : "succeeded"),
      h("option", { value: "failure" }, VS ? "failed in either run" : "failed"),
      VS ? h("option", { value: "flipped" }, "outcome flipped") : null, h("option", { value: "missing" }, "not finished"));
    const weekSelect = h("select", { id: "filter-week", onchange: (e) => showWeek(e.target.value === "all" ? "all" : Number(e.target.value), true) },
      h("option", { value: "all" }, "every week"), weeks.map((w) => h("option", { value: w }, "week " + w)));
    const search = h("input", { id: "filter-query", type: "search", placeholder: "task id\u2026", oninput: (e) => setFilter("query", e.target.value) });
    return h("div", {},
      h("div", { class: "controls" }, h("h2", { style: { margin: 0 } }, "Timeline"), scenarioSelect, outcomeSelect, weekSelect, search,
        h("span", { class: "muted", id: "timeline-count" })),
      h("div", { class: "muted pager-help" }, "Filters act on the whole term. Weeks: tasks succeeded" + (VS ? " (A|B)" : "") +
        " / scored tasks matching" + (VS ? "; the first divergence's week is outlined." : ".")));
  }

  function pager() {
    const nav = h("nav", { class: "pager", id: "week-pager", "aria-label": "weeks" });
    const divergenceWeek = divergenceTask() ? divergenceTask().week : null;
    const all = tasks.filter(matches);
    nav.append(h("button", { "data-all": "", class: state.week === "all" ? "active" : "", disabled: all.length === 0,
      title: "Every week: " + all.length + " matching task(s)", onclick: () => showWeek("all", true) }, "All", h("small", {}, String(all.length))));
    for (const w of weeks) {
      const shown = (tasksByWeek.get(w) || []).filter(matches);
      const scored = shown.filter((task) => !task.flags.includes("D"));
      const wins = RUNS.map((run) => scored.filter((task) => spanOf(run, task.id).outcome === "success").length);
      nav.append(h("button", {
        "data-week": w, class: (w === state.week ? "active " : "") + (w === divergenceWeek ? "has-divergence" : ""),
        disabled: shown.length === 0, title: "Week " + w + ": " + shown.length + " task(s), " + scored.length + " scored", onclick: () => showWeek(w, true),
      }, "W" + w, h("small", {}, shown.length ? wins.join("|") + "/" + scored.length : "\u2013")));
    }
    return nav;
  }

  function outcomeChip(run, i, task) {
    const s = spanOf(run, task.id);
    const text = OUTCOME_TEXT[s.outcome] || s.outcome;
    const extra = s.outcome === "missing" ? "" : " \u00b7 " + (s.turns === null || s.turns === undefined ? "?" : s.turns) + " turn(s)" + (s.t1 !== null && s.t1 !== undefined ? " \u00b7 " + clock(s.t1) : "");
    return h("span", { class: "outcome " + s.outcome + " " + SIDES[i], title: (s.detail || s.reason || text) },
      VS ? h("span", { class: "run-tag" }, SIDES[i].toUpperCase()) : null, text, extra);
  }

  function taskRow(task) {
    const flags = [];
    if (task.flags.includes("L")) flags.push(h("span", { class: "flag", title: "long-term memory" }, "LTM"));
    if (task.flags.includes("S")) flags.push(h("span", { class: "flag", title: "self-motivated" }, "SM"));
    if (task.flags.includes("D")) flags.push(h("span", { class: "flag", title: "delivery only: not scored" }, "delivery"));
    const fired = RUNS.map((run) => (run.firings && run.firings[task.id]) || 0);
    if (fired.some(Boolean)) flags.push(h("span", { class: "flag firing", title: "the world changed while this task was open (" + fired.join(" | ") + " trigger change(s))" }, "world changed"));
    const diverged = DIVERGENCE && DIVERGENCE.task === task.id;
    const row = h("div", {
      class: "task-row" + (state.open.has(task.id) ? " open" : "") + (diverged ? " diverged" : ""),
      "data-task": task.id, role: "button", tabindex: 0,
      onclick: () => toggleTask(task.id), onkeydown: (e) => { if (e.key === "Enter") toggleTask(task.id); },
    },
      h("span", { class: "when" }, clock(task.release)),
      h("span", {}, h("span", { class: "id" }, task.id), flags, " ",
        h("span", { class: "tags" }, task.scenario.replace(/_/g, " ")),
        flips.has(task.id) ? h("span", { class: "flip" }, " \u21c4 outcome flipped") : null,
        diverged ? [" ", h("span", { class: "divergence-mark", "data-seq": DIVERGENCE.seq }, "\u2691 first divergence \u00b7 seq " + DIVERGENCE.seq)] : null),
      RUNS.map((run, i) => outcomeChip(run, i, task)));
    return row;
  }

  function dayHead(day, dayTasks) {
    const summary = RUNS.map((run, i) => {
      const scored = dayTasks.filter((task) => !task.flags.includes("D"));
      const wins = scored.filter((task) => spanOf(run, task.id).outcome === "success").length;
      return (VS ? SIDES[i].toUpperCase() + " " : "") + wins + "/" + scored.length + " \u2713";
    }).join(" \u00b7 ");
    const walks = RUNS.map((run, i) => (walksByDay[i].get(day) || []).length);
    const changes = RUNS.map((run, i) => (betweenByDay[i].get(day) || []).filter((e) => e[2].kind === "world_changed").length);
    return h("div", { class: "day-head" + (state.day === day ? " selected" : ""), "data-day": day, onclick: () => selectDay(day) },
      h("h3", {}, dateLabel(day)),
      h("span", {}, dayTasks.length + " task(s)"), h("span", {}, summary),
      h("span", { class: "muted" }, "walks " + walks.join("|") + " \u00b7 world changes " + changes.join("|")));
  }

  function betweenBlock(day) {
    const count = RUNS.reduce((n, run, i) => n + (betweenByDay[i].get(day) || []).length, 0);
    if (!count) return null;
    const details = h("details", { class: "between" }, h("summary", {}, count + " event(s) between tasks (day start, time, world changes)"));
    details.addEventListener("toggle", () => {
      if (!details.open || details.dataset.drawn) return;
      details.dataset.drawn = "1";
      RUNS.forEach((run, i) => {
        const entries = betweenByDay[i].get(day) || [];
        if (VS) details.append(h("div", { class: "muted" }, SIDES[i].toUpperCase() + " " + run.id));
        for (const entry of entries) details.append(renderEntry(entry, run.price));
      });
    });
    return details;
  }

  /* The days of the week shown (or, for "all", every day with a matching task), each with its matching tasks. */
  function renderRange() {
    const all = state.week === "all";
    const body = h("div", { id: "week-body", "data-week": state.week });
    const inRange = all ? tasks : tasksByWeek.get(state.week) || [];
    const shown = inRange.filter(matches);
    const byDay = groupBy(shown, (task) => task.day);
    const days = all ? [...byDay.keys()] : [0, 1, 2, 3, 4, 5, 6].map((d) => state.week * 7 + d);
    for (const day of days) {
      const dayTasks = byDay.get(day) || [];
      const hasOther = !all && RUNS.some((run, i) => walksByDay[i].has(day) || betweenByDay[i].has(day));
      if (!dayTasks.length && !hasOther) continue;
      const section = h("section", { class: "day", "data-day": day }, dayHead(day, dayTasks));
      if (!dayTasks.length) section.append(h("div", { class: "day-empty" }, filtering() ? "no task matches the filters" : "no tasks"));
      for (const task of dayTasks) {
        section.append(taskRow(task));
        if (state.open.has(task.id)) section.append(taskDetail(task));
      }
      const between = all ? null : betweenBlock(day);
      if (between) section.append(between);
      body.append(section);
    }
    if (!shown.length) body.append(h("div", { class: "day-empty" }, "No task matches the filters."));
    const inTerm = filtering() ? tasks.filter(matches).length : tasks.length;
    document.getElementById("timeline-count").textContent = (filtering() ? inTerm + " of " + tasks.length + " task(s) match in the term" : tasks.length + " task(s) in the term") +
      (all ? "" : "; week " + state.week + ": " + shown.length + " shown");
    return body;
  }

  function refreshTimeline() {
    document.getElementById("week-pager").replaceWith(pager());
    document.getElementById("filter-week").value = String(state.week);
    document.getElementById("timeline-scroll").replaceChildren(renderRange());
  }

  /* A week (or "all"); the map follows to the first day of the week with a task or a walk. */
  function showWeek(week, resetScroll) {
    state.week = week;
    refreshTimeline();
    if (resetScroll) document.getElementById("timeline-scroll").scrollTop = 0;
    if (week !== "all" && Math.floor(state.day / 7) !== week) selectDay(firstDayOf(week));
  }

  function firstDayOf(week) {
    for (let day = week * 7; day < week * 7 + 7; day++) {
      if (RUNS.some((run, i) => walksByDay[i].has(day)) || (tasksByWeek.get(week) || []).some((task) => task.day === day)) return day;
    }
    return week * 7;
  }

  function scrollRowIntoView(taskId) {
    const scroller = document.getElementById("timeline-scroll");
    const row = scroller.querySelector('.task-row[data-task="' + CSS.escape(taskId) + '"]');
    if (!row) return null;
    const offset = row.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
    scroller.scrollTop += offset - 40;
    return row;
  }

  const inRange = (task) => state.week === "all" || state.week === task.week;

  /* Opening or closing a task in the range on screen touches only its row; otherwise its week is drawn afresh. */
  function toggleTask(taskId) {
    const task = taskById.get(taskId);
    if (!task) return;
    const opening = !state.open.has(taskId);
    if (opening) state.open.add(taskId);
    else state.open.delete(taskId);
    state.task = opening ? taskId : null;
    const row = document.querySelector('#timeline-scroll .task-row[data-task="' + CSS.escape(taskId) + '"]');
    if (!inRange(task) || !row) {
      if (!matches(task)) clearFilters();
      if (!inRange(task)) state.week = task.week;
      refreshTimeline();
    } else {
      row.classList.toggle("open", opening);
      const shown = row.nextElementSibling && row.nextElementSibling.dataset.detail === taskId ? row.nextElementSibling : null;
      if (opening && !shown) row.after(taskDetail(task));
      if (!opening && shown) shown.remove();
    }
    selectDay(task.day, state.task);
    linkTo(state.task);
  }

  function clearFilters() {
    state.scenario = state.outcome = state.query = "";
    for (const id of ["filter-scenario", "filter-outcome", "filter-query"]) document.getElementById(id).value = "";
  }

  function openTask(taskId) {
    const task = taskById.get(taskId);
    if (!task) throw new Error("no task " + taskId + " in this report");
    if (!state.open.has(taskId)) toggleTask(taskId);
    else if (!inRange(task) || !matches(task)) {
      if (!matches(task)) clearFilters();
      showWeek(task.week, false);
    }
    linkTo(taskId);
    return scrollRowIntoView(taskId);
  }

  /* The address names the task open last (report.html#task=ID), so a link opens it again. */
  function linkTo(taskId) {
    const wanted = taskId ? "#task=" + encodeURIComponent(taskId) : "";
    if (location.hash === wanted) return;
    history.replaceState(null, "", location.pathname + location.search + wanted);
  }

  function linkedTask() {
    const match = /^#task=(.+)$/.exec(location.hash);
    return match ? decodeURIComponent(match[1]) : null;
  }

  function followLink() {
    const taskId = linkedTask();
    if (!taskId) return false;
    const note = document.getElementById("link-note");
    if (!taskById.has(taskId)) {
      note.textContent = "The link names task " + taskId + ", which is not in this report.";
      return false;
    }
    note.textContent = "";
    openTask(taskId);
    document.getElementById("timeline").scrollIntoView({ block: "start" });
    return true;
  }

  function selectDay(day, focusTask) {
    state.day = day;
    state.task = focusTask || null;
    for (const node of document.querySelectorAll(".day-head")) node.classList.toggle("selected", Number(node.dataset.day) === day);
    drawWalks();
  }

  function divergenceTask() {
    return DIVERGENCE && DIVERGENCE.task ? taskById.get(DIVERGENCE.task) || null : null;
  }

  function goToDivergence(scrollPage) {
    const task = divergenceTask();
    if (!task) return null;
    clearFilters();
    openTask(task.id);
    if (scrollPage) document.getElementById("timeline").scrollIntoView({ block: "start" });
    const scroller = document.getElementById("timeline-scroll");
    const entry = scroller.querySelector(".entry.divergence");
    if (entry) {
      const box = scroller.getBoundingClientRect();
      const where = entry.getBoundingClientRect();
      if (where.bottom > box.bottom) scroller.scrollTop += where.top - box.top - box.height / 2;
    }
    return document.querySelector(".task-row.diverged");
  }

  // ------------------------------------------------------------ transcripts (rendered on opening only)

  function transcriptOf(i, taskId) {
    const own = RUNS[i].transcripts[taskId];
    if (own === null && i > 0) return { entries: RUNS[0].transcripts[taskId] || [], shared: true };
    return { entries: own || null, shared: false };
  }

  /* A task's events cut into steps: step 0 is what the agent was shown before its first reply, step k
     starts at its k-th reply and holds what that reply did. */
  function stepsOf(entries) {
    const steps = [[]];
    for (const entry of entries) {
      if (entry[2].kind === "agent_replied") steps.push([]);
      steps[steps.length - 1].push(entry);
    }
    return steps;
  }

  function transcriptHead(run, i, task, entries, shared) {
    const s = spanOf(run, task.id);
    const spent = run.task_usage[task.id];
    return h("div", { class: "transcript-head " + SIDES[i], "data-run": run.id },
      h("h4", {}, (VS ? SIDES[i].toUpperCase() + " \u00b7 " : "") + run.id + " \u00b7 " + (OUTCOME_TEXT[s.outcome] || s.outcome)),
      shared ? h("div", { class: "muted" }, DIVERGENCE ? "Same events as A (the runs are identical before seq " + DIVERGENCE.seq + ")." : "Same events as A (the runs are identical).") : null,
      entries ? null : h("div", { class: "muted" }, "This run never reached the task."),
      reported(spent) ? h("div", { class: "muted usage" }, usageText(spent, run.price)) : null);
  }

  /* Step k of every run side by side in one row; a run with fewer steps shows a gap there. */
  function taskDetail(task) {
    const sides = RUNS.map((run, i) => ({ run, i, ...transcriptOf(i, task.id) }));
    const steps = sides.map((side) => (side.entries ? stepsOf(side.entries) : []));
    const rows = [];
    for (let k = 0; k < Math.max(...steps.map((list) => list.length)); k++) {
      rows.push(h("div", { class: "step-row", "data-step": k }, sides.map(({ run, i, shared }) => {
        const step = steps[i][k];
        const cell = { class: "step " + SIDES[i] + (step ? "" : " gap"), "data-run": run.id, "data-step": k };
        if (!step) {
          return h("div", cell, h("div", { class: "muted" }, "\u2014 no step " + k + ": " +
            (steps[i].length ? "the task ended after step " + (steps[i].length - 1) : "the run never reached the task")));
        }
        const price = shared ? RUNS[0].price : run.price;
        return h("div", cell, h("div", { class: "step-label" }, k ? "step " + k : "the task as shown"), step.map((entry) => renderEntry(entry, price)));
      })));
    }
    return h("div", { class: "detail", "data-detail": task.id },
      h("div", { class: "detail-head" }, h("b", {}, task.id), h("span", {}, task.scenario.replace(/_/g, " ") + " \u00b7 phase " + task.phase),
        h("span", {}, "released " + label(task.release)), h("span", { class: "muted" }, task.flags ? "flags " + task.flags : ""),
        h("a", { href: "#task=" + encodeURIComponent(task.id), class: "muted" }, "link to this task")),
      h("div", { class: "transcripts", style: { "--columns": RUNS.length } },
        h("div", { class: "step-row heads" }, sides.map(({ run, i, entries, shared }) => transcriptHead(run, i, task, entries, shared))),
        sides.some(({ run }) => run.lanes && run.lanes[task.id])
          ? h("div", { class: "step-row lanes-row" }, sides.map(({ run }) => (run.lanes && run.lanes[task.id] ? swimLanes(run.lanes[task.id], task.id) : h("div"))))
          : null,
        rows));
  }

  // ------------------------------------------------------------ a busy day as swim lanes

  const PRIORITY_COLOURS = { high: "#dc2626", normal: "#2563eb", low: "#64748b" };

  function swimLanes(day, taskId) {
    const left = 190, width = 760, row = 22, top = 22;
    const x = (t) => left + (width * (Math.min(Math.max(t, day.open), day.close) - day.open)) / Math.max(1, day.close - day.open);
    const height = top + row * day.lanes.length + 8;
    const chart = svg("svg", { viewBox: "0 0 " + (left + width + 10) + " " + height, class: "lanes-chart", role: "img",
      "aria-label": "the busy day's errands and appointments over the day" });
    for (let hour = Math.ceil(day.open / 60); hour * 60 <= day.close; hour++) {
      chart.append(svg("line", { x1: x(hour * 60), x2: x(hour * 60), y1: top - 4, y2: height - 6, class: "hour" }),
        svg("text", { x: x(hour * 60), y: 12, "text-anchor": "middle", class: "tick" }, clock(hour * 60)));
    }
    day.lanes.forEach((lane, i) => {
      const y = top + i * row;
      const late = lane.done !== null && lane.done !== undefined && lane.done > lane.deadline;
      const g = svg("g", { class: "lane " + lane.kind, "data-lane": lane.id });
      g.append(svg("text", { x: 4, y: y + 14, class: "lane-label" }, lane.id + " " + lane.title + (lane.kind === "errand" ? " (" + lane.priority + ")" : "")));
      g.append(titled(svg("rect", { x: x(lane.release), y: y + 4, width: Math.max(2, x(lane.deadline) - x(lane.release)), height: row - 8, rx: 3,
        class: "window", fill: lane.kind === "appointment" ? "#f59e0b" : PRIORITY_COLOURS[lane.priority] || "#64748b" }),
        lane.kind === "appointment" ? lane.title + " " + clock(lane.release) + "\u2013" + clock(lane.deadline)
          : lane.handed === false ? "never handed out (nobody was asked), due " + clock(lane.deadline)
          : "arrived " + clock(lane.release) + ", due " + clock(lane.deadline)));
      for (const t of lane.clues) {
        g.append(titled(svg("path", { d: "M" + x(t) + " " + (y + 3) + " l5 8 l-5 8 l-5 -8 z", class: "clue" }), "clue revealed at " + clock(t)));
      }
      if (lane.done !== null && lane.done !== undefined) {
        g.append(titled(svg("circle", { cx: x(lane.done), cy: y + row / 2, r: 5, class: "done" + (late ? " late" : "") }),
          "reported done at " + clock(lane.done) + (late ? ", " + (lane.done - lane.deadline) + " min late" : "")));
      }
      chart.append(g);
    });
    for (const [t, text] of day.interrupts) {
      chart.append(titled(svg("line", { x1: x(t), x2: x(t), y1: top - 6, y2: height - 4, class: "interrupt" }), clock(t) + " " + text));
    }
    return h("div", { class: "swimlanes", "data-task": taskId },
      h("div", { class: "muted" }, "The day's errands (bar: arrival to deadline, coloured by priority) and appointments (amber); "
        + "\u25c6 a clue revealed, \u25cf reported done (red: late), dashed line: a reminder that interrupted."),
      chart);
  }

  function callText(tool, args, positional) {
    const parts = (positional || []).map((v) => JSON.stringify(v));
    for (const [key, value] of Object.entries(args || {})) parts.push(key + "=" + JSON.stringify(value));
    return tool + "(" + parts.join(", ") + ")";
  }

  /* A calendar event's time: a weekday of a range of weeks, from a clock time to another. */
  function calendarTime(time) {
    if (!time || typeof time !== "object") return String(time);
    const weeks = time.first_week === time.last_week ? "Week " + time.first_week : "Weeks " + time.first_week + "\u2013" + time.last_week;
    return weeks + ", " + DAY_NAMES[time.weekday] + " " + clock(time.start) + "\u2013" + clock(time.end);
  }

  function describe(ev) {
    switch (ev.kind) {
      case "task_released": return ["Task released \u00b7 shown to the agent" + (ev.withheld ? " (instruction withheld until the student is there)" : "") + " \u00b7 tools: " + ev.systems.join(", "), ev.observation];
      case "instruction_revealed": return ["Instruction shown (the student arrived)", ev.text];
      case "agent_replied": return ["Agent replied", ev.text !== null && ev.text !== undefined ? ev.text : ev.call ? callText(ev.call.name, ev.call.arguments) : ""];
      case "action_rejected": return ["Reply rejected", ev.message];
      case "tool_called": return ["Tool call " + ev.call_id, callText(ev.tool, ev.args, ev.positional)];
      case "tool_result": return ["Result: " + ev.status + (ev.minutes ? " \u00b7 +" + ev.minutes + " min" : ""), ev.message];
      case "answered": return ["Answer recorded: " + ev.answer, null];
      case "walked": return ["Walked " + clock(ev.depart) + "\u2013" + clock(ev.arrive) + " (" + (ev.arrive - ev.depart) + " min)", ev.path.map(nameOf).join(" \u2192 ")];
      case "calendar_event_added": return ["Calendar: event added to " + ev.calendar_id, "\u201c" + ev.title + "\u201d at " + ev.location + ", " + calendarTime(ev.time) + (ev.description ? "\n" + ev.description : "")];
      case "calendar_event_updated": return ["Calendar: event " + ev.event_id + " updated in " + ev.calendar_id, JSON.stringify(ev.changes)];
      case "calendar_event_removed": return ["Calendar: event " + ev.event_id + " removed from " + ev.calendar_id, null];
      case "email_sent": return ["Email sent to " + ev.to + (ev.cc ? " (cc " + ev.cc + ")" : ""), "Subject: " + ev.subject + "\n\n" + ev.body];
      case "booked": return ["Booked " + ev.item_name + (ev.seat_id ? " seat " + ev.seat_id : "") + " at " + nameOf(ev.location_id), ev.date + " " + ev.time_slot + " \u00b7 booking " + ev.booking_id];
      case "draft_added": return ["Draft: added " + ev.section_id, null];
      case "draft_removed": return ["Draft: removed " + ev.section_id, null];
      case "pass_assigned": return ["Draft: " + ev.pass_type + " on " + ev.section_id, null];
      case "registered": return ["Registered semester " + ev.semester, Object.entries(ev.results).map(([k, v]) => k + ": " + v).join("\n")];
      case "task_ended": return ["Verdict: " + (OUTCOME_TEXT[ev.outcome] || ev.outcome) + " \u00b7 " + ev.reason + " \u00b7 " + ev.turns + " turn(s)",
        [ev.detail, Object.keys(ev.marks || {}).length ? "marks: " + Object.entries(ev.marks).map(([k, v]) => k + "=" + v).join(", ") : ""].filter(Boolean).join("\n") || null];
      case "world_changed": return ev.rule
        ? ["The world changed here: " + String(ev.change.type || "change").replace(/_/g, " ") + " (rule " + ev.rule + ", " + (ev.cause ? "set off by seq " + ev.cause : "by the clock") + ")", JSON.stringify(ev.change)]
        : ["World changed: " + ev.change_id, JSON.stringify(ev.change)];
      case "trigger_skipped": return ["A trigger rule did not fire: " + ev.rule, ev.reason];
      case "time_announced": return ["Time announced", ev.label];
      case "day_started": return ["Day started at " + nameOf(ev.home), null];
      case "run_started": return ["Run started \u00b7 seed " + ev.seed, null];
      case "run_ended": return ["Run ended: " + ev.reason, null];
      default: { const rest = Object.assign({}, ev); delete rest.kind; return [ev.kind, JSON.stringify(rest)]; }
    }
  }

  const META_LABELS = {
    model: "model", prompt_tokens: "prompt tokens", completion_tokens: "completion tokens", latency_s: "latency",
    finish_reason: "finish reason", request_sha256: "request hash (sha256)", attempts: "attempts", reasoning: "reasoning",
    dropped_tool_calls: "tool calls dropped",
  };

  /* A reply's metadata (tokens, latency, the hash of the exact request, reasoning...) as a table; its cost at the run's price. */
  function metaTable(text, price) {
    let meta = null;
    try { meta = JSON.parse(text); } catch (error) { meta = null; }
    if (!meta || typeof meta !== "object" || Array.isArray(meta)) return h("div", { class: "muted mono" }, "meta " + text);
    const rows = Object.entries(meta).map(([key, value]) => {
      const shown = key === "latency_s" && typeof value === "number" ? value.toFixed(2) + " s"
        : typeof value === "number" ? value.toLocaleString("en") : typeof value === "string" ? value : JSON.stringify(value);
      return h("tr", { "data-key": key }, h("th", {}, META_LABELS[key] || key.replace(/_/g, " ")),
        h("td", { class: key === "request_sha256" ? "mono" : "" }, key === "reasoning" ? h("pre", {}, shown) : shown));
    });
    if (typeof meta.prompt_tokens === "number" && typeof meta.completion_tokens === "number") {
      rows.push(h("tr", { "data-key": "cost" }, h("th", {}, "cost"),
        h("td", {}, price ? usd((meta.prompt_tokens * price[0] + meta.completion_tokens * price[1]) / 1e6) : "unknown (no price for this model)")));
    }
    return h("table", { class: "meta" }, h("tbody", {}, rows));
  }

  /* A long text shows its first lines and a button for the rest (the page scrolls; no box of its own). */
  function folded(text) {
    const limit = FOLD_CHARACTERS;
    if (text.length <= limit * 1.3) return h("pre", {}, text);
    let cut = text.lastIndexOf("\n", limit);
    if (cut < limit / 2) cut = text.lastIndexOf(" ", limit);
    const head = text.slice(0, cut > 0 ? cut : limit) + " \u2026";
    const pre = h("pre", { class: "folded" }, head);
    const more = h("button", { class: "more", onclick: (e) => { e.stopPropagation(); pre.textContent = text; pre.classList.remove("folded"); more.remove(); } },
      "show all (" + text.length.toLocaleString("en") + " characters)");
    return h("div", {}, pre, more);
  }

  function renderEntry(entry, price) {
    const [seq, t, ev, meta] = entry;
    const [what, body] = describe(ev);
    const diverged = DIVERGENCE && seq === DIVERGENCE.seq;
    const classes = ["entry", ev.kind, ev.kind === "tool_result" ? ev.status : "", ev.kind === "task_ended" ? ev.outcome : "", diverged ? "divergence" : ""];
    return h("div", { class: classes.filter(Boolean).join(" "), "data-seq": seq },
      h("div", { class: "gutter" }, "seq " + seq, h("br"), clock(t)),
      h("div", {},
        diverged ? h("span", { class: "divergence-mark", "data-seq": seq }, "first divergence \u00b7 seq " + seq) : null,
        h("div", { class: "what" }, what),
        body !== null && body !== undefined && body !== "" ? folded(String(body)) : null,
        meta ? metaTable(meta, price) : null));
  }

  // ------------------------------------------------------------ the campus map

  function mapBase() {
    const zones = DATA.map.zones;
    const colour = (zone) => ZONE_COLOURS[zones.indexOf(zone) % ZONE_COLOURS.length];
    const base = svg("svg", { viewBox: "0 0 1000 1000", id: "campus-map", role: "img", "aria-label": "campus map with the student's walks" });
    const paths = svg("g", { stroke: "#cbd5e1", "stroke-width": 1.2 });
    for (const [a, b, minutes] of DATA.map.paths) {
      const p = buildings.get(a), q = buildings.get(b);
      if (!p || !q) continue;
      paths.append(titled(svg("line", { x1: p.x, y1: p.y, x2: q.x, y2: q.y }), p.name + " \u2194 " + q.name + ": " + minutes + " min"));
    }
    base.append(paths, svg("g", { id: "walk-layer" }));
    const nodes = svg("g", {});
    for (const b of buildings.values()) {
      const home = b.id === DATA.map.home;
      nodes.append(titled(svg("circle", { cx: b.x, cy: b.y, r: home ? 9 : 5, fill: colour(b.zone), stroke: home ? "#111" : "#fff", "stroke-width": home ? 2.5 : 1, "data-building": b.id }),
        b.name + " (" + b.id + ") \u00b7 " + b.zone + " \u00b7 " + b.type + (home ? " \u00b7 home" : "")));
    }
    base.append(nodes, svg("g", { id: "walk-ends" }));
    const legend = h("div", { class: "map-legend" }, zones.map((zone) => h("span", {}, h("span", { class: "swatch", style: { background: colour(zone), height: "8px", width: "8px", borderRadius: "4px" } }), zone)));
    return { base, legend };
  }

  function walksToDraw() {
    if (state.mapMode === "term") return RUNS.map((run, i) => [...walksByDay[i].values()].flat());
    return RUNS.map((run, i) => walksByDay[i].get(state.day) || []);
  }

  function drawWalks() {
    const layer = document.getElementById("walk-layer");
    const ends = document.getElementById("walk-ends");
    if (!layer) return;
    layer.replaceChildren();
    ends.replaceChildren();
    const sets = walksToDraw();
    const list = document.getElementById("walk-list");
    list.replaceChildren();
    let shown = 0;
    sets.forEach((walks, i) => {
      const offset = i ? 3 : 0;
      for (const walk of walks) {
        const points = walk.path.map((id) => buildings.get(id)).filter(Boolean);
        if (points.length < 2) continue;
        const faded = state.mapMode === "day" && state.task && walk.task !== state.task;
        const line = svg("polyline", { class: "map-walk " + SIDES[i] + (faded ? " faded" : ""), "stroke-width": state.mapMode === "term" ? 1.5 : 3.5,
          "stroke-opacity": state.mapMode === "term" ? 0.25 : 0.9, points: points.map((p) => p.x + offset + "," + (p.y + offset)).join(" ") });
        layer.append(titled(line, (VS ? SIDES[i].toUpperCase() + " " : "") + clock(walk.depart) + "\u2013" + clock(walk.arrive) + " " + points.map((p) => p.name).join(" \u2192 ")));
        if (state.mapMode === "day") {
          const end = points[points.length - 1];
          ends.append(svg("circle", { cx: end.x + offset, cy: end.y + offset, r: 4, fill: "none", stroke: i ? "var(--run-b)" : "var(--run-a)", "stroke-width": 2, opacity: faded ? 0.2 : 1 }));
          list.append(walkItem(walk, i, faded));
        }
        shown++;
      }
    });
    const where = state.mapMode === "term" ? "the whole term" : dateLabel(state.day) + (state.task ? " (task " + state.task + " in focus)" : "");
    document.getElementById("map-caption").textContent = shown + " walk(s) on " + where;
    if (state.mapMode === "day" && !shown) list.append(h("li", { class: "muted" }, "No walks on this day."));
  }

  function walkItem(walk, i, faded) {
    return h("li", { class: faded ? "" : state.task ? "focus" : "" },
      h("span", { class: "run-" + SIDES[i] }, VS ? SIDES[i].toUpperCase() + " " : ""),
      clock(walk.depart) + "\u2013" + clock(walk.arrive) + " ",
      walk.path.map(nameOf).join(" \u2192 "),
      walk.task ? h("span", { class: "muted" }, " \u00b7 " + walk.task) : null);
  }

  function mapPanel() {
    const { base, legend } = mapBase();
    const mode = h("select", { id: "map-mode", onchange: (e) => { state.mapMode = e.target.value; drawWalks(); } },
      h("option", { value: "day" }, "walks of the selected day"), h("option", { value: "term" }, "every walk of the term"));
    const runs = h("div", { class: "map-legend" }, RUNS.map((run, i) => h("span", {},
      h("span", { class: "swatch", style: { background: i ? "var(--run-b)" : "var(--run-a)" } }), (VS ? SIDES[i].toUpperCase() + " " : "") + run.id + (i ? " (dashed)" : " (solid)"))),
      h("span", {}, "\u25ce home (" + nameOf(DATA.map.home) + ")"));
    return h("aside", { class: "panel map-panel", id: "map-panel" },
      h("div", { class: "controls" }, h("h2", { style: { margin: 0 } }, "Campus map"), mode),
      h("div", { class: "muted", id: "map-caption" }), base, runs, legend, h("ul", { class: "walk-list", id: "walk-list" }));
  }

  // ------------------------------------------------------------ page

  function build() {
    const app = document.getElementById("app");
    const timeline = h("section", { class: "panel timeline", id: "timeline" }, controls(), h("div", { id: "link-note", class: "link-note" }),
      h("nav", { id: "week-pager" }), h("div", { id: "timeline-scroll" }));
    const main = h("div", { class: "main", style: { "--run-cols": "repeat(" + RUNS.length + ", minmax(120px, 200px))" } }, timeline, mapPanel());
    app.replaceChildren(header(), banner() || "", flipsPanel() || "",
      h("div", { class: "charts" }, scoreTable(), memoryPanel() || "", scenarioChart(), gpaChart(), weeklyChart(), toolsPanel()), main);
    refreshTimeline();
    drawWalks();
    if (!followLink() && divergenceTask()) goToDivergence(false);
    window.addEventListener("hashchange", followLink);
  }

  window.campusReport = {
    data: DATA, tasks, weeks,
    showWeek: (w) => showWeek(w, true),
    openTask, goToDivergence, selectDay,
    renderedTaskIds: () => [...document.querySelectorAll("#timeline-scroll .task-row")].map((row) => row.dataset.task),
  };
  build();
  window.campusReport.readyAt = performance.now();
  window.campusReport.ready = true;
})();

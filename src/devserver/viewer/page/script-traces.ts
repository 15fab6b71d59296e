import { TIME_TO_FIRST_TOKEN_KEY, TOKENS_PER_SECOND_KEY } from "../../../protocol/metadata-keys.js";

/**
 * The viewer's trace list (server-side search, filters and paging; live updates re-read only
 * the page shown) and trace view (totals, waterfall, span panel), as browser JavaScript.
 */
export const scriptTraces = `
var el = V.el;
var FILTERS = ["q", "status", "type", "user", "thread", "tag", "environment", "evals", "from", "to"];
var facets = null;

function filterBar(query) {
  var inputs = {};
  var apply = function () {
    var q = {};
    FILTERS.forEach(function (k) { if (inputs[k].value) q[k] = inputs[k].value; });
    location.hash = V.link(["traces"], q);
  };
  var select = function (k, label, values) {
    var s = el("select", { id: "f-" + k, onchange: apply }, [el("option", { value: "", text: label })].concat(values.map(function (v) { return el("option", { value: v, text: v }); })));
    s.value = query.get(k) || "";
    return inputs[k] = s;
  };
  var text = function (k, ph, type, list) {
    var i = el("input", { id: "f-" + k, type: type || "text", placeholder: ph, list: list, onchange: apply });
    i.value = query.get(k) || "";
    return inputs[k] = i;
  };
  var f = facets || { users: [], tags: [], environments: [], types: [] };
  var search = text("q", "search name, input, output, ids  ( / )", "search");
  search.onkeydown = function (e) { if (e.key === "Enter") apply(); };
  return el("div", { "class": "filters" }, [
    search,
    select("status", "any status", ["SUCCESS", "ERRORED"]),
    select("type", "any span type", f.types),
    select("evals", "any evaluation", ["failed", "passed", "any"]),
    select("environment", "any environment", f.environments),
    text("user", "user", "text", "users"), text("thread", "thread"), text("tag", "tag", "text", "tags"),
    el("span", { "class": "muted small", text: "from" }), text("from", "", "datetime-local"),
    el("span", { "class": "muted small", text: "to" }), text("to", "", "datetime-local"),
    el("datalist", { id: "users" }, f.users.map(function (u) { return el("option", { value: u }); })),
    el("datalist", { id: "tags" }, f.tags.map(function (u) { return el("option", { value: u }); })),
    el("button", { text: "clear", onclick: function () { location.hash = "#/traces"; } })
  ]);
}

function listQuery(query) {
  var p = new URLSearchParams();
  FILTERS.forEach(function (k) {
    var v = query.get(k);
    if (v) p.set(k, (k === "from" || k === "to") ? new Date(v).toISOString() : v);
  });
  p.set("limit", query.get("limit") || "50");
  if (query.get("cursor")) p.set("cursor", query.get("cursor"));
  return p.toString();
}

function traceRow(t, query) {
  var open = function () { location.hash = V.link(["traces", t.uuid]); };
  return el("tr", { "class": "item", "data-uuid": t.uuid, "data-nav": "open", onclick: open }, [
    el("td", { "class": "mono small", text: V.time(t.startTime) }),
    el("td", { "class": "clip", title: t.uuid }, [el("span", { text: t.name || t.uuid })]),
    el("td", { "class": "num", text: V.dur(t.durationMillis) }),
    el("td", { "class": "num", text: String(t.spanCount) }),
    el("td", { "class": "num", text: t.inputTokens + t.outputTokens ? V.num(t.inputTokens) + " / " + V.num(t.outputTokens) : "—" }),
    el("td", { "class": "num", text: V.usd(t.costUsd) }),
    el("td", {}, [V.statusPill(t.status)]),
    el("td", {}, [V.evalPill(t.evals)]),
    el("td", { "class": "clip" }, [t.threadId ? el("a", { href: V.link(["threads", t.threadId]), text: t.threadId, onclick: function (e) { e.stopPropagation(); } }) : null]),
    el("td", { "class": "clip", title: t.userId || "", text: t.userId || "" }),
    el("td", { "class": "clip" }, V.tags(t.tags, 8, t.tagCount))
  ]);
}

function renderList(query) {
  var loadFacets = facets ? Promise.resolve() : V.json("/_dev/view/facets").then(function (f) { facets = f; });
  var draw = function () {
    return V.get("/_dev/view/traces?" + listQuery(query)).then(function (res) {
      var page = res.body;
      var head = el("tr", {}, ["Start", "Name", "Duration", "Spans", "Tokens in / out", "Cost", "Status", "Evals", "Thread", "User", "Tags"].map(function (h, i) {
        return el("th", { "class": i >= 2 && i <= 5 ? "num" : "", text: h });
      }));
      var rows = page.rows.map(function (t) { return traceRow(t, query); });
      var cursors = (query.get("prev") || "").split(",").filter(Boolean);
      var here = {}; query.forEach(function (v, k) { here[k] = v; });
      var newer = cursors.length ? function () { var q = Object.assign({}, here); q.cursor = cursors[cursors.length - 1] === "0" ? "" : cursors[cursors.length - 1]; q.prev = cursors.slice(0, -1).join(","); location.hash = V.link(["traces"], q); } : null;
      var older = res.next ? function () { var q = Object.assign({}, here); q.prev = cursors.concat([query.get("cursor") || "0"]).join(","); q.cursor = res.next; location.hash = V.link(["traces"], q); } : null;
      var filtered = FILTERS.some(function (k) { return query.get(k); });
      V.show([
        filterBar(query),
        page.rows.length ? el("table", { id: "traces" }, [el("thead", {}, [head]), el("tbody", {}, rows)])
          : el("div", { "class": "empty", text: filtered ? "No trace matches these filters." : "No traces yet. Send some to this emulator." }),
        el("div", { "class": "pager" }, [
          el("button", { id: "newer", text: "← newer", disabled: !newer, onclick: newer }),
          el("button", { id: "older", text: "older →", disabled: !older, onclick: older }),
          el("span", { "class": "muted small", id: "page-info", text: page.rows.length + " shown · " + V.num(page.total) + " stored · " + V.num(page.scanned) + " looked at in " + page.tookMillis + " ms" }),
          el("span", { "class": "muted small", text: "  keys: j/k move · enter open · / search · esc back" })
        ])
      ]);
    });
  };
  // Live: only the first page follows new traces; an older page stays put.
  V.onChange = query.get("cursor") ? null : function () { draw(); };
  return loadFacets.then(draw);
}

// The spans in waterfall order (depth first, siblings by start) with their depth. Iterative: a
// chain of any depth (100,000 spans, each the child of the last) cannot overflow the stack. A
// span no root reaches (a cycle of parents, a span its own parent) is listed at depth 0 after.
function tree(spans) {
  var byParent = Object.create(null), ids = Object.create(null), at = Object.create(null), seen = Object.create(null);
  spans.forEach(function (s) { ids[s.uuid] = true; at[s.uuid] = V.micros(s.startTime); });
  spans.forEach(function (s) { var p = s.parentUuid && ids[s.parentUuid] ? s.parentUuid : ""; (byParent[p] = byParent[p] || []).push(s); });
  var out = [], stack = [];
  var push = function (parent, depth) {
    var kids = byParent[parent];
    if (!kids) return;
    kids.sort(function (a, b) { return at[a.uuid] - at[b.uuid]; });
    for (var i = kids.length - 1; i >= 0; i--) stack.push({ span: kids[i], depth: depth });
  };
  var drain = function () {
    while (stack.length) {
      var top = stack.pop();
      if (seen[top.span.uuid]) continue;
      seen[top.span.uuid] = true;
      out.push(top);
      push(top.span.uuid, top.depth + 1);
    }
  };
  push("", 0);
  drain();
  spans.forEach(function (s) { if (!seen[s.uuid]) { stack.push({ span: s, depth: 0 }); drain(); } });
  return out;
}

function spanCost(s) {
  var i = s.inputTokenCount || 0, o = s.outputTokenCount || 0;
  return (i || o) && typeof s.costPerInputToken === "number" ? i * s.costPerInputToken + o * (s.costPerOutputToken || 0) : null;
}

var SPAN_FIELDS = ["model", "provider", "embedder", "topK", "chunkSize", "description", "availableTools", "agentHandoffs", "integration",
  "promptAlias", "promptVersion", "promptCommitHash", "metadata"];
var TEST_FIELDS = ["expectedOutput", "retrievalContext", "context", "toolsCalled", "expectedTools"];

// A streamed llm span's timings, in its metadata (the integrations' keys).
var TTFT_KEY = ${JSON.stringify(TIME_TO_FIRST_TOKEN_KEY)}, TPS_KEY = ${JSON.stringify(TOKENS_PER_SECOND_KEY)};
function streamTimings(s) {
  var m = s.metadata || {};
  var ttft = typeof m[TTFT_KEY] === "number" ? m[TTFT_KEY] : null, tps = typeof m[TPS_KEY] === "number" ? m[TPS_KEY] : null;
  if (ttft === null && tps === null) return null;
  return el("div", { "class": "totals", id: "span-timings" }, [
    el("div", {}, [el("b", { text: V.dur(ttft) }), el("span", { text: "time to first token" })]),
    el("div", {}, [el("b", { text: tps === null ? "—" : tps.toFixed(tps < 10 ? 1 : 0) }), el("span", { text: "tokens / second" })])
  ]);
}

function spanPanel(trace, s) {
  var d = (V.micros(s.endTime) - V.micros(s.startTime)) / 1000;
  var jobs = (trace.jobs || []).filter(function (j) { return j.targetId === s.uuid; });
  var tokens = s.inputTokenCount !== undefined || s.outputTokenCount !== undefined;
  var cost = spanCost(s);
  var parts = [
    el("h2", {}, [el("span", { "class": "type t-" + s.type, text: s.type }), document.createTextNode(s.name), V.copyButton(function () { return s.uuid; }, "copy id")]),
    el("div", { "class": "muted small", text: V.time(s.startTime) + " · " + V.dur(d) + " · " + (s.status === "ERRORED" ? "ERRORED" : "OK") }),
    s.error ? el("div", { "class": "box errored", id: "span-error" }, [el("pre", { text: s.error })]) : null,
    tokens ? el("div", { "class": "totals" }, [
      el("div", {}, [el("b", { text: V.num(s.inputTokenCount) }), el("span", { text: "input tokens" })]),
      el("div", {}, [el("b", { text: V.num(s.outputTokenCount) }), el("span", { text: "output tokens" })]),
      el("div", {}, [el("b", { text: cost !== null ? V.usd(cost) : "—" }), el("span", { text: cost !== null ? "cost (costPer* fields)" : "cost (see trace totals)" })])
    ]) : null,
    s.type === "llm" ? streamTimings(s) : null,
    V.badges(jobs),
    s.input !== undefined ? el("h3", {}, ["Input", V.copyButton(function () { return typeof s.input === "string" ? s.input : JSON.stringify(s.input, null, 2); })]) : null,
    s.input !== undefined ? el("div", { id: "span-input" }, [V.value(s.input)]) : null,
    s.output !== undefined ? el("h3", {}, ["Output", V.copyButton(function () { return typeof s.output === "string" ? s.output : JSON.stringify(s.output, null, 2); })]) : null,
    s.output !== undefined ? el("div", { id: "span-output" }, [V.value(s.output)]) : null,
    V.kv(s, SPAN_FIELDS) ? el("h3", { text: "Attributes" }) : null, V.kv(s, SPAN_FIELDS),
    s.metricCollection || s.llmTestCase ? el("h3", { text: "Test case · metric collection " + (s.metricCollection || "—") }) : null,
    s.llmTestCase ? V.kv(s.llmTestCase, Object.keys(s.llmTestCase)) : null,
    V.kv(s, TEST_FIELDS)
  ];
  return el("div", { "class": "panel", id: "span-panel" }, parts);
}

function renderTrace(uuid, spanUuid) {
  return V.json("/_dev/traces/" + encodeURIComponent(uuid)).then(function (trace) {
    return V.json("/_dev/view/traces/" + encodeURIComponent(uuid)).then(function (row) { drawTrace(trace, row, spanUuid); });
  });
}

// The waterfall draws this many rows at a time ("show more"); indentation stops growing at MAX_INDENT.
var WATERFALL_PAGE = 500, MAX_INDENT = 40;
function drawTrace(trace, row, spanUuid) {
  var start = V.micros(trace.startTime), end = V.micros(trace.endTime);
  var bySpan = Object.create(null);
  trace.spans.forEach(function (s) { bySpan[s.uuid] = s; start = Math.min(start, V.micros(s.startTime)); end = Math.max(end, V.micros(s.endTime)); });
  var total = Math.max(end - start, 1);
  var current = spanUuid && bySpan[spanUuid] ? spanUuid : undefined;
  var order = tree(trace.spans);
  var spanRow = function (r) {
    var s = r.span, errored = s.status === "ERRORED";
    var from = V.micros(s.startTime), to = V.micros(s.endTime);
    var left = (from - start) / total * 100;
    var width = Math.max((to - from) / total * 100, 0.3);
    return el("div", { "class": "row" + (current === s.uuid ? " selected" : ""), "data-span": s.uuid, "data-depth": String(r.depth), "data-type": s.type,
      "data-errored": String(errored), "data-nav": "select", onclick: function () { select(s.uuid); } }, [
      el("div", { "class": "label", style: "padding-left:" + (6 + Math.min(r.depth, MAX_INDENT) * 16) + "px" }, [
        r.depth > MAX_INDENT ? el("span", { "class": "muted small", text: "↳" + r.depth + " " }) : null,
        el("span", { "class": "type t-" + s.type, text: s.type }), document.createTextNode(s.name),
        errored ? el("span", { "class": "err-mark", title: s.error || "error", text: "!" }) : null]),
      el("div", { "class": "track" }, [el("div", { "class": "bar b-" + s.type + (errored ? " error" : ""), style: "left:" + left + "%;width:" + width + "%" })]),
      el("div", { "class": "dur", text: V.dur((to - from) / 1000) })
    ]);
  };
  var waterfall = V.paged(el("div", { "class": "waterfall", id: "waterfall" }), order.length, function (i) { return spanRow(order[i]); }, WATERFALL_PAGE, "spans");
  var r = row || { inputTokens: 0, outputTokens: 0, costUsd: null, status: trace.status };
  var traceJobs = (trace.jobs || []).filter(function (j) { return j.targetId === trace.uuid; });
  var back = el("a", { href: "#/traces", "data-back": current ? V.link(["traces", trace.uuid]) : "#/traces", text: "← traces" });
  var head = el("div", {}, [
    el("div", { "class": "small" }, [back]),
    el("h2", {}, [document.createTextNode(trace.name || trace.uuid), " ", V.statusPill(r.status), V.copyButton(function () { return trace.uuid; }, "copy id")]),
    V.paged(el("div", { "class": "muted small", id: "trace-meta" }, [trace.uuid + " · " + V.time(trace.startTime),
      trace.threadId ? el("span", {}, [" · thread ", el("a", { href: V.link(["threads", trace.threadId]), text: trace.threadId })]) : null,
      trace.userId ? " · user " + trace.userId : null, trace.environment ? " · " + trace.environment : null]),
      (trace.tags || []).length, function (i) { return el("span", { "class": "pill tag", text: trace.tags[i] }); }, 50, "tags"),
    el("div", { "class": "totals", id: "trace-totals" }, [
      el("div", {}, [el("b", { text: V.dur((end - start) / 1000) }), el("span", { text: "latency" })]),
      el("div", {}, [el("b", { text: String(trace.spans.length) }), el("span", { text: "spans" })]),
      el("div", {}, [el("b", { text: V.num(r.inputTokens) + " / " + V.num(r.outputTokens) }), el("span", { text: "tokens in / out" })]),
      el("div", {}, [el("b", { text: V.usd(r.costUsd) }), el("span", { text: "cost (model prices or costPer*)" })])
    ]),
    V.badges(traceJobs)
  ]);
  var panel = function () { return current ? spanPanel(trace, bySpan[current]) : el("div", { "class": "panel muted", text: "Select a span (click, or j/k)." }); };
  var slot = el("div", { id: "span-slot" }, [panel()]);
  // Selecting a span redraws only the panel and two rows' marks, not the waterfall.
  function select(uuid) {
    current = uuid;
    history.replaceState(null, "", V.link(["traces", trace.uuid, uuid]));
    waterfall.querySelectorAll(".row.selected").forEach(function (e) { e.classList.remove("selected"); });
    var picked = waterfall.querySelector('[data-span="' + CSS.escape(uuid) + '"]');
    if (picked) picked.classList.add("selected");
    slot.replaceChildren(panel());
    back.setAttribute("data-back", V.link(["traces", trace.uuid]));
  }
  var left = el("div", {}, [waterfall,
    el("div", { "class": "box", id: "trace-fields" }, [el("h3", { text: "Trace" }), V.kv(trace, ["input", "output", "metadata", "metricCollection", "llmTestCase"])])]);
  V.show([head, el("div", { "class": "split" }, [left, slot])]);
  V.onChange = function (ev) { if (ev.changed.indexOf(trace.uuid) >= 0) renderTrace(trace.uuid, current); };
}

V.views.push({ name: "traces", render: function (parts, query) {
  if (parts[0]) return renderTrace(parts[0], parts[1]);
  return renderList(query);
} });
`;

/**
 * The trace viewer the emulator serves at its root: one self-contained page (no build step, no
 * UI framework), reading the emulator's read API. Traces newest first; per trace a waterfall of
 * its spans (indented by parentUuid, bars by startTime/endTime, coloured by type, errors marked)
 * and a panel with the selected span's fields; threads as conversations. It polls
 * `/_dev/version` and refreshes when something was stored.
 */
export const viewerHtml = String.raw`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>evaltrace dev</title>
<style>
  :root { --bg:#0f1115; --panel:#171a21; --line:#262b36; --text:#e6e8ee; --muted:#8b93a7; --accent:#7aa2ff;
          --base:#8b93a7; --llm:#b48cff; --retriever:#4fc3a1; --agent:#7aa2ff; --tool:#f0b35a; --err:#ff6b6b; }
  * { box-sizing: border-box; }
  body { margin:0; font:13px/1.45 system-ui, -apple-system, Segoe UI, sans-serif; background:var(--bg); color:var(--text); }
  header { display:flex; gap:16px; align-items:center; padding:10px 16px; border-bottom:1px solid var(--line); }
  header h1 { font-size:15px; margin:0; }
  header a { color:var(--muted); text-decoration:none; }
  header a.active { color:var(--text); }
  #status { margin-left:auto; color:var(--muted); }
  main { display:grid; grid-template-columns: 420px 1fr; height: calc(100vh - 43px); }
  #list { border-right:1px solid var(--line); overflow:auto; }
  #detail { overflow:auto; padding:12px 16px; }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:6px 10px; border-bottom:1px solid var(--line); white-space:nowrap; overflow:hidden; text-overflow:ellipsis; max-width:160px; }
  th { color:var(--muted); font-weight:500; position:sticky; top:0; background:var(--bg); }
  tr.trace { cursor:pointer; }
  tr.trace:hover, tr.trace.selected { background:var(--panel); }
  .pill { display:inline-block; padding:0 6px; border-radius:8px; font-size:11px; }
  .ok { background:#1e3a2d; color:#6fdc9b; } .errored { background:#4a1f24; color:var(--err); }
  .muted { color:var(--muted); }
  .waterfall { margin-top:8px; }
  .row { display:grid; grid-template-columns: 340px 1fr 70px; align-items:center; height:26px; cursor:pointer; border-radius:4px; }
  .row:hover, .row.selected { background:var(--panel); }
  .label { white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
  .type { font-size:10px; text-transform:uppercase; margin-right:6px; font-weight:600; }
  .track { position:relative; height:12px; }
  .bar { position:absolute; height:12px; border-radius:3px; min-width:2px; }
  .bar.error { outline:2px solid var(--err); }
  .dur { text-align:right; color:var(--muted); }
  .t-base { color:var(--base); } .b-base { background:var(--base); }
  .t-llm { color:var(--llm); } .b-llm { background:var(--llm); }
  .t-retriever { color:var(--retriever); } .b-retriever { background:var(--retriever); }
  .t-agent { color:var(--agent); } .b-agent { background:var(--agent); }
  .t-tool { color:var(--tool); } .b-tool { background:var(--tool); }
  .err-mark { color:var(--err); font-weight:700; margin-left:4px; }
  .fields { margin-top:14px; background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:10px 12px; }
  .fields h3 { margin:0 0 8px; font-size:13px; }
  .kv { display:grid; grid-template-columns: 160px 1fr; gap:4px 12px; }
  .kv div:nth-child(odd) { color:var(--muted); }
  pre { margin:0; white-space:pre-wrap; word-break:break-word; font:12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
  .bubble { max-width:70%; padding:8px 12px; border-radius:10px; margin:6px 0; }
  .user { background:#23304d; margin-right:auto; } .assistant { background:#263a2f; margin-left:auto; }
  .empty { color:var(--muted); padding:24px; }
</style>
</head>
<body>
<header>
  <h1>evaltrace dev</h1>
  <a href="#/" id="nav-traces">Traces</a>
  <a href="#/threads" id="nav-threads">Threads</a>
  <span id="status">connecting...</span>
</header>
<main>
  <section id="list"></section>
  <section id="detail"><div class="empty">Select a trace.</div></section>
</main>
<script>
(function () {
  var version = -1;
  var selectedSpan = null;
  var current = null;

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "onclick") e.onclick = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function micros(iso) {
    if (!iso) return 0;
    var m = /\.(\d+)/.exec(iso);
    var frac = m ? Number((m[1] + "000000").slice(0, 6)) : 0;
    return Date.parse(iso.replace(/\.\d+/, "")) * 1000 + frac;
  }
  function ms(us) { return us >= 1000 ? (us / 1000).toFixed(1) + " ms" : us + " µs"; }
  function getJson(path) { return fetch(path).then(function (r) { return r.json(); }); }
  function text(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function route() { return location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent); }

  function renderList(traces) {
    var list = document.getElementById("list");
    var parts = route();
    var rows = traces.map(function (t) {
      var dur = micros(t.endTime) - micros(t.startTime);
      var errored = t.status === "ERRORED";
      return el("tr", { "class": "trace" + (parts[0] === "traces" && parts[1] === t.uuid ? " selected" : ""), "data-uuid": t.uuid,
        onclick: function () { location.hash = "#/traces/" + encodeURIComponent(t.uuid); } }, [
        el("td", { text: t.name || t.uuid, title: t.uuid }),
        el("td", { text: ms(dur) }),
        el("td", { text: String(t.spanCount) }),
        el("td", {}, [el("span", { "class": "pill " + (errored ? "errored" : "ok"), text: errored ? "ERRORED" : "OK" })]),
        el("td", { text: t.threadId || "", "class": "muted" }),
        el("td", { text: t.userId || "", "class": "muted" })
      ]);
    });
    var head = el("tr", {}, ["Name", "Duration", "Spans", "Status", "Thread", "User"].map(function (h) { return el("th", { text: h }); }));
    list.replaceChildren(traces.length ? el("table", { id: "traces" }, [el("thead", {}, [head]), el("tbody", {}, rows)]) : el("div", { "class": "empty", text: "No traces yet. Send some to this emulator." }));
  }

  function tree(spans) {
    var byParent = Object.create(null);
    var ids = Object.create(null);
    spans.forEach(function (s) { ids[s.uuid] = true; });
    spans.forEach(function (s) {
      var p = s.parentUuid && ids[s.parentUuid] ? s.parentUuid : "";
      (byParent[p] = byParent[p] || []).push(s);
    });
    var out = [];
    (function walk(parent, depth) {
      (byParent[parent] || []).sort(function (a, b) { return micros(a.startTime) - micros(b.startTime); }).forEach(function (s) {
        out.push({ span: s, depth: depth });
        walk(s.uuid, depth + 1);
      });
    })("", 0);
    return out;
  }

  function fieldRows(obj, keys) {
    var cells = [];
    keys.forEach(function (k) {
      if (obj[k] === undefined || obj[k] === null) return;
      cells.push(el("div", { text: k }));
      cells.push(el("div", {}, [el("pre", { text: text(obj[k]) })]));
    });
    return el("div", { "class": "kv" }, cells);
  }

  function renderSpanPanel(trace, span) {
    var jobs = (trace.jobs || []).filter(function (j) { return j.targetId === span.uuid; });
    var keys = ["uuid", "type", "status", "error", "parentUuid", "startTime", "endTime", "input", "output", "model", "provider",
      "inputTokenCount", "outputTokenCount", "costPerInputToken", "costPerOutputToken", "embedder", "topK", "chunkSize",
      "availableTools", "agentHandoffs", "description", "metadata", "metricCollection", "llmTestCase", "expectedOutput",
      "retrievalContext", "context", "toolsCalled", "expectedTools", "integration"];
    var panel = el("div", { "class": "fields", id: "span-panel" }, [el("h3", { text: span.name }), fieldRows(span, keys)]);
    if (jobs.length) {
      panel.appendChild(el("h3", { text: "Evaluation jobs" }));
      jobs.forEach(function (j) { panel.appendChild(fieldRows(j, ["trigger", "metricCollection", "status", "message", "results"])); });
    }
    return panel;
  }

  function renderTrace(trace) {
    var detail = document.getElementById("detail");
    var start = micros(trace.startTime);
    var end = micros(trace.endTime);
    trace.spans.forEach(function (s) { end = Math.max(end, micros(s.endTime)); });
    var total = Math.max(end - start, 1);
    var rows = tree(trace.spans).map(function (r) {
      var s = r.span;
      var left = (micros(s.startTime) - start) / total * 100;
      var width = Math.max((micros(s.endTime) - micros(s.startTime)) / total * 100, 0.3);
      var errored = s.status === "ERRORED";
      var row = el("div", { "class": "row" + (selectedSpan === s.uuid ? " selected" : ""), "data-span": s.uuid, "data-depth": String(r.depth),
        "data-type": s.type, "data-errored": String(errored), onclick: function () { selectedSpan = s.uuid; renderTrace(trace); } }, [
        el("div", { "class": "label", style: "padding-left:" + (8 + r.depth * 18) + "px" }, [
          el("span", { "class": "type t-" + s.type, text: s.type }), document.createTextNode(s.name),
          errored ? el("span", { "class": "err-mark", title: s.error || "error", text: "!" }) : null
        ]),
        el("div", { "class": "track" }, [el("div", { "class": "bar b-" + s.type + (errored ? " error" : ""), style: "left:" + left + "%;width:" + width + "%" })]),
        el("div", { "class": "dur", text: ms(micros(s.endTime) - micros(s.startTime)) })
      ]);
      return row;
    });
    var traceJobs = (trace.jobs || []).filter(function (j) { return j.targetId === trace.uuid; });
    var header = el("div", {}, [
      el("h2", { text: trace.name || trace.uuid, style: "margin:4px 0;font-size:16px" }),
      el("div", { "class": "muted", text: trace.uuid + " · " + ms(end - start) + " · " + trace.spans.length + " spans" +
        (trace.threadId ? " · thread " : "") }, []),
    ]);
    if (trace.threadId) header.lastChild.appendChild(el("a", { href: "#/threads/" + encodeURIComponent(trace.threadId), text: trace.threadId, style: "color:var(--accent)" }));
    var children = [header, el("div", { "class": "waterfall", id: "waterfall" }, rows)];
    var span = trace.spans.filter(function (s) { return s.uuid === selectedSpan; })[0];
    if (span) children.push(renderSpanPanel(trace, span));
    var tf = el("div", { "class": "fields" }, [el("h3", { text: "Trace" }), fieldRows(trace, ["input", "output", "environment", "userId", "tags", "metadata", "metricCollection", "llmTestCase", "status"])]);
    traceJobs.forEach(function (j) { tf.appendChild(fieldRows(j, ["trigger", "metricCollection", "status", "message", "results"])); });
    children.push(tf);
    detail.replaceChildren.apply(detail, children);
  }

  function renderThread(id, traces) {
    var detail = document.getElementById("detail");
    var turns = traces.slice().sort(function (a, b) { return micros(a.startTime) - micros(b.startTime); });
    var items = [el("h2", { text: "Thread " + id, style: "margin:4px 0;font-size:16px" })];
    turns.forEach(function (t) {
      if (t.input !== undefined) items.push(el("div", { "class": "bubble user" }, [el("pre", { text: text(t.input) })]));
      if (t.output !== undefined) items.push(el("div", { "class": "bubble assistant" }, [el("pre", { text: text(t.output) }),
        el("a", { href: "#/traces/" + encodeURIComponent(t.uuid), text: "trace →", style: "color:var(--accent);font-size:11px" })]));
    });
    detail.replaceChildren.apply(detail, [el("div", { id: "conversation" }, items)]);
  }

  function renderThreads(threads) {
    var list = document.getElementById("list");
    var ids = Object.keys(threads);
    var rows = ids.map(function (id) {
      return el("tr", { "class": "trace", onclick: function () { location.hash = "#/threads/" + encodeURIComponent(id); } },
        [el("td", { text: id }), el("td", { text: threads[id].length + " traces" })]);
    });
    list.replaceChildren(ids.length ? el("table", {}, [el("tbody", {}, rows)]) : el("div", { "class": "empty", text: "No threads yet." }));
  }

  function refresh() {
    var parts = route();
    document.getElementById("nav-traces").className = parts[0] === "threads" ? "" : "active";
    document.getElementById("nav-threads").className = parts[0] === "threads" ? "active" : "";
    if (parts[0] === "threads") {
      return getJson("/_dev/threads").then(function (threads) {
        renderThreads(threads);
        if (parts[1]) return getJson("/_dev/threads/" + encodeURIComponent(parts[1])).then(function (ts) { renderThread(parts[1], ts); });
      });
    }
    return getJson("/_dev/traces?limit=500").then(function (traces) {
      renderList(traces);
      if (parts[0] === "traces" && parts[1]) {
        return getJson("/_dev/traces/" + encodeURIComponent(parts[1])).then(function (t) {
          if (current !== t.uuid) { selectedSpan = null; current = t.uuid; }
          renderTrace(t);
        });
      }
    });
  }

  function poll() {
    getJson("/_dev/version").then(function (v) {
      document.getElementById("status").textContent = "live · " + v.traces + " traces";
      if (v.version !== version) { version = v.version; return refresh(); }
    }).catch(function () {
      document.getElementById("status").textContent = "emulator not reachable";
    }).then(function () { setTimeout(poll, 1000); });
  }

  window.addEventListener("hashchange", function () { refresh(); });
  poll();
})();
</script>
</body>
</html>
`;

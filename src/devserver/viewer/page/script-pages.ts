/**
 * The viewer's pages for what the CLI and client link to: prompts (commits per branch, a diff
 * of each commit against its parent), datasets (goldens per version), test runs (cases and
 * scores) and metrics with their collections (browser JavaScript).
 */
export const scriptPages = String.raw`
var el = V.el;
function table(id, headers, rows) {
  return el("table", { id: id }, [el("thead", {}, [el("tr", {}, headers.map(function (h) { return el("th", { text: h }); }))]), el("tbody", {}, rows)]);
}
function listPage(title, id, headers, rows, empty) {
  V.show([el("h2", { text: title }), rows.length ? table(id, headers, rows) : el("div", { "class": "empty", text: empty })]);
}
function openRow(href, cells) {
  return el("tr", { "class": "item", "data-nav": "open", onclick: function () { location.hash = href; } }, cells.map(function (c) { return el("td", { text: String(c) }); }));
}
function promptText(content) {
  if (typeof content.text === "string") return content.text;
  if (Array.isArray(content.messages)) return content.messages.map(function (m) { return "[" + m.role + "] " + V.contentText(m.content); }).join("\n");
  return JSON.stringify(content, null, 2);
}
// A line diff: the common head and tail, then a longest common subsequence of the lines between
// (in a flat table) when it has at most DIFF_CELLS cells; beyond that (a 36,000-line prompt
// rewritten) the middle is shown as removed then added, with a note. Lines are drawn a page at a time.
var DIFF_CELLS = 4000000, DIFF_PAGE = 1000;
function diff(a, b) {
  var x = a.split("\n"), y = b.split("\n"), lines = [], note = null, i, j;
  var head = 0, tail = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  var xs = x.slice(head, x.length - tail), ys = y.slice(head, y.length - tail), n = xs.length, m = ys.length, w = m + 1;
  for (i = 0; i < head; i++) lines.push([null, "  " + x[i]]);
  if ((n + 1) * (m + 1) > DIFF_CELLS) {
    note = el("div", { "class": "muted small", id: "diff-too-large", text: "The changed part is too large for a line-by-line diff (" + V.num(n) + " lines against " + V.num(m) + "): shown as removed, then added." });
    xs.forEach(function (l) { lines.push(["del", "- " + l]); });
    ys.forEach(function (l) { lines.push(["add", "+ " + l]); });
  } else {
    var L = new Int32Array((n + 1) * w);
    for (i = n - 1; i >= 0; i--) for (j = m - 1; j >= 0; j--) L[i * w + j] = xs[i] === ys[j] ? L[(i + 1) * w + j + 1] + 1 : Math.max(L[(i + 1) * w + j], L[i * w + j + 1]);
    i = 0; j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && xs[i] === ys[j]) { lines.push([null, "  " + xs[i]]); i++; j++; }
      else if (j < m && (i === n || L[i * w + j + 1] >= L[(i + 1) * w + j])) { lines.push(["add", "+ " + ys[j]]); j++; }
      else { lines.push(["del", "- " + xs[i]]); i++; }
    }
  }
  for (i = x.length - tail; i < x.length; i++) lines.push([null, "  " + x[i]]);
  var box = V.paged(el("div", { "class": "diff mono" }), lines.length, function (k) { return el("div", { "class": lines[k][0], text: lines[k][1] }); }, DIFF_PAGE, "lines");
  return note ? el("div", {}, [note, box]) : box;
}
function renderPrompt(alias, query) {
  return V.json("/_dev/prompts").then(function (prompts) {
    var p = prompts[alias];
    if (!p) return V.show([el("div", { "class": "empty", text: "No prompt " + alias + "." })]);
    var branches = Object.keys(p.branches);
    var branch = query.get("branch") || (branches.indexOf("main") >= 0 ? "main" : branches[0]);
    var hashes = (p.branches[branch] || []).slice().reverse();
    var items = hashes.map(function (h) {
      var c = p.commits[h], parent = c.parent ? p.commits[c.parent] : null;
      return el("div", { "class": "box", "data-commit": h }, [
        el("div", {}, [el("b", { "class": "mono", text: h }), el("span", { "class": "muted small", text: "  " + V.time(c.createdAt) + (c.parent ? " · parent " + c.parent : " · first commit") }), V.copyButton(function () { return promptText(c.content); })]),
        parent ? diff(promptText(parent.content), promptText(c.content)) : V.text(promptText(c.content)),
        el("details", { "class": "j" }, [el("summary", { text: "commit content" }), V.tree(c.content)])
      ]);
    });
    V.show([
      el("div", { "class": "small" }, [el("a", { href: "#/prompts", "data-back": "#/prompts", text: "← prompts" })]),
      el("h2", { text: "Prompt " + alias }),
      el("div", { "class": "filters" }, branches.map(function (b) { return el("a", { href: V.link(["prompts", alias], { branch: b }), "class": "pill " + (b === branch ? "ok" : "grey"), text: b + " (" + p.branches[b].length + ")" }); })),
      el("div", { id: "commits" }, items)
    ]);
  });
}
function renderDataset(alias, query) {
  return V.json("/_dev/datasets").then(function (all) {
    var d = all[alias];
    if (!d) return V.show([el("div", { "class": "empty", text: "No dataset " + alias + "." })]);
    var versions = ["unversioned"].concat(Object.keys(d.versions));
    var version = query.get("version") || (d.unversioned.length || !Object.keys(d.versions).length ? "unversioned" : versions[versions.length - 1]);
    var goldens = version === "unversioned" ? d.unversioned : d.versions[version] || [];
    var rows = goldens.map(function (g, i) {
      return el("tr", { "data-golden": String(i) }, [el("td", { text: String(i + 1) }), el("td", { "class": "clip", text: V.contentText(g.input !== undefined ? g.input : g.scenario) }),
        el("td", { "class": "clip", text: V.contentText(g.expectedOutput !== undefined ? g.expectedOutput : g.expectedOutcome) }), el("td", { text: g.finalized ? "yes" : "no" }),
        el("td", {}, [el("details", { "class": "j" }, [el("summary", { text: "all fields" }), V.tree(g)])])]);
    });
    V.show([
      el("div", { "class": "small" }, [el("a", { href: "#/datasets", "data-back": "#/datasets", text: "← datasets" })]),
      el("h2", { text: "Dataset " + alias + (d.multiTurn ? " (multi-turn)" : "") }),
      el("div", { "class": "filters" }, versions.map(function (v) { var n = v === "unversioned" ? d.unversioned.length : d.versions[v].length; return el("a", { href: V.link(["datasets", alias], { version: v }), "class": "pill " + (v === version ? "ok" : "grey"), text: v + " (" + n + ")" }); })),
      goldens.length ? table("goldens", ["#", d.multiTurn ? "Scenario" : "Input", d.multiTurn ? "Expected outcome" : "Expected output", "Finalized", ""], rows) : el("div", { "class": "empty", text: "No goldens in " + version + "." })
    ]);
  });
}
// A run's outcome for the list: cases whose every metric passed, of the cases judged, and the
// mean of the scores given ("not judged" without a judge).
function runOutcome(run) {
  var judged = 0, passed = 0, sum = 0, scores = 0;
  (run.results || []).forEach(function (res) {
    var ms = res.metricsData || [];
    if (!ms.length || ms.some(function (m) { return m.success === null || m.success === undefined; })) return;
    judged++;
    if (ms.every(function (m) { return m.success === true; })) passed++;
    ms.forEach(function (m) { if (typeof m.score === "number") { sum += m.score; scores++; } });
  });
  return {
    passed: judged ? passed + "/" + judged + " (" + Math.round(100 * passed / judged) + "%)" : "not judged",
    mean: scores ? (sum / scores).toFixed(2) : "—"
  };
}
// A case's trace: runExperiment names each case's trace after the run (its identifier), with
// the golden's input as the trace's input. The link searches the case's input and, once the
// search answers, points at the one trace of this run it found.
function caseKey(tc) {
  if (typeof tc.input === "string") return tc.input;
  var first = (tc.turns || [])[0];
  return first && typeof first.content === "string" ? first.content : "";
}
function caseTraceLink(run, tc, i) {
  var key = caseKey(tc);
  if (!key) return null;
  var a = el("a", { "class": "small case-trace", "data-case-trace": String(i), href: V.link(["traces"], { q: key.slice(0, 200) }), text: "  traces of this case →" });
  if (run.identifier) {
    V.json("/_dev/view/traces?" + new URLSearchParams({ q: key.slice(0, 200), limit: "50" }).toString()).then(function (page) {
      var hits = page.rows.filter(function (r) { return r.name === run.identifier; });
      if (hits.length === 1) { a.href = V.link(["traces", hits[0].uuid]); a.textContent = "  trace →"; a.setAttribute("data-trace", hits[0].uuid); }
    }, function () {});
  }
  return a;
}
function renderTestRun(id) {
  return V.json("/_dev/test-runs").then(function (runs) {
    var run = runs.filter(function (r) { return r.id === id; })[0];
    if (!run) return V.show([el("div", { "class": "empty", text: "No test run " + id + "." })]);
    var byCase = run.results || [];
    var cases = run.testCases.map(function (tc, i) {
      var res = byCase[i];
      return el("div", { "class": "box", "data-case": String(i) }, [el("b", { text: "Case " + (i + 1) }), caseTraceLink(run, tc, i), V.kv(tc, Object.keys(tc)),
        res ? V.badges([{ trigger: "test run", metricCollection: run.metricCollection, status: run.status, results: res.metricsData }]) : el("div", { "class": "badge none", text: run.message || run.status })]);
    });
    var earlier = runs.slice(0, runs.indexOf(run)).filter(function (r) { return r.metricCollection === run.metricCollection; }).pop();
    V.show([
      el("div", { "class": "small" }, [el("a", { href: "#/test-runs", "data-back": "#/test-runs", text: "← test runs" }),
        earlier ? el("a", { id: "compare-previous", href: V.link(["test-runs", "compare"], { base: earlier.id, head: run.id }), text: "  compare with the previous run of " + run.metricCollection + " →" }) : null]),
      el("h2", { text: "Test run " + (run.identifier || run.id) }),
      el("div", { "class": "muted small", text: run.id + " · " + V.time(run.createdAt) + " · collection " + run.metricCollection + " · " + run.status }),
      run.hyperparameters ? V.kv(run, ["hyperparameters"]) : null,
      el("div", { id: "cases" }, cases)
    ]);
  });
}
V.views.push({ name: "prompts", render: function (parts, query) {
  if (parts[0]) return renderPrompt(parts[0], query);
  return V.json("/_dev/prompts").then(function (ps) {
    listPage("Prompts", "prompts", ["Alias", "Branches", "Commits"], Object.keys(ps).map(function (a) { return openRow(V.link(["prompts", a]), [a, Object.keys(ps[a].branches).join(", "), Object.keys(ps[a].commits).length]); }), "No prompts yet (evaltrace push-prompt).");
  });
} });
V.views.push({ name: "datasets", render: function (parts, query) {
  if (parts[0]) return renderDataset(parts[0], query);
  return V.json("/_dev/datasets").then(function (ds) {
    listPage("Datasets", "datasets", ["Alias", "Kind", "Unversioned goldens", "Versions"], Object.keys(ds).map(function (a) { var d = ds[a]; return openRow(V.link(["datasets", a]), [a, d.multiTurn ? "multi-turn" : "single-turn", d.unversioned.length, Object.keys(d.versions).join(", ") || "—"]); }), "No datasets yet (evaltrace push-dataset).");
  });
} });
V.views.push({ name: "test-runs", render: function (parts, query) {
  if (parts[0] === "compare") return V.renderCompare(query);
  if (parts[0]) return renderTestRun(parts[0]);
  return V.json("/_dev/test-runs").then(function (runs) {
    listPage("Test runs", "test-runs", ["Run", "Collection", "Cases", "Passed", "Mean score", "Status", "Created"], runs.slice().reverse().map(function (r) { var o = runOutcome(r); return openRow(V.link(["test-runs", r.id]), [r.identifier || r.id, r.metricCollection, r.testCases.length, o.passed, o.mean, r.status, V.time(r.createdAt)]); }), "No test runs yet (POST /v1/evaluate).");
    if (runs.length > 1) V.main().insertBefore(V.comparePicker(runs, runs[runs.length - 2].id, runs[runs.length - 1].id), V.main().children[1]);
  });
} });
V.views.push({ name: "metrics", render: function () {
  return Promise.all([V.json("/_dev/metrics"), V.json("/_dev/metric-collections")]).then(function (r) {
    var metrics = r[0], collections = r[1];
    V.show([
      el("h2", { text: "Metric collections" }),
      collections.length ? table("collections", ["Name", "Kind", "Metrics (threshold)"], collections.map(function (c) {
        return el("tr", { "data-nav": "open", "class": "item" }, [el("td", { text: c.name }), el("td", { text: c.multiTurn ? "multi-turn" : "single-turn" }),
          el("td", {}, c.metricSettings.map(function (s) { return el("span", { "class": "pill " + (s.activated ? "ok" : "grey"), text: s.metric.name + " ≥ " + s.threshold + (s.strictMode ? " strict" : "") }); }))]);
      })) : el("div", { "class": "empty", text: "No metric collections yet." }),
      el("h2", { text: "Metrics" }),
      table("metrics", ["Name", "Kind", "Default", "Criteria"], metrics.map(function (m) {
        return el("tr", {}, [el("td", { text: m.name }), el("td", { text: m.multiTurn ? "multi-turn" : "single-turn" }), el("td", { text: m.isDefault ? "yes" : "" }), el("td", { "class": "clip", text: m.criteria || "" })]);
      }))
    ]);
  });
} });
`;

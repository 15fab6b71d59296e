/**
 * The viewer's test-run comparison (browser JavaScript): pick two test runs (the base and the
 * head, by default the two newest), see each metric's pass rate and mean score in both, and
 * the cases matched by name or input with each metric's score delta, regressions first. The
 * matching and ordering are the server's (`/_dev/view/compare`, `viewer/compare.ts`).
 */
export const scriptCompare = `
var el = V.el;
function runLabel(r) { return (r.identifier || r.id) + " · " + r.metricCollection + " · " + V.time(r.createdAt); }
// Two selects and a button: the base run and the head run to compare.
V.comparePicker = function (runs, base, head) {
  var newest = runs.slice().reverse();
  function select(id, chosen) {
    return el("select", { id: id }, newest.map(function (r) { var o = el("option", { value: r.id, text: runLabel(r) }); if (r.id === chosen) o.selected = true; return o; }));
  }
  var b = select("compare-base", base), h = select("compare-head", head);
  return el("div", { "class": "filters", id: "compare-picker" }, [
    el("span", { "class": "muted", text: "Compare" }), b, el("span", { "class": "muted", text: "with" }), h,
    el("button", { id: "compare-go", text: "Compare", onclick: function () { location.hash = V.link(["test-runs", "compare"], { base: b.value, head: h.value }); } })
  ]);
};
var CHANGE = { regressed: ["errored", "regressed"], improved: ["ok", "improved"], unchanged: ["grey", "unchanged"], added: ["tag", "added"], removed: ["tag", "removed"] };
function fmt(n) { return n === null || n === undefined ? "—" : n.toFixed(2); }
function signed(d) { return d === null || d === undefined ? "" : " (" + (d > 0 ? "+" : d < 0 ? "−" : "±") + Math.abs(d).toFixed(2) + ")"; }
function scoreText(s) { return s ? (s.score === null ? (s.error ? "error" : "—") : s.score.toFixed(2)) : "·"; }
function metricCell(m) {
  var cls = m.change === "regressed" ? "badge fail" : m.change === "improved" ? "badge pass" : "badge none";
  var tip = [m.base && (m.base.reason || m.base.error), m.head && (m.head.reason || m.head.error)].filter(Boolean).join("  →  ");
  return el("td", { "data-metric": m.metric }, [el("span", { "class": cls, title: tip, text: scoreText(m.base) + " → " + scoreText(m.head) + signed(m.delta) })]);
}
function rate(s) { return s.scored ? s.passed + "/" + s.scored + " passed · mean " + fmt(s.mean) : "not scored"; }
V.renderCompare = function (query) {
  return V.json("/_dev/test-runs").then(function (runs) {
    var newest = runs.slice().reverse();
    var head = query.get("head") || (newest[0] && newest[0].id);
    var base = query.get("base") || (newest[1] && newest[1].id);
    var top = [el("div", { "class": "small" }, [el("a", { href: "#/test-runs", "data-back": "#/test-runs", text: "← test runs" })]), el("h2", { text: "Compare test runs" })];
    if (!base || !head) return V.show(top.concat([el("div", { "class": "empty", text: "Two test runs are needed to compare (POST /v1/evaluate twice)." })]));
    return V.json("/_dev/view/compare?base=" + encodeURIComponent(base) + "&head=" + encodeURIComponent(head)).then(function (c) {
      var names = c.metrics.map(function (m) { return m.metric; });
      var counts = el("div", { "class": "filters", id: "compare-counts" }, ["regressed", "improved", "removed", "added", "unchanged"].map(function (k) {
        return el("span", { "class": "pill " + CHANGE[k][0], "data-count": k, text: c.counts[k] + " " + CHANGE[k][1] });
      }));
      var metrics = el("table", { id: "compare-metrics" }, [el("thead", {}, [el("tr", {}, ["Metric", "Base", "Head", "Mean Δ"].map(function (h) { return el("th", { text: h }); }))]),
        el("tbody", {}, c.metrics.map(function (m) {
          var d = m.base.mean !== null && m.head.mean !== null ? m.head.mean - m.base.mean : null;
          return el("tr", {}, [el("td", { text: m.metric }), el("td", { text: rate(m.base) }), el("td", { text: rate(m.head) }), el("td", { text: d === null ? "—" : signed(d).slice(2, -1) })]);
        }))]);
      var rows = c.cases.map(function (k) {
        var byName = {};
        k.metrics.forEach(function (m) { byName[m.metric] = m; });
        return el("tr", { "data-change": k.change, "data-key": k.key }, [
          el("td", {}, [el("span", { "class": "pill " + CHANGE[k.change][0], text: CHANGE[k.change][1] })]),
          el("td", { "class": "clip", title: k.key, text: k.key })
        ].concat(names.map(function (n) { return byName[n] ? metricCell(byName[n]) : el("td", { text: "" }); })).concat([
          el("td", {}, [el("details", { "class": "j" }, [el("summary", { text: "outputs" }), V.kv({ base: k.baseOutput, head: k.headOutput }, ["base", "head"])])])
        ]));
      });
      V.show(top.concat([
        V.comparePicker(runs, base, head),
        el("div", { "class": "muted small", text: "base " + runLabel(c.base) + " (" + c.base.cases + " cases, " + c.base.status + ")  →  head " + runLabel(c.head) + " (" + c.head.cases + " cases, " + c.head.status + ")" }),
        counts,
        metrics,
        el("h3", { text: "Cases, regressions first (matched by name, else by input)" }),
        rows.length ? el("table", { id: "compare-cases" }, [el("thead", {}, [el("tr", {}, ["Change", "Case"].concat(names).concat([""]).map(function (h) { return el("th", { text: h }); }))]), el("tbody", {}, rows)])
          : el("div", { "class": "empty", text: "Neither run has cases." })
      ]));
    });
  });
};
`;

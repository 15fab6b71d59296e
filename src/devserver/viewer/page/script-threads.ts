/** The viewer's threads: the list, and one thread as a conversation with its evaluations (browser JavaScript). */
export const scriptThreads = `
var el = V.el;
function renderThreads() {
  return V.json("/_dev/view/threads").then(function (threads) {
    var head = el("tr", {}, ["Thread", "Turns", "Errored", "User", "Last activity", "Evaluations"].map(function (h) { return el("th", { text: h }); }));
    var rows = threads.map(function (t) {
      return el("tr", { "class": "item", "data-nav": "open", "data-thread": t.id, onclick: function () { location.hash = V.link(["threads", t.id]); } }, [
        el("td", { text: t.id }), el("td", { text: String(t.turns) }),
        el("td", {}, [t.errored ? el("span", { "class": "pill errored", text: String(t.errored) }) : document.createTextNode("0")]),
        el("td", { text: t.userId || "" }), el("td", { "class": "mono small", text: V.time(t.lastActivity) }), el("td", { text: String(t.evaluations) })
      ]);
    });
    V.show([el("h2", { text: "Threads" }), threads.length ? el("table", { id: "threads" }, [el("thead", {}, [head]), el("tbody", {}, rows)]) : el("div", { "class": "empty", text: "No threads yet (set threadId with updateCurrentTrace)." })]);
    V.onChange = function () { renderThreads(); };
  });
}
function renderThread(id) {
  return V.json("/_dev/view/threads/" + encodeURIComponent(id)).then(function (t) {
    var items = [];
    t.turns.forEach(function (turn, i) {
      var link = el("a", { "class": "turn-link", href: V.link(["traces", turn.uuid]), text: "turn " + (i + 1) + " · " + V.time(turn.startTime) + " · trace →" });
      if (turn.input !== undefined) items.push(el("div", { "class": "bubble user", "data-turn": String(i) }, [V.value(turn.input)]));
      if (turn.status === "ERRORED") {
        items.push(el("div", { "class": "bubble failed", "data-turn": String(i), "data-nav": "open", onclick: function (e) { if (!V.onControl(e)) location.hash = V.link(["traces", turn.uuid]); } }, [
          el("b", { text: "✗ this turn failed" }), el("pre", { text: turn.error || "the trace is marked ERRORED" }), turn.output !== undefined ? V.value(turn.output) : null, link]));
      } else {
        items.push(el("div", { "class": "bubble assistant", "data-turn": String(i), "data-nav": "open", onclick: function (e) { if (!V.onControl(e)) location.hash = V.link(["traces", turn.uuid]); } }, [
          turn.output !== undefined ? V.value(turn.output) : el("span", { "class": "muted", text: "(no output)" }), link]));
      }
    });
    V.show([
      el("div", { "class": "small" }, [el("a", { href: "#/threads", "data-back": "#/threads", text: "← threads" })]),
      el("h2", { text: "Thread " + id }),
      el("div", { "class": "muted small", text: t.turns.length + " turns" + (t.turns[0] && t.turns[0].userId ? " · user " + t.turns[0].userId : "") }),
      t.jobs.length ? el("div", { id: "thread-evals" }, [el("h3", { text: "Thread evaluations" }), V.badges(t.jobs)]) : null,
      el("div", { id: "conversation" }, items)
    ]);
    V.onChange = function (ev) { if (t.turns.some(function (x) { return ev.changed.indexOf(x.uuid) >= 0; }) || ev.changed.length) renderThread(id); };
  });
}
V.views.push({ name: "threads", render: function (parts) { return parts[0] ? renderThread(parts[0]) : renderThreads(); } });
`;

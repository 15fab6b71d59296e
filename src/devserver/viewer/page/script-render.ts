/**
 * The viewer's value renderers (browser JavaScript): collapsible long text, a JSON tree for
 * objects, chat messages as a conversation (roles, tool calls, tool results), and evaluation
 * results as score badges with reasons.
 */
export const scriptRender = String.raw`
var el = V.el;
V.LONG = 600;
V.text = function (s) {
  var long = s.length > V.LONG || s.split("\n").length > 8;
  var pre = el("pre", { text: s });
  if (!long) return el("div", { "class": "long" }, [pre]);
  var box = el("div", { "class": "long folded" }, [pre]);
  var btn = el("button", { "class": "more", text: "show all (" + V.num(s.length) + " chars)", onclick: function () {
    var folded = box.classList.toggle("folded");
    btn.textContent = folded ? "show all (" + V.num(s.length) + " chars)" : "show less";
  } });
  box.appendChild(btn);
  return box;
};
// Appends make(0..count-1) to parent a page of size at a time, behind a "show more" button: a
// list of any length (spans, keys, tags, diff lines) costs one page until more is asked for.
V.paged = function (parent, count, make, size, label) {
  var shown = 0;
  var btn = el("button", { "class": "more", "data-show-more": label, onclick: function (ev) { ev.stopPropagation(); page(); } });
  var page = function () {
    var end = Math.min(count, shown + size), frag = document.createDocumentFragment();
    for (; shown < end; shown++) frag.appendChild(make(shown));
    parent.insertBefore(frag, btn.parentNode === parent ? btn : null);
    if (shown >= count) { btn.remove(); return; }
    btn.textContent = "show more (" + V.num(count - shown) + " more " + label + ")";
    if (btn.parentNode !== parent) parent.appendChild(btn);
  };
  page();
  return parent;
};
V.TREE_PAGE = 100;
V.tree = function (v, depth) {
  depth = depth || 0;
  if (v === null || typeof v !== "object") {
    var cls = typeof v === "string" ? "js" : typeof v === "number" ? "jn" : "jb";
    if (typeof v === "string" && (v.length > 120 || v.indexOf("\n") >= 0)) return V.text(v);
    return el("span", { "class": "mono " + cls, text: typeof v === "string" ? JSON.stringify(v) : String(v) });
  }
  var isArray = Array.isArray(v), keys = isArray ? null : Object.keys(v), n = isArray ? v.length : keys.length;
  if (n === 0) return el("span", { "class": "mono", text: isArray ? "[]" : "{}" });
  var d = el("details", { "class": "j" });
  d.appendChild(el("summary", { text: isArray ? "[" + n + " items]" : "{" + keys.slice(0, 4).join(", ") + (n > 4 ? ", …" : "") + "}" }));
  var filled = false;
  var fill = function () {
    if (filled) return;
    filled = true;
    V.paged(d, n, function (i) { var k = isArray ? i : keys[i]; return el("div", {}, [el("span", { "class": "mono jk", text: k + ": " }), V.tree(v[k], depth + 1)]); }, V.TREE_PAGE, isArray ? "items" : "keys");
  };
  // Members are drawn when a level is first opened (the top two are open): a value nested
  // 100,000 deep or 100,000 wide costs only what is looked at, and nothing recurses past it.
  if (depth < 2) { d.open = true; fill(); } else d.addEventListener("toggle", function () { if (d.open) fill(); });
  return d;
};
// Tags as pills: the first max, then how many more of count (a trace may carry 200,000; the list sends 20 and tagCount).
V.tags = function (tags, max, count) {
  var out = tags.slice(0, max).map(function (g) { return el("span", { "class": "pill tag", text: g }); });
  var more = Math.max(count || 0, tags.length) - Math.min(max, tags.length);
  if (more > 0) out.push(el("span", { "class": "pill grey", "data-more-tags": String(more), text: "+" + V.num(more) + " more" }));
  return out;
};
// A string holding a JSON object or list (as base spans often send) is shown as a tree.
V.value = function (v) {
  if (typeof v === "string") {
    var t = v.trim();
    if ((t[0] === "{" && t[t.length - 1] === "}") || (t[0] === "[" && t[t.length - 1] === "]")) {
      try { var parsed = JSON.parse(t); if (V.isMessages(parsed)) return V.conversation(parsed); return V.tree(parsed); } catch (e) {}
    }
    return V.text(v);
  }
  if (V.isMessages(v)) return V.conversation(v);
  return V.tree(v);
};
V.isMessages = function (v) {
  return Array.isArray(v) && v.length > 0 && v.every(function (m) { return m && typeof m === "object" && typeof m.role === "string"; });
};
V.contentText = function (c) {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map(function (p) { return p && typeof p === "object" ? (p.text || p.content || (p.type ? "[" + p.type + "]" : JSON.stringify(p))) : String(p); }).join("\n");
  return c === undefined || c === null ? "" : JSON.stringify(c, null, 2);
};
V.conversation = function (messages) {
  return el("div", { "class": "conversation" }, messages.map(function (m) {
    var role = m.role === "developer" ? "system" : m.role;
    var parts = [el("div", { "class": "role", text: m.role + (m.name ? " · " + m.name : "") + (m.tool_call_id || m.toolCallId ? " · result of " + (m.tool_call_id || m.toolCallId) : "") })];
    var text = V.contentText(m.content);
    if (text) parts.push(V.text(text));
    var calls = m.tool_calls || m.toolCalls || [];
    calls.forEach(function (c) {
      var fn = c.function || c;
      var args = fn.arguments !== undefined ? fn.arguments : fn.args !== undefined ? fn.args : fn.input;
      parts.push(el("div", { "class": "toolcall" }, [el("span", { "class": "mono t-tool", text: "→ " + (fn.name || "tool") + (c.id ? "  (" + c.id + ")" : "") }), V.value(args === undefined ? {} : args)]));
    });
    return el("div", { "class": "msg " + role, "data-role": m.role }, parts);
  }));
};
V.kv = function (obj, keys) {
  var cells = [];
  keys.forEach(function (k) {
    if (obj[k] === undefined || obj[k] === null || (Array.isArray(obj[k]) && obj[k].length === 0)) return;
    cells.push(el("div", { "class": "k", text: k }));
    cells.push(el("div", {}, [V.value(obj[k])]));
  });
  return cells.length ? el("div", { "class": "kv" }, cells) : null;
};
V.badges = function (jobs) {
  if (!jobs || !jobs.length) return null;
  var out = el("div", { "class": "evals" });
  jobs.forEach(function (j) {
    var head = el("div", { "class": "small muted", text: (j.trigger || "") + " evaluation · " + (j.metricCollection || "") + " · " + j.status });
    out.appendChild(head);
    var row = el("div", { "class": "badges" });
    (j.results || []).forEach(function (r) {
      var pass = r.success === true, unscored = typeof r.score !== "number";
      row.appendChild(el("div", { "class": "badge " + (unscored ? "none" : pass ? "pass" : "fail"), "data-metric": r.metric, title: "threshold " + r.threshold + (r.strictMode ? " (strict)" : "") }, [
        el("b", { text: (unscored ? "– " : pass ? "✓ " : "✗ ") + r.metric + " " }), document.createTextNode(unscored ? "no score" : r.score.toFixed(2)),
        el("span", { "class": "muted small", text: " / " + r.threshold }),
        r.reason || r.error ? el("span", { "class": "reason", text: r.reason || r.error }) : null
      ]));
    });
    if (!(j.results || []).length) row.appendChild(el("div", { "class": "badge none", text: j.message || j.status }));
    out.appendChild(row);
  });
  return out;
};
V.statusPill = function (s) { return el("span", { "class": "pill " + (s === "ERRORED" ? "errored" : "ok"), text: s === "ERRORED" ? "ERRORED" : "OK" }); };
V.evalPill = function (e) {
  if (!e || e.passed + e.failed + e.unscored === 0) return null;
  if (e.failed) return el("span", { "class": "pill errored", text: "✗ " + e.failed + " failed" });
  if (e.passed) return el("span", { "class": "pill ok", text: "✓ " + e.passed + " passed" });
  return el("span", { "class": "pill grey", text: "not judged" });
};
`;

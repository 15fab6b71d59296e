/**
 * The viewer's browser-side core (plain JavaScript, inlined into the page): DOM and format
 * helpers, the read API, the hash router with deep links, keyboard navigation, and the live
 * updates stream. Views register themselves in `V.views` (see the other `script-*` files).
 */
export const scriptCore = String.raw`
var V = window.V = { views: [], onChange: null };
function el(tag, attrs, children) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    var v = attrs[k];
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    // Through CSSOM: the CSP refuses style attributes (no 'unsafe-inline').
    else if (k === "style") e.style.cssText = v;
    else if (k.slice(0, 2) === "on") e[k] = v;
    else e.setAttribute(k, v);
  }
  (children || []).forEach(function (c) { if (c !== null && c !== undefined && c !== false) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
}
V.el = el;
V.micros = function (iso) {
  if (!iso) return 0;
  var m = /\.(\d+)/.exec(iso);
  var frac = m ? Number((m[1] + "000000").slice(0, 6)) : 0;
  return Date.parse(iso.replace(/\.\d+/, "")) * 1000 + frac;
};
V.dur = function (ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1) return Math.round(ms * 1000) + " µs";
  if (ms < 1000) return ms.toFixed(ms < 10 ? 1 : 0) + " ms";
  return (ms / 1000).toFixed(2) + " s";
};
V.time = function (iso) {
  if (!iso) return "—";
  var d = new Date(Date.parse(iso));
  var p = function (n, w) { return String(n).padStart(w || 2, "0"); };
  return d.getFullYear() + "-" + p(d.getMonth() + 1) + "-" + p(d.getDate()) + " " + p(d.getHours()) + ":" + p(d.getMinutes()) + ":" + p(d.getSeconds()) + "." + p(d.getMilliseconds(), 3);
};
V.usd = function (v) {
  if (v === null || v === undefined) return "—";
  if (v === 0) return "$0";
  return v < 0.01 ? "$" + v.toFixed(6).replace(/0+$/, "") : "$" + v.toFixed(4);
};
V.num = function (n) { return (n || 0).toLocaleString("en-US"); };
// Render generations: every navigation (V.render) starts a new one. A read started in an older
// generation (a live update's re-render still in flight when the hash changed) never settles, so
// what it would draw can never replace the view now on screen; V.staleReads counts them.
V.generation = 0;
V.staleReads = 0;
V.get = function (path) {
  var generation = V.generation;
  var current = function () { if (generation === V.generation) return true; V.staleReads++; return false; };
  return new Promise(function (resolve, reject) {
    fetch(path).then(function (r) {
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || r.status); });
      return r.json().then(function (body) { return { body: body, next: r.headers.get("x-next-cursor") }; });
    }).then(function (v) { if (current()) resolve(v); }, function (e) { if (current()) reject(e); });
  });
};
V.json = function (path) { return V.get(path).then(function (r) { return r.body; }); };
V.link = function (parts, query) {
  var h = "#/" + parts.map(encodeURIComponent).join("/");
  var q = new URLSearchParams();
  for (var k in (query || {})) if (query[k]) q.set(k, query[k]);
  var s = q.toString();
  return s ? h + "?" + s : h;
};
V.route = function () {
  var h = location.hash.replace(/^#\/?/, "");
  var qi = h.indexOf("?");
  var path = qi < 0 ? h : h.slice(0, qi);
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qi < 0 ? "" : h.slice(qi + 1)) };
};
V.copyButton = function (getText, label) {
  return el("button", { "class": "copy", title: "copy", text: label || "copy", onclick: function (ev) {
    ev.stopPropagation();
    var t = getText(); var b = ev.target;
    var done = function () { b.textContent = "copied"; setTimeout(function () { b.textContent = label || "copy"; }, 1200); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(t).then(done, done);
    else { var ta = el("textarea", {}); ta.value = t; document.body.appendChild(ta); ta.select(); try { document.execCommand("copy"); } catch (e) {} ta.remove(); done(); }
  } });
};
V.main = function () { return document.getElementById("view"); };
// Absent parts (null) are left out: replaceChildren would show them as the text "null".
V.show = function (nodes) { var m = V.main(); m.replaceChildren.apply(m, nodes.filter(function (n) { return n !== null && n !== undefined && n !== false; })); };
// Whether a click landed on a control of its own (a link, a button, a JSON tree's summary) rather than on the row or bubble around it.
V.onControl = function (ev) { var t = ev.target; return !!(t && t.closest && t.closest("a, button, summary, input, select")); };
V.fail = function (err) { V.show([el("div", { "class": "empty", text: "Could not load: " + (err && err.message || err) })]); };

// Keyboard: j/k move the cursor over the current list (rows marked data-nav), enter opens it,
// esc goes back (or clears the span selection), / focuses search.
V.navItems = function () { return Array.prototype.slice.call(document.querySelectorAll("[data-nav]")); };
V.cursor = -1;
V.moveCursor = function (delta) {
  var items = V.navItems(); if (!items.length) return;
  var at = items.findIndex(function (e) { return e.classList.contains("cursor") || e.classList.contains("selected"); });
  var next = Math.max(0, Math.min(items.length - 1, (at < 0 ? (delta > 0 ? -1 : items.length) : at) + delta));
  items.forEach(function (e) { e.classList.remove("cursor"); });
  items[next].classList.add("cursor");
  items[next].scrollIntoView({ block: "nearest" });
  if (items[next].getAttribute("data-nav") === "select") items[next].click();
};
document.addEventListener("keydown", function (ev) {
  var tag = (ev.target && ev.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") { if (ev.key === "Escape") ev.target.blur(); return; }
  if (ev.metaKey || ev.ctrlKey || ev.altKey) return;
  if (ev.key === "j" || ev.key === "ArrowDown") { V.moveCursor(1); ev.preventDefault(); }
  else if (ev.key === "k" || ev.key === "ArrowUp") { V.moveCursor(-1); ev.preventDefault(); }
  else if (ev.key === "Enter") { var c = document.querySelector("[data-nav].cursor"); if (c) c.click(); }
  else if (ev.key === "Escape") { var back = document.querySelector("[data-back]"); if (back) location.hash = back.getAttribute("data-back"); }
  else if (ev.key === "/") { var s = document.querySelector("input[type=search]"); if (s) { s.focus(); ev.preventDefault(); } }
});

V.render = function () {
  V.generation++;
  var r = V.route();
  var name = r.parts[0] || "traces";
  document.querySelectorAll("header nav a").forEach(function (a) { a.className = a.getAttribute("data-view") === name ? "active" : ""; });
  var view = V.views.filter(function (v) { return v.name === name; })[0];
  V.onChange = null;
  if (!view) return V.show([el("div", { "class": "empty", text: "Nothing at #/" + r.parts.join("/") + "." })]);
  Promise.resolve(view.render(r.parts.slice(1), r.query)).catch(V.fail);
};
window.addEventListener("hashchange", V.render);

// Live updates: the emulator pushes one event per burst of writes; the view on screen decides
// what to re-read (a page, not everything). EventSource reconnects by itself.
V.live = function () {
  var status = document.getElementById("status");
  var es = new EventSource("/_dev/events");
  es.addEventListener("hello", function (e) { var d = JSON.parse(e.data); status.textContent = "live · " + V.num(d.traces) + " traces"; });
  es.addEventListener("change", function (e) {
    var d = JSON.parse(e.data);
    status.textContent = "live · " + V.num(d.traces) + " traces";
    if (V.onChange) V.onChange(d);
  });
  es.onerror = function () { status.textContent = "reconnecting to the emulator…"; };
};
`;

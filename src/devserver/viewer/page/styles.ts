/** The viewer's stylesheet: a dark theme, one colour per span type. */
export const viewerStyles = `
:root { --bg:#0f1115; --panel:#171a21; --panel2:#1d212b; --line:#262b36; --text:#e6e8ee; --muted:#8b93a7; --accent:#7aa2ff;
        --base:#8b93a7; --llm:#b48cff; --retriever:#4fc3a1; --agent:#7aa2ff; --tool:#f0b35a; --err:#ff6b6b; --ok:#6fdc9b; }
* { box-sizing:border-box; }
body { margin:0; font:13px/1.45 system-ui, -apple-system, Segoe UI, sans-serif; background:var(--bg); color:var(--text); }
a { color:var(--accent); text-decoration:none; } a:hover { text-decoration:underline; }
header { display:flex; gap:14px; align-items:center; padding:8px 16px; border-bottom:1px solid var(--line); position:sticky; top:0; background:var(--bg); z-index:2; }
header h1 { font-size:15px; margin:0 8px 0 0; }
header nav a { color:var(--muted); margin-right:12px; } header nav a.active { color:var(--text); font-weight:600; }
#status { margin-left:auto; color:var(--muted); font-size:12px; }
main { padding:12px 16px; }
h2 { font-size:16px; margin:4px 0 8px; } h3 { font-size:13px; margin:12px 0 6px; color:var(--muted); font-weight:600; }
.filters { display:flex; flex-wrap:wrap; gap:6px; align-items:center; margin-bottom:8px; }
.filters input, .filters select { background:var(--panel); color:var(--text); border:1px solid var(--line); border-radius:5px; padding:4px 7px; font:inherit; }
.filters input[type=search] { width:280px; }
button { background:var(--panel2); color:var(--text); border:1px solid var(--line); border-radius:5px; padding:3px 9px; font:inherit; cursor:pointer; }
button:disabled { opacity:.4; cursor:default; }
table { width:100%; border-collapse:collapse; }
th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); white-space:nowrap; }
td.clip { max-width:220px; overflow:hidden; text-overflow:ellipsis; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
th { color:var(--muted); font-weight:500; position:sticky; top:41px; background:var(--bg); }
tr.item { cursor:pointer; } tr.item:hover { background:var(--panel); } tr.item.cursor { background:var(--panel2); outline:1px solid var(--accent); }
.pill { display:inline-block; padding:0 6px; border-radius:8px; font-size:11px; margin-right:3px; }
.ok { background:#1e3a2d; color:var(--ok); } .errored { background:#4a1f24; color:var(--err); } .tag { background:#23304d; color:#aac4ff; } .grey { background:#2a2f3a; color:var(--muted); }
.muted { color:var(--muted); } .small { font-size:11px; }
.pager { display:flex; gap:8px; align-items:center; margin-top:8px; }
.totals { display:flex; flex-wrap:wrap; gap:18px; margin:6px 0 10px; }
.totals div b { display:block; font-size:15px; } .totals div span { color:var(--muted); font-size:11px; }
#span-slot { display:contents; }
.split { display:grid; grid-template-columns:minmax(420px, 1fr) minmax(380px, 520px); gap:16px; align-items:start; }
.row { display:grid; grid-template-columns:300px 1fr 70px; align-items:center; height:24px; cursor:pointer; border-radius:4px; }
.row:hover { background:var(--panel); } .row.selected { background:var(--panel2); outline:1px solid var(--accent); }
.label { white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.type { font-size:10px; text-transform:uppercase; margin-right:6px; font-weight:600; }
.track { position:relative; height:12px; }
.bar { position:absolute; height:12px; border-radius:3px; min-width:2px; }
.bar.error { outline:2px solid var(--err); }
.dur { text-align:right; color:var(--muted); font-size:12px; }
.t-base { color:var(--base); } .b-base { background:var(--base); } .t-llm { color:var(--llm); } .b-llm { background:var(--llm); }
.t-retriever { color:var(--retriever); } .b-retriever { background:var(--retriever); } .t-agent { color:var(--agent); } .b-agent { background:var(--agent); }
.t-tool { color:var(--tool); } .b-tool { background:var(--tool); }
.err-mark { color:var(--err); font-weight:700; margin-left:4px; }
.panel { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:10px 12px; margin-bottom:12px; position:sticky; top:52px; max-height:calc(100vh - 64px); overflow:auto; }
.box { background:var(--panel); border:1px solid var(--line); border-radius:6px; padding:10px 12px; margin:10px 0; }
.kv { display:grid; grid-template-columns:130px 1fr; gap:3px 10px; } .kv > .k { color:var(--muted); }
pre, .mono { margin:0; white-space:pre-wrap; word-break:break-word; font:12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; }
.long { position:relative; } .long.folded pre { max-height:7.2em; overflow:hidden; -webkit-mask-image:linear-gradient(#000 60%, transparent); }
.more { font-size:11px; margin-top:2px; padding:0 6px; }
.copy { font-size:10px; padding:0 5px; margin-left:6px; vertical-align:middle; }
.msg { border-left:3px solid var(--line); padding:4px 8px; margin:6px 0; background:var(--panel2); border-radius:0 6px 6px 0; }
.msg .role { font-size:10px; text-transform:uppercase; font-weight:700; color:var(--muted); }
.msg.system { border-color:#888; } .msg.user { border-color:#6f8fd8; } .msg.assistant { border-color:var(--ok); } .msg.tool { border-color:var(--tool); }
.toolcall { border:1px dashed var(--tool); border-radius:5px; padding:4px 6px; margin-top:4px; }
details.j { margin-left:12px; } details.j > summary { cursor:pointer; color:var(--muted); list-style:none; } details.j > summary::before { content:"▸ "; } details.j[open] > summary::before { content:"▾ "; }
.jk { color:#9cc3ff; } .js { color:#c8e6a0; } .jn { color:#f0b35a; } .jb { color:#d7a5ff; }
.badges { display:flex; flex-wrap:wrap; gap:6px; margin:4px 0; }
.badge { border-radius:6px; padding:3px 8px; font-size:12px; border:1px solid var(--line); }
.badge.pass { background:#1e3a2d; color:var(--ok); } .badge.fail { background:#4a1f24; color:var(--err); } .badge.none { background:#2a2f3a; color:var(--muted); }
.badge .reason { display:block; color:var(--text); opacity:.8; font-size:11px; max-width:420px; white-space:normal; }
.bubble { max-width:72%; padding:8px 12px; border-radius:10px; margin:6px 0; }
.bubble.user { background:#23304d; margin-right:auto; } .bubble.assistant { background:#263a2f; margin-left:auto; } .bubble.failed { background:#4a1f24; margin-left:auto; }
.turn-link { font-size:11px; display:block; margin-top:4px; }
.diff .add { background:#1e3a2d; } .diff .del { background:#4a1f24; }
.empty { color:var(--muted); padding:24px 0; }
kbd { background:var(--panel2); border:1px solid var(--line); border-radius:3px; padding:0 4px; font-size:11px; }
`;

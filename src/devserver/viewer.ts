/** The page the emulator serves at its root. */
export const viewerHtml = `<!doctype html><html><head><meta charset="utf-8"><title>evaltrace dev</title></head>
<body><h1>evaltrace dev</h1><p>Stored traces: <a href="/_dev/traces">/_dev/traces</a></p></body></html>`;

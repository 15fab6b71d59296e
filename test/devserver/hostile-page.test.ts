import { createHash } from "node:crypto";
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, type DevServerOptions, startDevServer } from "../../src/devserver/index.js";

let dev: DevServer | undefined;
afterEach(async () => {
  await dev?.close();
  dev = undefined;
});
const start = async (options: DevServerOptions = {}) => {
  dev = await startDevServer({ port: 0, ...options });
  return dev;
};

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request with exactly these headers (fetch adds and forbids some), on a connection of its own. */
function send(d: DevServer, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const req = request({ agent: false, host: url.hostname, port: url.port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
const get = (d: DevServer, path: string, headers: Record<string, string> = {}) => send(d, "GET", path, headers);
const post = (d: DevServer, path: string, body: string) => send(d, "POST", path, { "content-type": "application/json", SERVICE_API_KEY: d.projectKey }, body);

const READS = ["/", "/_dev/view/traces?q=sk-proj-c&limit=1", "/_dev/traces", "/_dev/view/facets", "/_dev/version", "/_dev/keys"];

describe("cross-site reads (issue 47, point 1)", () => {
  it("refuses every read of the viewer and /_dev/* whose Sec-Fetch-Site is same-site or cross-site, with 403", async () => {
    const d = await start();
    for (const path of [...READS, "/_dev/events"]) {
      for (const site of ["same-site", "cross-site"]) {
        const r = await get(d, path, { "sec-fetch-site": site, "sec-fetch-mode": "no-cors", "sec-fetch-dest": "script" });
        expect(r.status, `${path} ${site}`).toBe(403);
        expect(JSON.parse(r.text).error, path).toContain("cross-site");
      }
    }
  });

  it("refuses a read without Sec-Fetch-Site that carries an Origin other than the emulator's", async () => {
    const d = await start();
    const port = new URL(d.url).port;
    for (const origin of [`http://localhost:${Number(port) + 1}`, "http://evil.example", "null", `https://127.0.0.1:${port}`]) {
      for (const path of READS) expect((await get(d, path, { origin })).status, `${path} ${origin}`).toBe(403);
    }
  });

  it("opens the page itself on a top-level navigation from another site (a link), but not /_dev/* that way", async () => {
    const d = await start();
    const nav = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" };
    expect((await get(d, "/", nav)).status).toBe(200);
    expect((await get(d, "/_dev/traces", nav)).status).toBe(403);
    expect((await get(d, "/", { ...nav, "sec-fetch-dest": "iframe" })).status).toBe(403);
  });

  it("answers the viewer's own reads (same-origin), typed addresses (none) and clients that send neither header", async () => {
    const d = await start();
    const port = new URL(d.url).port;
    for (const path of READS) {
      expect((await get(d, path, { "sec-fetch-site": "same-origin" })).status, path).toBe(200);
      expect((await get(d, path, { "sec-fetch-site": "none" })).status, path).toBe(200);
      expect((await get(d, path, { origin: `http://127.0.0.1:${port}` })).status, path).toBe(200);
      expect((await get(d, path)).status, path).toBe(200);
    }
  });
});

describe("security headers (issue 47, point 2)", () => {
  it("sends a CSP without inline script (the page's script and style allowed by hash), frame-ancestors 'none', X-Frame-Options, nosniff and CORP", async () => {
    const d = await start();
    for (const path of ["/", "/_dev/traces", "/_dev/view/traces", "/v1/metrics"]) {
      const r = await get(d, path, { SERVICE_API_KEY: d.projectKey });
      const csp = String(r.headers["content-security-policy"]);
      expect(csp, path).toContain("frame-ancestors 'none'");
      expect(csp, path).toContain("default-src 'none'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(csp, path).not.toContain("unsafe-eval");
      expect(r.headers["x-frame-options"], path).toBe("DENY");
      expect(r.headers["x-content-type-options"], path).toBe("nosniff");
      expect(r.headers["cross-origin-resource-policy"], path).toBe("same-origin");
    }
    const page = await get(d, "/");
    const script = /<script>([\s\S]*?)<\/script>/.exec(page.text)![1]!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1]!;
    const hash = (s: string) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`;
    const csp = String(page.headers["content-security-policy"]);
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(page.text.match(/<script/g)).toHaveLength(1);
  });
});

const t0 = "2026-01-01T00:00:00.000Z";
const trace = (extra: string) => `{"uuid":"p1","name":"x","startTime":"${t0}","endTime":"${t0}"${extra},"baseSpans":[{"uuid":"s1","name":"s","startTime":"${t0}","endTime":"${t0}"}]}`;

describe("__proto__ keys (issue 47, point 5)", () => {
  it("rejects a posted trace whose top-level __proto__ key would become the prototype of its fields, with 400, and stores nothing (lenient mode, as the live service)", async () => {
    const d = await start({ strict: false });
    const r = await post(d, "/v1/traces", trace(`,"__proto__":{"status":"ERRORED","threadId":"evil","tags":["x"]}`));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toContain("__proto__");
    const list = JSON.parse((await get(d, "/_dev/view/traces")).text) as { rows: unknown[] };
    expect(list.rows).toEqual([]);
  });

  it("rejects __proto__ as a field of any record (in any JSON spelling), in every route that takes one, strict or lenient", async () => {
    for (const strict of [false, true]) await rejectsEverywhere(await start({ strict }));
  });

  it("keeps __proto__ inside free-form values (metadata) as a plain key that changes nothing else", async () => {
    const d = await start({ strict: false });
    expect((await post(d, "/v1/traces", trace(`,"metadata":{"a":[{"__proto__":{"x":1}}],"__proto__":{"status":"ERRORED"}}`))).status).toBe(200);
    const stored = JSON.parse((await get(d, "/_dev/traces/p1")).text) as { metadata: unknown; status?: string };
    expect(stored.metadata).toEqual(JSON.parse(`{"a":[{"__proto__":{"x":1}}],"__proto__":{"status":"ERRORED"}}`));
    const row = JSON.parse((await get(d, "/_dev/view/traces/p1")).text) as { status: string };
    expect(row.status).toBe("SUCCESS");
  });
});

async function rejectsEverywhere(d: DevServer): Promise<void> {
  const span = `{"uuid":"s2","name":"s","startTime":"${t0}","endTime":"${t0}","__proto__":{"status":"ERRORED"}}`;
  const bodies: [string, string][] = [
    ["/v1/traces", trace(`,"\\u005f_proto\\u005f_":{"status":"ERRORED"}`)],
    ["/v1/traces", `{"traces":[${trace(`,"__proto__":{"threadId":"evil"}`)}]}`],
    ["/v1/traces", `{"uuid":"p2","name":"x","startTime":"${t0}","endTime":"${t0}","baseSpans":[${span}]}`],
    ["/v1/metrics", `{"name":"m","criteria":"c","evaluationParams":["input"],"multiTurn":false,"__proto__":{"multiTurn":true}}`],
    ["/v1/metric-collections", `{"name":"c","multiTurn":false,"__proto__":{"multiTurn":true},"metricSettings":[]}`],
  ];
  for (const [path, body] of bodies) {
    const r = await post(d, path, body);
    expect(r.status, `${path} ${body}`).toBe(400);
    expect(JSON.parse(r.text).error, path).toContain("__proto__");
  }
  expect(JSON.parse((await get(d, "/_dev/view/traces")).text).rows).toEqual([]);
  await d.close();
  dev = undefined;
}

describe("the request log (issue 47, point 5)", () => {
  it("escapes control characters of request data (unknown field names, thread ids, paths) in every logged line", async () => {
    const lines: string[] = [];
    const d = await start({ log: (line) => lines.push(line), strict: false });
    const esc = "\u001b]0;pwned\u0007\u001b[31m";
    const r = await post(d, "/v1/traces", trace(`,"threadId":${JSON.stringify(`t${esc}\r\n`)},${JSON.stringify(`unknown${esc}`)}:1`));
    expect(r.status).toBe(200);
    await get(d, `/_dev/threads/${encodeURIComponent(`t${esc}`)}`);
    expect(lines.length).toBeGreaterThan(1);
    const control = (c: string) => (c < " " && c !== "\t") || (c >= "\u007f" && c <= "\u009f");
    for (const line of lines) expect([...line].filter(control), line).toEqual([]);
    expect(lines.join("\n")).toContain("\\u001b");
  });
});

describe("non-ASCII credentials with protected reads (issue 47, point 5)", () => {
  it("answers a session cookie or API key with non-ASCII characters with 401, and such a login token with 403, never 500", async () => {
    const d = await start({ protectReads: true });
    const session = `evaltrace_dev_session=${"é".repeat(43)}`;
    expect((await get(d, "/_dev/traces", { cookie: session })).status).toBe(401);
    expect((await get(d, "/_dev/traces", { cookie: `evaltrace_dev_session=${"a".repeat(42)}é` })).status).toBe(401);
    expect((await get(d, "/_dev/traces", { SERVICE_API_KEY: "svc_é" })).status).toBe(401);
    const token = new URL(d.loginUrl!).searchParams.get("login")!;
    expect((await get(d, `/?login=${encodeURIComponent(`${token.slice(0, -1)}é`)}`)).status).toBe(403);
    expect((await get(d, `/?login=${encodeURIComponent("é".repeat(token.length))}`)).status).toBe(403);
  });
});

import { describe, expect, it } from "vitest";
import { formats, load, runChild } from "../helpers/child.js";
import { faultyEmulator } from "../helpers/faulty-emulator.js";

// The export's records of traces in flight live in two generations of maps replaced every
// 1,024 traces (src/util/churn-map.ts). An app that runs thousands of traces while one trace
// stays open across those replacements, in the built package, in ESM and CommonJS: every trace
// arrives once, the long one whole, when the first answer of every request is lost and the app
// ends without flush() (exit hook) or by SIGTERM.
const service = faultyEmulator();

const BULK = 3000;

/** A proxy that loses the answer of each POST /v1/traces the first time it is sent (the service has stored it). */
async function losingFirstAnswers() {
  const lost = new Set<string>();
  const posts = { count: 0 };
  const proxy = await service.proxy((_n, req) => {
    if (req.method !== "POST" || req.url !== "/v1/traces") return undefined;
    posts.count++;
    const key = String(req.headers["idempotency-key"]);
    if (lost.has(key)) return undefined;
    lost.add(key);
    return "store-then-reset";
  });
  return { url: proxy.url, lost, posts };
}

const stored = (name: string) => Object.values(service.dev.state.traces).filter((t) => t.fields.name === name);

describe.each(formats)("records across map rotations, first answers lost (%s)", (format) => {
  for (const ending of ["exit", "sigterm"] as const) {
    it(`delivers ${BULK} traces and one held open across them exactly once (${ending})`, async () => {
      const faults = await losingFirstAnswers();
      const tag = `${format}-${ending}`;
      const child = runChild(
        format,
        `${load(format, "evaltrace", ["configure", "observe"])}
         configure({ initialRetryDelayMillis: 20, logLevel: "silent" });
         let release;
         const gate = new Promise((r) => (release = r));
         const inner = observe({ name: "inner" }, async () => { await gate; return "held"; });
         const held = observe({ name: "held-${tag}" }, async () => inner())();
         const bulk = observe({ name: "bulk-${tag}" }, (i) => i + 1);
         for (let c = 0; c < ${BULK / 500}; c++) {
           for (let i = 0; i < 500; i++) bulk(i);
           await new Promise((r) => setImmediate(r));
         }
         release();
         await held;
         ${ending === "sigterm" ? `setInterval(() => {}, 1000); console.log("ready");` : ""}`,
        { EVALTRACE_API_KEY: service.dev.projectKey, EVALTRACE_BASE_URL: faults.url },
      );
      if (ending === "sigterm") {
        await child.waitFor("ready");
        child.process.kill("SIGTERM");
      }
      const done = await child.finished;
      expect(done.stderr).toBe("");
      expect({ code: done.code, signal: done.signal }).toEqual(ending === "exit" ? { code: 0, signal: null } : { code: null, signal: "SIGTERM" });
      expect(stored(`bulk-${tag}`)).toHaveLength(BULK);
      const [longOne, ...more] = stored(`held-${tag}`);
      expect(more).toHaveLength(0);
      expect(longOne!.spans.map((s) => s.name).sort()).toEqual([`held-${tag}`, "inner"]);
      // Each request lost its first answer once and was sent once more: nothing else was sent
      // twice. A request carries at most maxSpansPerRequest (1,000) spans, so there were several.
      expect(faults.lost.size).toBeGreaterThanOrEqual(BULK / 1000);
      expect(faults.posts.count).toBe(2 * faults.lost.size);
    });
  }
});

import { afterEach, describe, expect, it } from "vitest";
import { flush, observe, shutdown } from "../../src/index.js";
import { waitUntil } from "../helpers/manual-clock.js";
import { postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// The list form's body is written as JSON bytes trace after trace (uuids and times from the ids
// and times): text of every width (and the API key, scrubbed) must arrive exactly, in valid JSON.

let recorder: Recorder | undefined;
afterEach(async () => {
  await shutdown(0);
  await recorder?.close();
  recorder = undefined;
});

const KEY = "svc_local_proj_SECRETKEY123";
const values = [
  "plain ascii",
  "é à ü — “quotes”",
  "中文字符和日本語のテキスト",
  "emoji 😀🎉👩‍👩‍👧 and more",
  "a lone surrogate \ud800 and \udfff",
  "line separators \u2028\u2029 and \u0001 control",
  'JSON-looking "},{"traces":[ text',
  `the key ${KEY} inside`,
  `${"x".repeat(3000)}é`,
];

describe("the list-form body", () => {
  it("delivers text of every width across the traces of a request, byte-exact, the key scrubbed", async () => {
    recorder = await startRecorder();
    configureForTest(recorder.url, KEY, { batch: { maxSpansPerRequest: 1000, flushIntervalMillis: 60_000 } });
    const echo = observe({ name: "echo" }, (s: string) => `${s}!`);
    for (const v of values) echo(v);
    const result = await flush();
    expect(result.ok).toBe(true);
    await waitUntil(() => postedTraces(recorder!.requests).length === values.length, "every trace");
    // One request (a batch is taken over as many turns as it takes); every request is checked
    // anyway, and one carries several.
    const posts = recorder.requests.filter((r) => r.method === "POST");
    expect(posts.some((p) => postedTraces([p]).length > 1)).toBe(true);
    for (const post of posts) {
      // The body is valid JSON (the recorder parsed it) and its declared length is its UTF-8 length.
      expect(typeof post.body).toBe("object");
      expect(Number(post.headers["content-length"])).toBe(Buffer.byteLength(post.raw, "utf8"));
      expect(post.raw).not.toContain(KEY);
    }
    const inputs = postedTraces(posts).map((t) => t.input);
    // Lone surrogates travel as JSON escapes (\ud800), intact.
    expect(inputs).toEqual(values.map((v) => v.split(KEY).join("[REDACTED]")));
  });
});

describe("bodies made trace after trace within maxRequestBytes", () => {
  it("traces far larger than the sizes seen so far still go out within maxRequestBytes, each once, byte-exact", async () => {
    recorder = await startRecorder();
    const maxRequestBytes = 64 * 1024;
    configureForTest(recorder.url, KEY, { batch: { maxRequestBytes, maxSpansPerRequest: 1000, flushIntervalMillis: 60_000 } });
    const echo = observe({ name: "echo" }, (s: string) => s);
    // Small traces first: the exporter's estimate of a span's size learns they are small.
    for (let i = 0; i < 200; i++) echo(`small ${i}`);
    expect((await flush()).ok).toBe(true);
    // Then traces ~40 times larger, every width of text among them.
    const large = Array.from({ length: 60 }, (_, i) => `${i} ${values[i % values.length]} ${"é中😀".repeat(2000)}`);
    for (const v of large) echo(v);
    expect((await flush()).ok).toBe(true);
    const posts = recorder.requests.filter((r) => r.method === "POST");
    for (const post of posts) {
      expect(Number(post.headers["content-length"])).toBe(Buffer.byteLength(post.raw, "utf8"));
      if (postedTraces([post]).length > 1) expect(Buffer.byteLength(post.raw, "utf8")).toBeLessThanOrEqual(maxRequestBytes);
    }
    // Requests go out side by side (two at a time): each trace once, in any order.
    const sorted = (xs: unknown[]) => [...xs].map(String).sort();
    const inputs = postedTraces(posts).map((t) => t.input);
    expect(sorted(inputs)).toEqual(sorted([...Array.from({ length: 200 }, (_, i) => `small ${i}`), ...large].map((v) => v.split(KEY).join("[REDACTED]"))));
  });

  it("a batch the service refuses is split and resent with each trace's text exactly as first sent", async () => {
    // 400 to any request with more than one trace: the exporter halves until each goes alone.
    recorder = await startRecorder((_n, req) => {
      const traces = (req.body as { traces?: unknown[] } | undefined)?.traces;
      return traces && traces.length > 1 ? { status: 400, body: { success: false, error: "one at a time" } } : { status: 200 };
    });
    configureForTest(recorder.url, KEY, { batch: { maxSpansPerRequest: 1000, flushIntervalMillis: 60_000 } });
    const echo = observe({ name: "echo" }, (s: string) => `${s}!`);
    for (const v of values) echo(v);
    expect(await flush()).toMatchObject({ ok: true, delivered: values.length });
    const first = recorder.requests[0]!;
    const accepted = recorder.requests.filter((r) => (r.body as { traces: unknown[] }).traces.length === 1);
    expect(accepted).toHaveLength(values.length);
    // Each trace's text alone is the very text it had in the refused batch.
    const texts = accepted.map((r) => r.raw.slice('{"traces":['.length, -2));
    for (const text of texts) expect(first.raw).toContain(text);
    // The halves go out side by side: in any order.
    const sorted = (xs: unknown[]) => [...xs].map(String).sort();
    expect(sorted(postedTraces(accepted).map((t) => t.input))).toEqual(sorted(values.map((v) => v.split(KEY).join("[REDACTED]"))));
  });
});

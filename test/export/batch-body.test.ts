import { afterEach, describe, expect, it } from "vitest";
import { flush, observe, shutdown } from "../../src/index.js";
import { waitUntil } from "../helpers/manual-clock.js";
import { postedTraces, type Recorder, startRecorder } from "../helpers/recorder.js";
import { configureForTest } from "../helpers/sdk.js";

// The list form's body is written as bytes, trace by trace, at each trace's UTF-8 length: text
// of every width (and the API key, scrubbed) must arrive exactly, in one valid JSON body.

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
  "x".repeat(3000) + "é",
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
    // One request as a rule; a busy machine may cut the batch (the exporter builds at most 2 ms
    // of it per turn of the event loop), so every request is checked, and one carries several.
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

import type { AppBranch } from "./app-branch.js";

/** Why the net stopped reading its branch of a stream: the app let go of its own first. */
export class AppLetGo extends Error {
  override name = "AppLetGo";
  constructor() {
    super("the app stopped reading the stream before its end");
  }
}

/**
 * Reads server-sent events (WHATWG HTML, "Server-sent events") from the net's branch of a
 * response body: each event's `data:` lines, joined, parsed as JSON (data that is not JSON, such
 * as OpenAI's `[DONE]`, is skipped). Resolves when the body ends; rejects when it errors (the app
 * aborted the request, the connection broke) or when the app let go of its own branch (the net's
 * branch is then cancelled at once: a tee cancels its source only when both branches are).
 */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (data: unknown) => void, app: AppBranch): Promise<void> {
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch (err) {
    app.stop();
    throw err;
  }
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  const dispatch = () => {
    if (data.length === 0) return;
    const text = data.join("\n");
    data = [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return;
    }
    onEvent(parsed);
  };
  const line = (l: string) => {
    if (l === "") dispatch();
    else if (l.startsWith("data:")) data.push(l.slice(l.charAt(5) === " " ? 6 : 5));
  };
  const letGo = app.letGo.then(() => undefined);
  try {
    for (;;) {
      const step = await Promise.race([reader.read(), letGo]);
      if (step === undefined || (!step.done && app.gone())) {
        await reader.cancel().catch(() => undefined);
        throw new AppLetGo();
      }
      buffer += step.done ? decoder.decode() : decoder.decode(step.value, { stream: true });
      let at = buffer.search(/\r\n|\r|\n/);
      while (at >= 0) {
        const width = buffer.startsWith("\r\n", at) ? 2 : 1;
        line(buffer.slice(0, at));
        buffer = buffer.slice(at + width);
        at = buffer.search(/\r\n|\r|\n/);
      }
      if (step.done) break;
    }
  } finally {
    app.stop();
  }
  if (buffer !== "") line(buffer);
  dispatch();
}

import { createServer, type IncomingHttpHeaders, request } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeMessages } from "../../src/fakes/eventstream.js";
import { dualProtocolServer } from "../../src/fakes/h2c.js";

/**
 * What one model request a fake served comes to, read from the wire: the request's system
 * prompt, and the reply's token usage and tool calls as the API reported them. A program's
 * spans are checked against these, so the checks need no table of what each program does.
 */
export interface ServedCall {
  api: "openai" | "anthropic" | "google" | "bedrock";
  /** `POST /chat/completions`, `POST /v1/messages`, `POST /model/<id>/converse`... */
  route: string;
  status: number;
  /** The client went away before the answer ended (an aborted stream): the rest is what it got. */
  cut?: boolean;
  /** A generation or an embedding (OpenAI `/embeddings`, Gemini `:embedContent` / `:batchEmbedContents`): an llm span each (see `isModelCall`). */
  kind: "generation" | "embedding" | "other";
  /** The system prompt or instructions the request carried (joined text), if any. */
  system?: string;
  /** Token usage the API reported; undefined when it reported none (a stream not asked for usage). */
  inputTokens?: number;
  outputTokens?: number;
  /** Names of the tool calls in the reply, in order. */
  toolCalls: string[];
}

/** A recording proxy in front of one fake model server. */
export interface Tap {
  /** Base URL for the SDK (the fake's own path prefix kept). */
  url: string;
  calls: ServedCall[];
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"]);
const obj = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Text of an OpenAI / Anthropic / Gemini content value: a string, or the text of its parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return arr(content)
    .map((p) => str(obj(p).text) ?? "")
    .join("");
}

/** The JSON payloads of an SSE body (`data:` lines), `[DONE]` left out. */
function sseData(raw: string): Json[] {
  const out: Json[] = [];
  for (const line of raw.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    const data = line.slice(5).trim();
    if (data === "" || data === "[DONE]") continue;
    try {
      out.push(obj(JSON.parse(data)));
    } catch {
      // Not JSON: not ours to read.
    }
  }
  return out;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function openaiCall(path: string, body: Json, raw: string, sse: boolean): Omit<ServedCall, "api" | "route" | "status"> {
  if (path === "/embeddings") return { kind: "embedding", inputTokens: num(obj(obj(parseJson(raw)).usage).prompt_tokens), toolCalls: [] };
  if (path === "/chat/completions") {
    const system = arr(body.messages)
      .map(obj)
      .filter((m) => m.role === "system" || m.role === "developer")
      .map((m) => textOf(m.content))
      .join("\n");
    const chunks = sse ? sseData(raw) : [obj(parseJson(raw))];
    let usage: Json | undefined;
    const toolCalls: string[] = [];
    for (const c of chunks) {
      if (c.usage) usage = obj(c.usage);
      const choice = obj(arr(c.choices).find((ch) => obj(ch).index === 0 || obj(ch).index === undefined));
      for (const t of arr(obj(choice.message ?? choice.delta).tool_calls)) {
        const name = str(obj(obj(t).function).name);
        if (name) toolCalls.push(name);
      }
    }
    return { kind: "generation", ...(system ? { system } : {}), inputTokens: num(usage?.prompt_tokens), outputTokens: num(usage?.completion_tokens), toolCalls };
  }
  if (path === "/responses") {
    const input = typeof body.input === "string" ? [] : arr(body.input).map(obj);
    const system = [str(body.instructions) ?? "", ...input.filter((i) => i.role === "system" || i.role === "developer").map((i) => textOf(i.content))].filter(Boolean).join("\n");
    const response = sse ? obj(sseData(raw).find((e) => e.type === "response.completed" || e.type === "response.incomplete")?.response) : obj(parseJson(raw));
    const usage = obj(response.usage);
    const toolCalls = arr(response.output)
      .map(obj)
      .filter((o) => o.type === "function_call")
      .map((o) => str(o.name) ?? "");
    return { kind: "generation", ...(system ? { system } : {}), inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens), toolCalls };
  }
  return { kind: "other", toolCalls: [] };
}

function anthropicCall(path: string, body: Json, raw: string, sse: boolean): Omit<ServedCall, "api" | "route" | "status"> {
  if (path !== "/v1/messages") return { kind: "other", toolCalls: [] };
  const system = textOf(body.system);
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  const toolCalls: string[] = [];
  if (sse) {
    for (const e of sseData(raw)) {
      // message_start has the input tokens and a first output count; each message_delta the counts so far.
      const usage = obj(e.type === "message_start" ? obj(e.message).usage : e.type === "message_delta" ? e.usage : undefined);
      inputTokens = num(usage.input_tokens) ?? inputTokens;
      outputTokens = num(usage.output_tokens) ?? outputTokens;
      const block = obj(e.content_block);
      if (e.type === "content_block_start" && block.type === "tool_use") toolCalls.push(str(block.name) ?? "");
    }
  } else {
    const message = obj(parseJson(raw));
    inputTokens = num(obj(message.usage).input_tokens);
    outputTokens = num(obj(message.usage).output_tokens);
    for (const b of arr(message.content).map(obj)) if (b.type === "tool_use") toolCalls.push(str(b.name) ?? "");
  }
  return { kind: "generation", ...(system ? { system } : {}), inputTokens, outputTokens, toolCalls };
}

function googleCall(path: string, body: Json, raw: string, sse: boolean): Omit<ServedCall, "api" | "route" | "status"> {
  const method = /:([A-Za-z]+)$/.exec(path)?.[1];
  // The Gemini API reports no tokens for an embedding (countTokens is no model request: "other").
  if (method === "embedContent" || method === "batchEmbedContents") return { kind: "embedding", toolCalls: [] };
  if (method !== "generateContent" && method !== "streamGenerateContent") return { kind: "other", toolCalls: [] };
  const system = textOf(obj(body.systemInstruction).parts ?? body.systemInstruction);
  const chunks = sse ? sseData(raw) : method === "streamGenerateContent" ? arr(parseJson(raw)).map(obj) : [obj(parseJson(raw))];
  let usage: Json = {};
  const toolCalls: string[] = [];
  for (const c of chunks) {
    if (c.usageMetadata) usage = obj(c.usageMetadata);
    for (const p of arr(obj(obj(arr(c.candidates)[0]).content).parts)) {
      const name = str(obj(obj(p).functionCall).name);
      if (name) toolCalls.push(name);
    }
  }
  return { kind: "generation", ...(system ? { system } : {}), inputTokens: num(usage.promptTokenCount), outputTokens: num(usage.candidatesTokenCount), toolCalls };
}

/** The whole messages of an AWS event stream body (`application/vnd.amazon.eventstream`): a cut stream's last, partial one left out. */
function eventStream(bytes: Buffer): { type: string; value: Json }[] {
  let whole = 0;
  while (whole + 4 <= bytes.length && whole + bytes.readUInt32BE(whole) <= bytes.length) whole += bytes.readUInt32BE(whole);
  try {
    return decodeMessages(bytes.subarray(0, whole)).map((m) => ({ type: m.headers[":event-type"] ?? m.headers[":exception-type"] ?? "", value: obj(parseJson(Buffer.from(m.payload).toString("utf8"))) }));
  } catch {
    return [];
  }
}

/** Bedrock Runtime: Converse and ConverseStream in their own shapes; InvokeModel (Anthropic Claude bodies) as the Messages API. */
function bedrockCall(path: string, body: Json, bytes: Buffer, contentType: string): Omit<ServedCall, "api" | "route" | "status"> {
  const action = /^\/model\/[^/]+\/([a-z-]+)$/.exec(path)?.[1];
  if (action === "converse" || action === "converse-stream") {
    const system = textOf(body.system);
    let usage: Json = {};
    const toolCalls: string[] = [];
    if (contentType.includes("eventstream")) {
      for (const { type, value } of eventStream(bytes)) {
        if (type === "metadata") usage = obj(value.usage);
        const name = str(obj(obj(value.start).toolUse).name);
        if (type === "contentBlockStart" && name) toolCalls.push(name);
      }
    } else {
      const reply = obj(parseJson(bytes.toString("utf8")));
      usage = obj(reply.usage);
      for (const b of arr(obj(obj(reply.output).message).content).map(obj)) if (b.toolUse) toolCalls.push(str(obj(b.toolUse).name) ?? "");
    }
    return { kind: "generation", ...(system ? { system } : {}), inputTokens: num(usage.inputTokens), outputTokens: num(usage.outputTokens), toolCalls };
  }
  if (action === "invoke" && /\/model\/(?:[a-z-]+\.)?(?:amazon\.titan-embed|cohere\.embed)/.test(decodeURIComponent(path))) {
    return { kind: "embedding", inputTokens: num(obj(parseJson(bytes.toString("utf8"))).inputTextTokenCount), toolCalls: [] };
  }
  if (action === "invoke") return anthropicCall("/v1/messages", body, bytes.toString("utf8"), false);
  if (action === "invoke-with-response-stream") {
    // Each `chunk` carries one of the model's own stream events, base64 in `bytes`.
    const events = eventStream(bytes).map(({ value }) => Buffer.from(str(value.bytes) ?? "", "base64").toString("utf8"));
    return anthropicCall("/v1/messages", body, events.map((e) => `data: ${e}`).join("\n"), true);
  }
  return { kind: "other", toolCalls: [] };
}

/**
 * Starts a proxy on a free loopback port in front of `upstream` (a fake's `url`), streaming each
 * answer through as it comes, and records what each request was served. `addHeaders` go to the
 * fake with every request (the fakes' `x-fake-stream-delay-ms`, to stream as slowly as a real model).
 */
export async function startTap(api: ServedCall["api"], upstream: string, addHeaders: Record<string, string> = {}): Promise<Tap> {
  const target = new URL(upstream);
  const prefix = target.pathname.replace(/\/$/, "");
  const calls: ServedCall[] = [];
  const server = createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (c: Buffer) => chunks.push(c));
    incoming.on("end", () => {
      const requestBody = Buffer.concat(chunks);
      // HTTP/2's pseudo-headers (`:path`...) are not HTTP/1 headers: the fake is asked over HTTP/1.
      const given = Object.entries(incoming.headers).filter(([name]) => !name.startsWith(":"));
      const headers: IncomingHttpHeaders = { ...Object.fromEntries(given), ...addHeaders, host: target.host };
      const parts: Buffer[] = [];
      let recorded = false;
      /** Records what the client got: all of the answer, or what was streamed to it before it went away. */
      const record = (status: number, contentType: string, cut: boolean) => {
        if (recorded) return;
        recorded = true;
        const url = new URL(incoming.url ?? "/", "http://tap");
        const path = prefix && url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : url.pathname;
        const body = obj(parseJson(requestBody.toString("utf8")));
        const bytes = Buffer.concat(parts);
        const read = api === "openai" ? openaiCall : api === "anthropic" ? anthropicCall : googleCall;
        const served = api === "bedrock" ? bedrockCall(path, body, bytes, contentType) : read(path, body, bytes.toString("utf8"), contentType.includes("text/event-stream"));
        calls.push({ api, route: `${incoming.method} ${path}`, status, ...(cut ? { cut } : {}), ...served });
      };
      const upstreamReq = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers }, (answer) => {
        // HTTP/2 answers carry no connection-specific headers (RFC 9113, 8.2.2).
        const answerHeaders = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_BY_HOP.has(name)));
        res.writeHead(answer.statusCode ?? 502, api === "bedrock" ? answerHeaders : answer.headers);
        const contentType = String(answer.headers["content-type"] ?? "");
        answer.on("data", (c: Buffer) => {
          parts.push(c);
          res.write(c);
        });
        answer.on("end", () => {
          res.end();
          record(answer.statusCode ?? 0, contentType, false);
        });
        answer.on("error", () => res.destroy());
        // The client went away mid-answer (an aborted stream): what it got so far is what it was served.
        res.on("close", () => {
          if (answer.complete) return;
          record(answer.statusCode ?? 0, contentType, true);
          upstreamReq.destroy();
        });
      });
      upstreamReq.on("error", () => res.destroy());
      upstreamReq.end(requestBody);
    });
  });
  // The AWS SDK's Bedrock Runtime client talks cleartext HTTP/2: its tap, like its fake, speaks both.
  const dual = api === "bedrock" ? dualProtocolServer(server, (req, res) => server.emit("request", req, res)) : undefined;
  const listener = dual?.server ?? server;
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}${prefix}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        if (dual) dual.closeAll();
        else server.closeAllConnections();
        listener.close(() => resolve());
      }),
  };
}

/** A request the program's spans must show as one llm span: a generation, or an embedding (OpenAI, Gemini, Bedrock), that succeeded. */
export const isModelCall = (c: ServedCall): boolean => c.status < 400 && (c.kind === "generation" || c.kind === "embedding");

import type { ServerResponse } from "node:http";
import { arr, contentText, type Json, num, obj, str } from "./body.js";
import { fakeEmbedding } from "./embedding.js";
import { type FakeError, type FakeModelServer, type FakeRequest, retryHeaders, sendJson, sseControls, startFakeServer } from "./http.js";
import { estimateTokens, type FakeTool, type FakeToolChoice, fakeTurn } from "./model.js";
import { jsonEvent, type SseEvent, writeSse } from "./sse.js";

/**
 * A running fake Gemini API (see `startFakeGoogleGenAI`).
 *
 * `requests` holds every request, with its path relative to `url`
 * (`/v1beta/models/gemini-2.0-flash:generateContent`), query (`{alt: "sse"}`), headers and JSON
 * body; `failNext(status)` makes the next request(s) fail.
 */
export interface FakeGoogleGenAI extends FakeModelServer {
  /** Base URL to give `@google/genai` (`httpOptions.baseUrl`), e.g. `http://127.0.0.1:PORT` (no version). */
  url: string;
}

/** Google's canonical error status per HTTP status (google.rpc.Code, as in the Gemini API troubleshooting guide). */
function errorStatus(status: number): [string, string] {
  switch (status) {
    case 400:
      return ["INVALID_ARGUMENT", "Request contains an invalid argument."];
    case 401:
      return ["UNAUTHENTICATED", "API key not valid. Please pass a valid API key."];
    case 403:
      return ["PERMISSION_DENIED", "The caller does not have permission."];
    case 404:
      return ["NOT_FOUND", "Requested entity was not found."];
    case 429:
      return ["RESOURCE_EXHAUSTED", "You exceeded your current quota, please check your plan and billing details."];
    case 503:
      return ["UNAVAILABLE", "The model is overloaded. Please try again later."];
    case 504:
      return ["DEADLINE_EXCEEDED", "Deadline exceeded."];
    default:
      return status >= 500 ? ["INTERNAL", "An internal error has occurred."] : ["FAILED_PRECONDITION", "Precondition check failed."];
  }
}

const errorBody = (error: FakeError): Json => {
  const [status, fallback] = errorStatus(error.status);
  const details = error.status === 429 ? [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${Math.max(1, Math.ceil(error.retryAfterMs / 1000))}s` }] : undefined;
  return { error: { code: error.status, message: error.message ?? fallback, status, ...(details ? { details } : {}) } };
};

/** `/v1beta/models/gemini-2.0-flash:generateContent` → version, model, method. */
const ROUTE = /^\/(v1(?:alpha|beta)?)\/models\/([^/:]+):([A-Za-z]+)$/;

/** `toolConfig.functionCallingConfig`: mode AUTO | ANY | NONE | VALIDATED, `allowedFunctionNames`. */
function choiceOf(config: Json): FakeToolChoice {
  const fc = obj(config.functionCallingConfig);
  const allowed = arr(fc.allowedFunctionNames).filter((s): s is string => typeof s === "string");
  if (fc.mode === "NONE") return { mode: "none" };
  if (fc.mode === "ANY") return allowed.length === 1 ? { mode: "named", name: allowed[0]! } : { mode: "required" };
  return { mode: "auto" };
}

/**
 * Starts a fake Gemini API (the Gemini Developer API's REST surface that `@google/genai` calls) on
 * 127.0.0.1 (a free port), for offline examples and tests. It answers "Orders ship in 2 days.".
 *
 * Routes, under `/v1beta` (or `/v1`, `/v1alpha`): `POST models/{model}:generateContent`,
 * `:streamGenerateContent` (SSE with `?alt=sse`, else a JSON array), `:countTokens`,
 * `:embedContent`, `:batchEmbedContents`. Anything else is a 404 in Google's error shape.
 *
 * Function calls: when the request declares functions (`tools[].functionDeclarations`), the model
 * calls one, unless `toolConfig.functionCallingConfig.mode` is NONE, the last content carries
 * `functionResponse` parts, or the last user text says "no tool". It calls the only name in
 * `allowedFunctionNames` with mode ANY, else the functions the last user text names, else the
 * first; `args` are a sample of its `parametersJsonSchema` / `parameters`
 * (`{"orderId": "A-1001"}`). Mode ANY calls a function even after function responses.
 *
 * Usage (`usageMetadata`): prompt tokens are the request's size / 4; candidate tokens one per
 * streamed piece (text) or the arguments' size / 4. `generationConfig.maxOutputTokens` cuts the
 * text (`finishReason: "MAX_TOKENS"`), `stopSequences` too. JSON output
 * (`responseMimeType: "application/json"` with `responseJsonSchema` / `responseSchema`) gets JSON
 * that matches the schema.
 *
 * Errors: `failNext(status)`, the `x-fake-error: <status>` header, or the model name
 * `error-<status>` (e.g. `models/error-429`) answer with `{error: {code, message, status}}` (a 429
 * with a `RetryInfo` detail). Streams: `x-fake-stream-delay-ms: <ms>` paces the events,
 * `x-fake-stream-error-after: <n>` sends an error body as an event after n events.
 */
export async function startFakeGoogleGenAI(): Promise<FakeGoogleGenAI> {
  let n = 0;
  const nextId = () => `fake-response-${(++n).toString().padStart(4, "0")}`;
  const fail = (res: ServerResponse, error: FakeError, _req: FakeRequest) => sendJson(res, error.status, errorBody(error), retryHeaders(error));
  const badRequest = (res: ServerResponse, req: FakeRequest, message: string) => fail(res, { status: 400, message, retryAfterMs: 0 }, req);

  /**
   * `models.generateContent` and `models.streamGenerateContent`, as in the Gemini API reference
   * "Generating content": a `GenerateContentResponse` with `candidates[{content: {role: "model",
   * parts: [{text} | {functionCall: {name, args}}]}, finishReason, index}]`, `usageMetadata`
   * (`promptTokenCount`, `candidatesTokenCount`, `totalTokenCount`, `promptTokensDetails`),
   * `modelVersion` and `responseId`. Streamed, every SSE `data:` event is such a response holding
   * one text piece (function calls come whole, in one event) with the usage so far; the last one
   * has the `finishReason` and the full usage. There is no end marker.
   */
  async function generate(req: FakeRequest, res: ServerResponse, model: string, stream: boolean): Promise<void> {
    const body = req.body;
    const contents = arr(body.contents).map(obj);
    if (contents.length === 0) return badRequest(res, req, "* GenerateContentRequest.contents: contents is not specified");
    const tools: FakeTool[] = arr(body.tools).flatMap((t) =>
      arr(obj(t).functionDeclarations)
        .map(obj)
        .map((d) => ({ name: str(d.name) ?? "", schema: d.parametersJsonSchema ?? d.parameters })),
    );
    const config = obj(body.generationConfig);
    const lastUser = [...contents].reverse().find((c) => (c.role === undefined || c.role === "user") && arr(c.parts).some((p) => typeof obj(p).text === "string"));
    const json = str(config.responseMimeType) === "application/json";
    const schema = config.responseJsonSchema ?? config.responseSchema;
    const turn = fakeTurn({
      tools,
      choice: choiceOf(obj(body.toolConfig)),
      lastUserText: contentText(lastUser?.parts),
      afterToolResults: arr(contents.at(-1)?.parts).some((p) => obj(p).functionResponse !== undefined),
      parallel: true,
      ...(json ? { output: schema ?? "json" } : {}),
      ...(num(config.maxOutputTokens) !== undefined ? { maxTokens: num(config.maxOutputTokens)! } : {}),
      stop: arr(config.stopSequences).filter((s): s is string => typeof s === "string"),
    });
    const promptTokens = Math.max(1, estimateTokens(JSON.stringify([body.systemInstruction ?? null, contents, body.tools ?? null])));
    const usage = (candidates: number) => ({
      promptTokenCount: promptTokens,
      ...(candidates > 0 ? { candidatesTokenCount: candidates } : {}),
      totalTokenCount: promptTokens + candidates,
      promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }],
    });
    const finishReason = turn.kind === "text" && turn.stop === "max_tokens" ? "MAX_TOKENS" : "STOP";
    const responseId = nextId();
    const response = (parts: Json[], candidates: number, finish: boolean) => ({
      candidates: [{ content: { parts, role: "model" }, ...(finish ? { finishReason } : {}), index: 0 }],
      usageMetadata: usage(candidates),
      modelVersion: model,
      responseId,
    });
    const chunks =
      turn.kind === "tools"
        ? [response(turn.calls.map((c) => ({ functionCall: { name: c.name, args: JSON.parse(c.arguments) as unknown } })), turn.calls.reduce((s, c) => s + estimateTokens(c.arguments), 0), true)]
        : turn.pieces.map((text, i) => response([{ text }], i + 1, i === turn.pieces.length - 1));
    if (!stream) {
      const whole = turn.kind === "tools" ? chunks[0]! : response([{ text: turn.text }], turn.pieces.length, true);
      return sendJson(res, 200, whole);
    }
    if (req.query.alt !== "sse") return sendJson(res, 200, chunks);
    const events: SseEvent[] = chunks.map((c) => jsonEvent(c));
    await writeSse(res, events, { ...sseControls(req), failure: [jsonEvent(errorBody({ status: 500, retryAfterMs: 0 }))] });
  }

  /**
   * `models.embedContent` / `batchEmbedContents`, as in the Gemini API reference "Embeddings":
   * `{embedding: {values}}` / `{embeddings: [{values}]}`, `outputDimensionality` honoured
   * (default 768, 3072 for `gemini-embedding-*` models).
   */
  function embed(req: FakeRequest, res: ServerResponse, model: string, batch: boolean) {
    const one = (r: Json, m: string) => {
      const dims = Math.floor(num(r.outputDimensionality) ?? (m.includes("gemini-embedding") ? 3072 : 768));
      return { values: fakeEmbedding(contentText(obj(r.content).parts), Math.max(1, dims)) };
    };
    if (!batch) {
      if (req.body.content === undefined) return badRequest(res, req, "* EmbedContentRequest.content: content is not specified");
      return sendJson(res, 200, { embedding: one(req.body, model) });
    }
    const requests = arr(req.body.requests).map(obj);
    if (requests.length === 0) return badRequest(res, req, "* BatchEmbedContentsRequest.requests: requests is not specified");
    sendJson(res, 200, { embeddings: requests.map((r) => one(r, (str(r.model) ?? model).replace(/^models\//, ""))) });
  }

  return startFakeServer({
    prefix: "",
    modelOf: (req) => ROUTE.exec(req.path)?.[2],
    writeError: fail,
    async handle(req, res) {
      const m = ROUTE.exec(req.path);
      const [model, method] = [m?.[2] ?? "", m?.[3] ?? ""];
      if (req.method === "POST" && m) {
        if (method === "generateContent") return generate(req, res, model, false);
        if (method === "streamGenerateContent") return generate(req, res, model, true);
        if (method === "embedContent") return embed(req, res, model, false);
        if (method === "batchEmbedContents") return embed(req, res, model, true);
        if (method === "countTokens") {
          const source = req.body.generateContentRequest ?? req.body;
          const s = obj(source);
          const total = Math.max(1, estimateTokens(JSON.stringify([s.systemInstruction ?? null, s.contents ?? [], s.tools ?? null])));
          return sendJson(res, 200, { totalTokens: total, promptTokensDetails: [{ modality: "TEXT", tokenCount: total }] });
        }
      }
      fail(res, { status: 404, message: `Method not found: ${req.method} ${req.path}`, retryAfterMs: 0 }, req);
    },
  });
}

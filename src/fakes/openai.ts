import type { ServerResponse } from "node:http";
import { arr, contentText, type Json, num, obj, str } from "./body.js";
import { fakeEmbedding, float32Base64 } from "./embedding.js";
import { type FakeError, type FakeModelServer, type FakeRequest, retryHeaders, sendJson, sseControls, startFakeServer } from "./http.js";
import { estimateTokens, type FakeTool, type FakeToolChoice, fakeTurn, pieces } from "./model.js";
import { jsonEvent, type SseEvent, writeSse } from "./sse.js";

/**
 * A running fake OpenAI API (see `startFakeOpenAI`).
 *
 * `requests` holds every request, with its path relative to `url` (`/chat/completions`), headers,
 * query and JSON body; `failNext(status)` makes the next request(s) fail.
 */
export interface FakeOpenAI extends FakeModelServer {
  /** Base URL to give an OpenAI client (`baseURL`), e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
}

/** Options of `startFakeOpenAI`. */
export interface FakeOpenAIOptions {
  /**
   * Scripts the text of a Chat Completions reply (a judge's JSON, say): called for each request
   * that gets text rather than tool calls; a string replaces the usual text, undefined keeps it.
   * It may be async (a promise that never settles makes the request hang, to test timeouts).
   */
  reply?: (request: FakeRequest) => string | undefined | Promise<string | undefined>;
}

/** Dated snapshot names the API reports for some model aliases; other names are echoed. */
const SNAPSHOTS: Record<string, string> = { "gpt-4o-mini": "gpt-4o-mini-2024-07-18" };

/** Fixed usage, as the integration tests expect: text replies 11 (Responses: 9) prompt tokens, tool calls 20/7. */
const USAGE = { chatPrompt: 11, responsesInput: 9, toolPrompt: 20, toolCompletion: 7 };

/** OpenAI's error `type` and `code` and default message per status (the documented error codes). */
function errorBody(status: number, message: string | undefined, model: string | undefined): Json {
  const [type, code, fallback] =
    status === 401
      ? ["invalid_request_error", "invalid_api_key", "Incorrect API key provided."]
      : status === 403
        ? ["invalid_request_error", "unsupported_country_region_territory", "Country, region, or territory not supported."]
        : status === 404
          ? ["invalid_request_error", "model_not_found", `The model \`${model ?? "unknown"}\` does not exist or you do not have access to it.`]
          : status === 429
            ? ["requests", "rate_limit_exceeded", `Rate limit reached for ${model ?? "the model"} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20ms.`]
            : status >= 500
              ? ["server_error", null, "The server had an error while processing your request. Sorry about that!"]
              : ["invalid_request_error", null, "Invalid request."];
  return { error: { message: message ?? fallback, type, param: null, code } };
}

const toolsOf = (tools: unknown, responses: boolean): FakeTool[] =>
  arr(tools)
    .map(obj)
    .filter((t) => t.type === "function")
    .map((t) => (responses ? { name: str(t.name) ?? "", schema: t.parameters } : { name: str(obj(t.function).name) ?? "", schema: obj(t.function).parameters }));

/** `tool_choice`: "none" | "auto" | "required" | {type: "function", function: {name}} (Chat) | {type: "function", name} (Responses) | {type: "allowed_tools", ...}. */
function choiceOf(choice: unknown): FakeToolChoice {
  if (choice === "none" || choice === "required") return { mode: choice };
  const c = obj(choice);
  const name = str(obj(c.function).name) ?? str(c.name);
  if (c.type === "function" && name !== undefined) return { mode: "named", name };
  if (c.type === "allowed_tools" && obj(c.allowed_tools).mode === "required") return { mode: "required" };
  return { mode: "auto" };
}

/** `response_format` (Chat) or `text.format` (Responses): a JSON Schema, "json", or text. */
function outputOf(format: unknown): unknown {
  const f = obj(format);
  if (f.type === "json_schema") return obj(f.json_schema).schema ?? f.schema ?? {};
  if (f.type === "json_object") return "json";
  return undefined;
}

const stopsOf = (stop: unknown): string[] => (typeof stop === "string" ? [stop] : arr(stop).filter((s): s is string => typeof s === "string"));

/**
 * Starts a fake OpenAI API on 127.0.0.1 (a free port), for offline examples and tests: the real
 * `openai` package and its helpers (`chat.completions.stream/parse/runTools`, `responses.stream/
 * parse`, `embeddings.create`) work against it unmodified. It answers "Orders ship in 2 days.".
 *
 * Routes (under `/v1`): `POST /chat/completions`, `POST /responses`, `POST /embeddings`,
 * `GET /models`. Anything else is a 404 in OpenAI's error shape.
 *
 * Tool calls (Chat Completions and Responses): when the request offers function tools, the model
 * calls one, unless `tool_choice` is "none", the conversation ends with tool results, or the last
 * user message says "no tool". It calls the tool `tool_choice` names, else the tools the last user
 * message names (all of them when `parallel_tool_calls` is not false), else the first tool; its
 * arguments are a sample of the tool's JSON Schema (`{"orderId": "A-1001"}` for `{orderId: string}`).
 * `tool_choice: "required"` calls a tool even after tool results.
 *
 * Structured output: `response_format` / `text.format` of type `json_schema` gets JSON that matches
 * the schema; `json_object` gets `{"answer": "Orders ship in 2 days."}`.
 *
 * Usage is fixed: a text reply has 11 prompt tokens (Responses: 9 input tokens) and one completion
 * token per streamed piece (4 for the default reply); a tool call turn 20 and 7. `max_tokens` /
 * `max_completion_tokens` / `max_output_tokens` cut the text at that many pieces
 * (`finish_reason: "length"`, Responses status `incomplete`); `stop` cuts it at a stop sequence.
 *
 * Scripted text: `options.reply(request)` returns the text of a Chat Completions reply (e.g. the
 * JSON a judge is asked for), in place of the usual one.
 *
 * Errors: `failNext(status)`, the `x-fake-error: <status>` header, or the model name
 * `error-<status>` (e.g. `error-429`) answer with OpenAI's error body `{error: {message, type,
 * param, code}}`; a 429 or 5xx carries `retry-after-ms` (10) and `retry-after` (1). The model
 * "boom" gets a 400 "model boom does not exist". Streams: `x-fake-stream-delay-ms: <ms>` paces the
 * events, `x-fake-stream-error-after: <n>` sends the in-stream error after n events.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  let n = 0;
  const nextId = (prefix: string) => `${prefix}${(++n).toString().padStart(4, "0")}`;
  let calls = 0;
  const callId = () => `call_${++calls}`;
  const now = () => Math.floor(Date.now() / 1000);
  const requestId = () => ({ "x-request-id": nextId("req_fake") });
  const modelName = (body: Json, fallback: string) => {
    const m = str(body.model) ?? fallback;
    return SNAPSHOTS[m] ?? m;
  };
  const fail = (res: ServerResponse, error: FakeError, req: FakeRequest) =>
    sendJson(res, error.status, errorBody(error.status, error.message, str(req.body.model)), { ...requestId(), ...retryHeaders(error) });
  const badRequest = (res: ServerResponse, req: FakeRequest, message: string) => fail(res, { status: 400, message, retryAfterMs: 0 }, req);

  /**
   * Chat Completions, `POST /v1/chat/completions`, as in the API reference "Create chat completion"
   * and "The chat completion chunk object": a `chat.completion` with `choices[i].message` (`role`,
   * `content`, `refusal`, `annotations`, `tool_calls[{id, type: "function", function: {name,
   * arguments}}]`), `finish_reason` ("stop" | "length" | "tool_calls") and `usage` (with
   * `prompt_tokens_details` / `completion_tokens_details`). Streamed (`stream: true`): `data:`
   * events of `chat.completion.chunk`s: per choice, a first delta with `role: "assistant"`, then
   * `content` deltas (or `tool_calls` deltas: the first of each call with `index`, `id`, `type` and
   * `function.name` and empty `arguments`, then `arguments` pieces), then an empty delta with the
   * `finish_reason`; with `stream_options.include_usage` every chunk has `usage: null` and a last
   * chunk has `choices: []` and the usage; then `data: [DONE]`. `n` gives that many equal choices.
   */
  async function chatCompletions(req: FakeRequest, res: ServerResponse): Promise<void> {
    const body = req.body;
    if (str(body.model) === undefined) return badRequest(res, req, "you must provide a model parameter");
    if (!Array.isArray(body.messages)) return badRequest(res, req, "Missing required parameter: 'messages'.");
    const messages = arr(body.messages).map(obj);
    const lastUser = [...messages].reverse().find((m) => m.role === "user");
    let turn = fakeTurn({
      tools: toolsOf(body.tools, false),
      choice: choiceOf(body.tool_choice),
      lastUserText: contentText(lastUser?.content),
      afterToolResults: ["tool", "function"].includes(str(messages.at(-1)?.role) ?? ""),
      parallel: body.parallel_tool_calls !== false,
      output: outputOf(body.response_format),
      ...(num(body.max_completion_tokens ?? body.max_tokens) !== undefined ? { maxTokens: num(body.max_completion_tokens ?? body.max_tokens)! } : {}),
      stop: stopsOf(body.stop),
    });
    const scripted = turn.kind === "text" && options.reply ? await options.reply(req) : undefined;
    if (scripted !== undefined) turn = { kind: "text", text: scripted, pieces: pieces(scripted), stop: "end" };
    const choicesCount = Math.max(1, Math.floor(num(body.n) ?? 1));
    const toolCalls = turn.kind === "tools" ? turn.calls.map((c) => ({ id: callId(), type: "function" as const, function: { name: c.name, arguments: c.arguments } })) : [];
    const finishReason = turn.kind === "tools" ? "tool_calls" : turn.stop === "max_tokens" ? "length" : "stop";
    const completionTokens = turn.kind === "tools" ? USAGE.toolCompletion : turn.pieces.length * choicesCount;
    const promptTokens = turn.kind === "tools" ? USAGE.toolPrompt : USAGE.chatPrompt;
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    };
    const base = { id: nextId("chatcmpl-fake"), created: now(), model: modelName(body, "gpt-4o-mini"), service_tier: "default", system_fingerprint: "fp_fake" };
    const indexes = Array.from({ length: choicesCount }, (_, i) => i);
    if (body.stream !== true) {
      const message = turn.kind === "tools" ? { role: "assistant", content: null, refusal: null, annotations: [], tool_calls: toolCalls } : { role: "assistant", content: turn.text, refusal: null, annotations: [] };
      sendJson(res, 200, { ...base, object: "chat.completion", choices: indexes.map((index) => ({ index, message, logprobs: null, finish_reason: finishReason })), usage }, requestId());
      return;
    }
    const includeUsage = obj(body.stream_options).include_usage === true;
    const chunk = (index: number, delta: Json, finish: string | null = null): SseEvent =>
      jsonEvent({ ...base, object: "chat.completion.chunk", choices: [{ index, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) });
    const events: SseEvent[] = [];
    for (const index of indexes) {
      if (turn.kind === "text") {
        events.push(chunk(index, { role: "assistant", content: "", refusal: null }));
        for (const p of turn.pieces) events.push(chunk(index, { content: p }));
      } else {
        toolCalls.forEach((call, k) => {
          const head = { index: k, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } };
          events.push(chunk(index, k === 0 ? { role: "assistant", content: null, refusal: null, tool_calls: [head] } : { tool_calls: [head] }));
          for (const p of pieces(call.function.arguments, 8)) if (p !== "") events.push(chunk(index, { tool_calls: [{ index: k, function: { arguments: p } }] }));
        });
      }
      events.push(chunk(index, {}, finishReason));
    }
    if (includeUsage) events.push(jsonEvent({ ...base, object: "chat.completion.chunk", choices: [], usage }));
    events.push({ data: "[DONE]" });
    // In-stream errors are a `data:` event with an `error` object, like an error body.
    await writeSse(res, events, { ...sseControls(req), failure: [jsonEvent(errorBody(500, undefined, undefined))], headers: requestId() });
  }

  /**
   * Responses, `POST /v1/responses`, as in the API reference "Create a model response", "The
   * response object" and "Streaming events": a `response` with `status`, `output` items (`message`
   * with `output_text` content parts; `function_call` with `call_id`, `name`, `arguments`),
   * `usage` (`input_tokens`, `output_tokens`, their `_details`, `total_tokens`), and the request's
   * settings echoed. Streamed, named events with `sequence_number`s: `response.created`,
   * `response.in_progress`, per output item `response.output_item.added`, then for a message
   * `response.content_part.added`, `response.output_text.delta`s, `response.output_text.done`,
   * `response.content_part.done`, or for a function call `response.function_call_arguments.delta`s
   * and `.done`; `response.output_item.done`; then `response.completed` (or `response.incomplete`)
   * with the whole response. An in-stream failure is an `error` event then `response.failed`.
   */
  async function responses(req: FakeRequest, res: ServerResponse): Promise<void> {
    const body = req.body;
    if (str(body.model) === undefined) return badRequest(res, req, "Missing required parameter: 'model'.");
    const items = typeof body.input === "string" ? [{ role: "user", content: body.input }] : arr(body.input).map(obj);
    const lastUser = [...items].reverse().find((i) => i.role === "user" && (i.type === undefined || i.type === "message"));
    const turn = fakeTurn({
      tools: toolsOf(body.tools, true),
      choice: choiceOf(body.tool_choice),
      lastUserText: contentText(lastUser?.content),
      afterToolResults: obj(items.at(-1)).type === "function_call_output",
      parallel: body.parallel_tool_calls !== false,
      output: outputOf(obj(body.text).format),
      ...(num(body.max_output_tokens) !== undefined ? { maxTokens: num(body.max_output_tokens)! } : {}),
    });
    const incomplete = turn.kind === "text" && turn.stop === "max_tokens";
    const status = incomplete ? "incomplete" : "completed";
    type Item = Json & { id: string };
    const output: Item[] =
      turn.kind === "tools"
        ? turn.calls.map((c) => ({ id: nextId("fc_fake"), type: "function_call", status: "completed", arguments: c.arguments, call_id: callId(), name: c.name }))
        : [{ id: nextId("msg_fake"), type: "message", status, role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text: turn.text }] }];
    const inputTokens = turn.kind === "tools" ? USAGE.toolPrompt : USAGE.responsesInput;
    const outputTokens = turn.kind === "tools" ? USAGE.toolCompletion : turn.pieces.length;
    const created = now();
    const response = {
      id: nextId("resp_fake"),
      object: "response",
      created_at: created,
      status,
      background: false,
      completed_at: incomplete ? null : created,
      error: null,
      incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
      instructions: body.instructions ?? null,
      max_output_tokens: body.max_output_tokens ?? null,
      max_tool_calls: body.max_tool_calls ?? null,
      model: modelName(body, "gpt-4.1-mini"),
      output,
      parallel_tool_calls: body.parallel_tool_calls ?? true,
      previous_response_id: body.previous_response_id ?? null,
      reasoning: { effort: null, summary: null },
      service_tier: "default",
      store: body.store ?? true,
      temperature: body.temperature ?? 1,
      text: body.text ?? { format: { type: "text" }, verbosity: "medium" },
      tool_choice: body.tool_choice ?? "auto",
      tools: body.tools ?? [],
      top_p: body.top_p ?? 1,
      truncation: body.truncation ?? "disabled",
      usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens },
      user: body.user ?? null,
      metadata: body.metadata ?? {},
    };
    if (body.stream !== true) return sendJson(res, 200, response, requestId());
    let seq = 0;
    const ev = (type: string, fields: Json): SseEvent => jsonEvent({ type, sequence_number: seq++, ...fields }, type);
    const pending = { ...response, status: "in_progress", completed_at: null, incomplete_details: null, output: [], usage: null };
    const events: SseEvent[] = [ev("response.created", { response: pending }), ev("response.in_progress", { response: pending })];
    output.forEach((item, output_index) => {
      const item_id = item.id;
      if (item.type === "function_call") {
        events.push(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } }));
        const args = str(item.arguments) ?? "";
        for (const delta of pieces(args, 8)) if (delta !== "") events.push(ev("response.function_call_arguments.delta", { item_id, output_index, delta }));
        events.push(ev("response.function_call_arguments.done", { item_id, output_index, name: item.name, arguments: args }));
      } else {
        events.push(ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } }));
        const empty = { type: "output_text", annotations: [], logprobs: [], text: "" };
        events.push(ev("response.content_part.added", { item_id, output_index, content_index: 0, part: empty }));
        const text = turn.kind === "text" ? turn.text : "";
        for (const delta of turn.kind === "text" ? turn.pieces : []) events.push(ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] }));
        events.push(ev("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] }));
        events.push(ev("response.content_part.done", { item_id, output_index, content_index: 0, part: { ...empty, text } }));
      }
      events.push(ev("response.output_item.done", { output_index, item }));
    });
    events.push(ev(incomplete ? "response.incomplete" : "response.completed", { response }));
    const controls = sseControls(req);
    // The failure's sequence numbers follow the events sent before it.
    const failSeq = Math.min(controls.failAfter ?? 0, events.length);
    const failed = { ...pending, status: "failed", error: { code: "server_error", message: "The server had an error while processing your request. Sorry about that!" } };
    const failure = [
      jsonEvent({ type: "error", code: "server_error", message: failed.error.message, param: null, sequence_number: failSeq }, "error"),
      jsonEvent({ type: "response.failed", sequence_number: failSeq + 1, response: failed }, "response.failed"),
    ];
    await writeSse(res, events, { ...controls, failure, headers: requestId() });
  }

  /**
   * Embeddings, `POST /v1/embeddings`, as in the API reference "Create embeddings" and "The
   * embedding object": `{object: "list", data: [{object: "embedding", index, embedding}], model,
   * usage: {prompt_tokens, total_tokens}}`. `input` is a string, strings, or token arrays;
   * `dimensions` is honoured (default 1536, 3072 for `text-embedding-3-large`); with
   * `encoding_format: "base64"` each embedding is the base64 of its little-endian float32 values
   * (what the `openai` SDK asks for by default, then decodes).
   */
  function embeddings(req: FakeRequest, res: ServerResponse) {
    const body = req.body;
    const model = str(body.model);
    if (model === undefined) return badRequest(res, req, "you must provide a model parameter");
    const input = body.input;
    const isTokens = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === "number");
    const inputs: (string | number[])[] | undefined =
      typeof input === "string" ? [input] : isTokens(input) ? [input] : Array.isArray(input) && input.length > 0 && input.every((i) => typeof i === "string" || isTokens(i)) ? (input as (string | number[])[]) : undefined;
    if (inputs === undefined) return badRequest(res, req, "'input' must be a string, an array of strings, or an array of token arrays.");
    if (inputs.some((i) => i.length === 0)) return badRequest(res, req, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.");
    const dimensions = Math.floor(num(body.dimensions) ?? (model === "text-embedding-3-large" ? 3072 : 1536));
    if (dimensions < 1) return badRequest(res, req, "Invalid 'dimensions': integer below minimum value. Expected a value >= 1.");
    const base64 = body.encoding_format === "base64";
    const tokens = inputs.reduce((sum, i) => sum + (typeof i === "string" ? estimateTokens(i) : i.length), 0);
    const data = inputs.map((i, index) => {
      const vector = fakeEmbedding(typeof i === "string" ? i : i.join(","), dimensions);
      return { object: "embedding", index, embedding: base64 ? float32Base64(vector) : vector };
    });
    sendJson(res, 200, { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } }, requestId());
  }

  return startFakeServer({
    prefix: "/v1",
    modelOf: (req) => str(req.body.model),
    writeError: fail,
    async handle(req, res) {
      if (req.body.model === "boom") return badRequest(res, req, "model boom does not exist");
      const route = `${req.method} ${req.path}`;
      if (route === "POST /chat/completions") return chatCompletions(req, res);
      if (route === "POST /responses") return responses(req, res);
      if (route === "POST /embeddings") return embeddings(req, res);
      if (route === "GET /models") {
        const data = ["gpt-4o-mini", "gpt-4.1-mini", "text-embedding-3-small"].map((id) => ({ id, object: "model", created: 0, owned_by: "system" }));
        return sendJson(res, 200, { object: "list", data }, requestId());
      }
      sendJson(res, 404, { error: { message: `Invalid URL (${req.method} /v1${req.path})`, type: "invalid_request_error", param: null, code: null } }, requestId());
    },
  });
}

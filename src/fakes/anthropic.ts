import type { ServerResponse } from "node:http";
import { arr, contentText, type Json, num, obj, str } from "./body.js";
import { type FakeError, type FakeModelServer, type FakeRequest, retryHeaders, sendJson, sseControls, startFakeServer } from "./http.js";
import { estimateTokens, type FakeScript, type FakeTool, type FakeToolChoice, fakeTurn, pieces, scriptQueue } from "./model.js";
import { jsonEvent, type SseEvent, writeSse } from "./sse.js";

/**
 * A running fake Anthropic API (see `startFakeAnthropic`).
 *
 * `requests` holds every request, with its path relative to `url` (`/v1/messages`), headers and
 * JSON body; `failNext(status)` makes the next request(s) fail.
 */
export interface FakeAnthropic extends FakeModelServer {
  /** Base URL to give an Anthropic client (`baseURL`), e.g. `http://127.0.0.1:PORT` (no `/v1`). */
  url: string;
  /**
   * Queues scripted replies: each of the next `POST /v1/messages` requests is answered with the
   * first entry that has a reply for it (a `FakeReply`, or a function of the request returning
   * one or `undefined`), which is then used up; with none, the usual deterministic answer.
   * Scripted tool calls get ids (`toolu_fake…`) and `stop_reason: "tool_use"`.
   * @throws TypeError for an entry that is neither a reply nor a function.
   */
  script(...replies: FakeScript<FakeRequest>[]): void;
}

/** Anthropic's error `type` and default message per status (the "Errors" page of the API docs). */
function errorType(status: number): [string, string] {
  switch (status) {
    case 400:
      return ["invalid_request_error", "Invalid request."];
    case 401:
      return ["authentication_error", "invalid x-api-key"];
    case 403:
      return ["permission_error", "Your API key does not have permission to use the specified resource."];
    case 404:
      return ["not_found_error", "Not found."];
    case 413:
      return ["request_too_large", "Request exceeds the maximum allowed number of bytes."];
    case 429:
      return ["rate_limit_error", "Number of requests has exceeded your per-minute rate limit. Please try again later."];
    case 504:
      return ["timeout_error", "Request timed out."];
    case 529:
      return ["overloaded_error", "Overloaded"];
    default:
      return status >= 500 ? ["api_error", "Internal server error"] : ["invalid_request_error", "Invalid request."];
  }
}

/** `tool_choice`: {type: "auto" | "any" | "none"} or {type: "tool", name}. */
function choiceOf(choice: unknown): FakeToolChoice {
  const c = obj(choice);
  if (c.type === "none") return { mode: "none" };
  if (c.type === "any") return { mode: "required" };
  if (c.type === "tool" && typeof c.name === "string") return { mode: "named", name: c.name };
  return { mode: "auto" };
}

/** The request's cacheable pieces in cache order (tools, system, messages), each with its `cache_control`. */
function segments(body: Json): Json[] {
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : arr(body.system).map(obj);
  const messages = arr(body.messages).flatMap((m) => {
    const { role, content } = obj(m);
    return typeof content === "string" ? [{ role, type: "text", text: content }] : arr(content).map((b) => ({ role, ...obj(b) }));
  });
  return [...arr(body.tools).map(obj), ...system, ...messages];
}

/**
 * Starts a fake Anthropic Messages API on 127.0.0.1 (a free port), for offline examples and tests.
 * It answers "Orders ship in 2 days.".
 *
 * Routes: `POST /v1/messages` (JSON or SSE with `stream: true`), `POST /v1/messages/count_tokens`.
 * `HEAD /` (a connectivity check Claude Code makes) is a 200. Anything else is a 404 in Anthropic's
 * error shape. `script(...)` queues replies a test chooses (a text, or tool calls with their input).
 *
 * Tool use: when the request offers client tools (with an `input_schema`), the model calls one,
 * unless `tool_choice` is `{type: "none"}`, the last user message carries `tool_result` blocks, or
 * it says "no tool". It calls the tool `tool_choice` names (`{type: "tool", name}`), else the tools
 * the last user message names (all of them unless `disable_parallel_tool_use`), else the first;
 * its `input` is a sample of the tool's `input_schema` (`{"orderId": "A-1001"}`).
 * `{type: "any"}` calls a tool even after tool results.
 *
 * Usage: input tokens are the request's size / 4; output tokens one per streamed piece (text) or
 * the input JSON's size / 4 (tool use). Prompt caching: the prefix up to the last block with
 * `cache_control` (tools, then system, then messages) counts as `cache_creation_input_tokens` the
 * first time and `cache_read_input_tokens` after (no minimum length). `max_tokens` cuts the text
 * (`stop_reason: "max_tokens"`), `stop_sequences` too (`stop_sequence`). Structured output
 * (`output_config.format` of type `json_schema`) gets JSON that matches the schema.
 *
 * Errors: `failNext(status)`, the `x-fake-error: <status>` header, or the model name
 * `error-<status>` (e.g. `error-429`, `error-529`) answer with `{type: "error", error: {type,
 * message}, request_id}`; a 429 or 5xx carries `retry-after-ms` (10) and `retry-after` (1).
 * Streams: `x-fake-stream-delay-ms: <ms>` paces the events, `x-fake-stream-error-after: <n>` sends
 * an `error` event (`overloaded_error`) after n events.
 */
export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  let n = 0;
  const nextId = (prefix: string) => `${prefix}${(++n).toString().padStart(4, "0")}`;
  const cached = new Set<string>();
  const scripts = scriptQueue<FakeRequest>();
  const requestIdHeader = (id: string) => ({ "request-id": id });
  const errorBody = (status: number, message: string | undefined, id: string): Json => {
    const [type, fallback] = errorType(status);
    return { type: "error", error: { type, message: message ?? fallback }, request_id: id };
  };
  const fail = (res: ServerResponse, error: FakeError, _req: FakeRequest) => {
    const id = nextId("req_fake");
    const limits: Record<string, string> = error.status === 429 ? { "anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": new Date(Date.now() + error.retryAfterMs).toISOString() } : {};
    sendJson(res, error.status, errorBody(error.status, error.message, id), { ...requestIdHeader(id), ...retryHeaders(error), ...limits });
  };
  const badRequest = (res: ServerResponse, req: FakeRequest, message: string) => fail(res, { status: 400, message, retryAfterMs: 0 }, req);

  /** Input tokens, and the part of them read from or written to the prompt cache. */
  function inputUsage(body: Json) {
    const all = segments(body);
    const total = Math.max(1, estimateTokens(JSON.stringify(all)));
    let last = -1;
    all.forEach((s, i) => {
      if (s.cache_control !== undefined) last = i;
    });
    if (last < 0) return { input_tokens: total, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } };
    const prefix = `${str(body.model)}\n${JSON.stringify(all.slice(0, last + 1).map(({ cache_control: _, ...rest }) => rest))}`;
    const prefixTokens = Math.min(total, estimateTokens(prefix));
    const read = cached.has(prefix);
    cached.add(prefix);
    const hour = obj(all[last]!.cache_control).ttl === "1h";
    return {
      input_tokens: total - prefixTokens,
      cache_creation_input_tokens: read ? 0 : prefixTokens,
      cache_read_input_tokens: read ? prefixTokens : 0,
      cache_creation: { ephemeral_5m_input_tokens: read || hour ? 0 : prefixTokens, ephemeral_1h_input_tokens: !read && hour ? prefixTokens : 0 },
    };
  }

  /**
   * Messages, `POST /v1/messages`, as in the API reference "Messages" and the "Streaming Messages"
   * guide: a `message` with `content` blocks (`text`; `tool_use` with `id`, `name`, `input`),
   * `stop_reason` ("end_turn" | "max_tokens" | "stop_sequence" | "tool_use"), `stop_sequence`, and
   * `usage` (`input_tokens`, `cache_creation_input_tokens`, `cache_read_input_tokens`,
   * `cache_creation`, `output_tokens`, `service_tier`). Streamed, named events: `message_start`
   * (the message with empty content and `output_tokens: 1`), per block `content_block_start`
   * (a `ping` after the first), `content_block_delta`s (`text_delta`, or `input_json_delta` with
   * `partial_json` pieces, the first one empty), `content_block_stop`; then `message_delta` with
   * the `stop_reason` and the cumulative usage (cache tokens included), then `message_stop`. An
   * in-stream failure is an `error` event.
   */
  async function messages(req: FakeRequest, res: ServerResponse): Promise<void> {
    const body = req.body;
    if (str(body.model) === undefined) return badRequest(res, req, "model: Field required");
    if (num(body.max_tokens) === undefined) return badRequest(res, req, "max_tokens: Field required");
    if (!Array.isArray(body.messages)) return badRequest(res, req, "messages: Field required");
    const msgs = arr(body.messages).map(obj);
    const lastUser = [...msgs].reverse().find((m) => m.role === "user");
    const last = msgs.at(-1);
    const tools: FakeTool[] = arr(body.tools)
      .map(obj)
      .filter((t) => t.input_schema !== undefined && (t.type === undefined || t.type === "custom"))
      .map((t) => ({ name: str(t.name) ?? "", schema: t.input_schema }));
    const format = obj(obj(body.output_config).format ?? body.output_format);
    const turn = scripts.take(req) ?? fakeTurn({
      tools,
      choice: choiceOf(body.tool_choice),
      lastUserText: contentText(arr(lastUser?.content).length > 0 ? arr(lastUser?.content).filter((b) => obj(b).type === "text") : lastUser?.content),
      afterToolResults: last?.role === "user" && arr(last.content).some((b) => obj(b).type === "tool_result"),
      parallel: obj(body.tool_choice).disable_parallel_tool_use !== true,
      ...(format.type === "json_schema" ? { output: format.schema ?? {} } : {}),
      maxTokens: num(body.max_tokens)!,
      stop: arr(body.stop_sequences).filter((s): s is string => typeof s === "string"),
    });
    const content: Json[] =
      turn.kind === "tools" ? turn.calls.map((c) => ({ type: "tool_use", id: nextId("toolu_fake"), name: c.name, input: JSON.parse(c.arguments) as unknown })) : [{ type: "text", text: turn.text }];
    const stopReason = turn.kind === "tools" ? "tool_use" : turn.stop === "max_tokens" ? "max_tokens" : turn.stop === "stop_sequence" ? "stop_sequence" : "end_turn";
    const stopSequence = turn.kind === "text" ? (turn.stopSequence ?? null) : null;
    const outputTokens = turn.kind === "tools" ? turn.calls.reduce((s, c) => s + estimateTokens(c.arguments), 0) : turn.pieces.length;
    const input = inputUsage(body);
    const id = nextId("msg_fake");
    const requestId = nextId("req_fake");
    const message = {
      id,
      type: "message",
      role: "assistant",
      model: str(body.model),
      content,
      stop_reason: stopReason,
      stop_sequence: stopSequence,
      stop_details: null,
      container: null,
      usage: { ...input, output_tokens: outputTokens, service_tier: "standard" },
    };
    if (body.stream !== true) return sendJson(res, 200, message, requestIdHeader(requestId));
    const ev = (type: string, fields: Json): SseEvent => jsonEvent({ type, ...fields }, type);
    const events: SseEvent[] = [ev("message_start", { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...message.usage, output_tokens: 1 } } })];
    content.forEach((block, index) => {
      if (block.type === "tool_use") {
        events.push(ev("content_block_start", { index, content_block: { ...block, input: {} } }));
        if (index === 0) events.push(ev("ping", {}));
        events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } }));
        for (const p of pieces(JSON.stringify(block.input), 8)) events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: p } }));
      } else {
        events.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
        if (index === 0) events.push(ev("ping", {}));
        for (const text of turn.kind === "text" ? turn.pieces : []) if (text !== "") events.push(ev("content_block_delta", { index, delta: { type: "text_delta", text } }));
      }
      events.push(ev("content_block_stop", { index }));
    });
    const { cache_creation: _, ...deltaUsage } = input;
    events.push(ev("message_delta", { delta: { stop_reason: stopReason, stop_sequence: stopSequence }, usage: { ...deltaUsage, output_tokens: outputTokens } }));
    events.push(ev("message_stop", {}));
    await writeSse(res, events, { ...sseControls(req), failure: [jsonEvent(errorBody(529, undefined, requestId), "error")], headers: requestIdHeader(requestId) });
  }

  /** Token counting, `POST /v1/messages/count_tokens`: `{input_tokens}`, the same estimate `messages` reports. */
  function countTokens(req: FakeRequest, res: ServerResponse) {
    if (str(req.body.model) === undefined) return badRequest(res, req, "model: Field required");
    if (!Array.isArray(req.body.messages)) return badRequest(res, req, "messages: Field required");
    sendJson(res, 200, { input_tokens: Math.max(1, estimateTokens(JSON.stringify(segments(req.body)))) }, requestIdHeader(nextId("req_fake")));
  }

  const server = await startFakeServer({
    prefix: "",
    modelOf: (req) => str(req.body.model),
    writeError: fail,
    async handle(req, res) {
      const route = `${req.method} ${req.path}`;
      if (route === "POST /v1/messages") return messages(req, res);
      if (route === "POST /v1/messages/count_tokens") return countTokens(req, res);
      if (route === "HEAD /") return void res.writeHead(200).end();
      fail(res, { status: 404, message: `Not found: ${req.method} ${req.path}`, retryAfterMs: 0 }, req);
    },
  });
  return { ...server, script: (...replies) => scripts.push(...replies) };
}

import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { Json } from "./body.js";
import { converseContent, converseReply, converseStreamEvents, readConverse } from "./bedrock-converse.js";
import { embedReply } from "./bedrock-embed.js";
import { invokeFamilyOf, invokeTokens } from "./bedrock-invoke.js";
import { exceptionMessage, jsonEventMessage, writeEventStream } from "./eventstream.js";
import { type FakeError, type FakeModelServer, type FakeRequest, sendJson, sseControls, startFakeServer } from "./http.js";

/**
 * A running fake Bedrock Runtime (see `startFakeBedrock`).
 *
 * `requests` holds every request, with its path as sent (`/model/anthropic.claude-sonnet-4-5-v1%3A0/converse`:
 * the SDK URL-encodes the model id), headers and JSON body; `failNext(status)` makes the next request(s) fail.
 */
export interface FakeBedrock extends FakeModelServer {
  /** Endpoint to give a `BedrockRuntimeClient` (`endpoint`), e.g. `http://127.0.0.1:PORT`. */
  url: string;
}

/** The service's exception per HTTP status (Bedrock Runtime API reference, "Errors" of each action), with its usual message. */
const EXCEPTIONS: Record<number, [string, string]> = {
  400: ["ValidationException", "Invalid request."],
  403: ["AccessDeniedException", "You don't have access to the model with the specified model ID."],
  404: ["ResourceNotFoundException", "The requested resource could not be found."],
  408: ["ModelTimeoutException", "Model has timed out in processing the request. Try your request again."],
  424: ["ModelErrorException", "The model returned an error."],
  429: ["ThrottlingException", "Too many requests, please wait before trying again."],
  500: ["InternalServerException", "The system encountered an unexpected error during processing. Try your request again."],
  503: ["ServiceUnavailableException", "Bedrock is unable to process your request."],
};

const exceptionOf = (status: number): [string, string] => EXCEPTIONS[status] ?? (status >= 500 ? EXCEPTIONS[500]! : EXCEPTIONS[400]!);

/** Routes: `/model/{modelId}/{action}`, the model id URL-decoded. */
const ROUTE = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

function route(req: FakeRequest): { modelId: string; action: string } | undefined {
  const m = ROUTE.exec(req.path);
  if (!m || req.method !== "POST") return undefined;
  try {
    return { modelId: decodeURIComponent(m[1]!), action: m[2]! };
  } catch {
    return undefined;
  }
}

/**
 * Starts a fake Amazon Bedrock Runtime on 127.0.0.1 (a free port), for offline examples and tests:
 * the real `BedrockRuntimeClient` of `@aws-sdk/client-bedrock-runtime` works against it unmodified
 * (`endpoint: fake.url`, any region, any static credentials: signatures are not checked). It
 * answers "Orders ship in 2 days.".
 *
 * Routes (`POST`): `/model/{modelId}/converse` (JSON) and `/converse-stream` (an
 * `application/vnd.amazon.eventstream` body of `messageStart`, `contentBlockStart`,
 * `contentBlockDelta`, `contentBlockStop`, `messageStop` and `metadata` events), for any model id;
 * `/model/{modelId}/invoke` and `/invoke-with-response-stream` (`chunk` events whose `bytes` are
 * the model's own stream events) in the body format of the model's family: Anthropic Claude
 * (`anthropic_version: "bedrock-2023-05-31"`, Messages API shapes), Amazon Nova (`messages-v1`),
 * Amazon Titan Text and Meta Llama (an application inference profile's ARN by its body's shape),
 * and the embedding models Amazon Titan Text Embeddings (`amazon.titan-embed-text-*`) and Cohere
 * Embed (`cohere.embed-*`), not streamed (see `bedrock-embed.ts`); other model ids get a
 * `ValidationException`.
 *
 * Tool use: when the request offers tools (Converse `toolConfig.tools[].toolSpec`, Claude
 * `tools`), the model calls one unless the conversation ends with tool results or the last user
 * message says "no tool"; its input is a sample of the tool's schema (`{"orderId": "A-1001"}`).
 * Tool use ids are `tooluse_fake…` (Converse, Nova) or `toolu_bdrk_fake…` (Claude). As the
 * service does, Converse refuses tool blocks without `toolConfig` and a `toolResult` whose
 * `toolUseId` no `toolUse` of the previous message has.
 *
 * Usage: input tokens are the request's size / 4, output tokens one per streamed piece of text
 * (or the tool input's size / 4), in each family's own fields; InvokeModel replies also carry the
 * `x-amzn-bedrock-input-token-count` and `-output-token-count` headers, and the last stream chunk
 * `amazon-bedrock-invocationMetrics`.
 *
 * Errors: `failNext(status)`, the `x-fake-error: <status>` header, or the model id `error-<status>`
 * answer as the service does: the status, the `x-amzn-errortype` header naming the exception
 * (`ThrottlingException` for 429, `ValidationException` for 400, `ModelTimeoutException` for 408,
 * `ServiceUnavailableException` for 503...) and `{"message": ...}`, so the SDK throws its typed
 * exception. Streams: `x-fake-stream-delay-ms: <ms>` paces the events,
 * `x-fake-stream-error-after: <n>` sends a `modelStreamErrorException` after n events.
 */
export async function startFakeBedrock(): Promise<FakeBedrock> {
  let n = 0;
  const nextId = (prefix: string) => `${prefix}${(++n).toString().padStart(4, "0")}`;
  const fail = (res: ServerResponse, error: FakeError) => {
    const [name, fallback] = exceptionOf(error.status);
    sendJson(res, error.status, { message: error.message ?? fallback }, { "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`, "x-amzn-requestid": randomUUID() });
  };
  const invalid = (res: ServerResponse, message: string) => fail(res, { status: 400, message, retryAfterMs: 0 });
  const streamFailure = exceptionMessage("modelStreamErrorException", { message: "The model stream failed. Try your request again.", originalStatusCode: 529, originalMessage: "Overloaded" });

  async function converse(req: FakeRequest, res: ServerResponse, streamed: boolean): Promise<void> {
    const read = readConverse(req.body);
    if ("invalid" in read) return invalid(res, read.invalid);
    const reply = converseReply(read.turn, read.inputTokens, converseContent(read.turn, nextId));
    const requestId = { "x-amzn-requestid": randomUUID() };
    if (!streamed) return sendJson(res, 200, reply, requestId);
    await writeEventStream(res, converseStreamEvents(read.turn, reply), { ...sseControls(req), failure: streamFailure, headers: requestId });
  }

  async function invoke(req: FakeRequest, res: ServerResponse, modelId: string, streamed: boolean): Promise<void> {
    const embedded = embedReply(modelId, req.body);
    if (embedded) {
      if (streamed) return invalid(res, "The model is unsupported for streaming.");
      if ("invalid" in embedded) return invalid(res, embedded.invalid);
      return sendJson(res, 200, embedded.body, { "x-amzn-requestid": randomUUID(), "x-amzn-bedrock-input-token-count": String(embedded.inputTokens), "x-amzn-bedrock-output-token-count": "0", "x-amzn-bedrock-invocation-latency": "42" });
    }
    const family = invokeFamilyOf(modelId, req.body);
    if (!family) return invalid(res, "The provided model identifier is invalid.");
    const read = family.read(req.body);
    if ("invalid" in read) return invalid(res, read.invalid);
    const reply = family.reply(read.turn, read.inputTokens, modelId, nextId);
    const tokens = invokeTokens(read.turn, read.inputTokens);
    const requestId = { "x-amzn-requestid": randomUUID() };
    if (!streamed) {
      return sendJson(res, 200, reply, {
        ...requestId,
        "x-amzn-bedrock-input-token-count": String(tokens.inputTokenCount),
        "x-amzn-bedrock-output-token-count": String(tokens.outputTokenCount),
        "x-amzn-bedrock-invocation-latency": "42",
      });
    }
    const chunks: Json[] = family.chunks(read.turn, read.inputTokens, reply);
    const lastChunk = chunks.length - 1;
    chunks[lastChunk] = { ...chunks[lastChunk], "amazon-bedrock-invocationMetrics": { ...tokens, invocationLatency: 42, firstByteLatency: 21 } };
    const events = chunks.map((chunk) => jsonEventMessage("chunk", { bytes: Buffer.from(JSON.stringify(chunk), "utf8").toString("base64"), p: "abcdefgh" }));
    await writeEventStream(res, events, { ...sseControls(req), failure: streamFailure, headers: { ...requestId, "x-amzn-bedrock-content-type": "application/json" } });
  }

  return startFakeServer({
    prefix: "",
    http2: true,
    modelOf: (req) => route(req)?.modelId,
    writeError: (res, error) => fail(res, error),
    async handle(req, res) {
      const r = route(req);
      if (!r) return fail(res, { status: 404, message: `No route for ${req.method} ${req.path}`, retryAfterMs: 0 });
      if (r.action === "converse" || r.action === "converse-stream") return converse(req, res, r.action === "converse-stream");
      return invoke(req, res, r.modelId, r.action === "invoke-with-response-stream");
    },
  });
}

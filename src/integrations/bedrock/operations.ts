import type { ReadableMessage } from "../../semconv/messages.js";
import { isObject } from "../kit/model-call.js";
import { bodyJson, bodyText } from "./body.js";
import { converseFolder, converseInput, converseReply } from "./converse.js";
import { isEmbedFamily } from "./embed-families.js";
import { familyOf, type InvokeFamily } from "./families.js";
import type { Reply, StreamFolder } from "./reply.js";

/**
 * The four Bedrock Runtime operations that reach a model, as data: the span's name, how the
 * command's input reads as llm input, how the output reads as a reply, and for a streamed
 * operation which output member is the stream and how its items fold. Other commands are not traced.
 */
export interface Operation {
  span: string;
  /** The llm input of the command's input, and what reading its output needs. */
  start(input: Record<string, unknown>): Started;
}

/** What an operation makes of one call's input. */
export interface Started {
  input: ReadableMessage[];
  /** The model family of an InvokeModel body (`modelFamily` metadata). */
  family?: string;
  /** Whether the model is an embedding model (its request may take over a framework's embedding span). */
  embedding?: boolean;
  /** A non-streamed output as a reply. */
  reply?(output: Record<string, unknown>): Reply;
  /** A streamed output: its stream member and a folder for its items. */
  stream?: { member: "stream" | "body"; folder(): StreamFolder };
}

type Obj = Record<string, unknown>;

/** The request body, when no family reads it: its text as one user message. */
const rawInput = (body: unknown): ReadableMessage[] => {
  const text = bodyText(body);
  return text === undefined ? [] : [{ role: "user", content: text }];
};

/** A reply body no family reads: its text as the output. */
const rawReply = (body: unknown): Reply => ({ parts: [{ kind: "text", text: bodyText(body) ?? "" }], metadata: {} });

/** What the service adds to an InvokeModel stream's last chunk. */
const METRICS_KEY = "amazon-bedrock-invocationMetrics";

/**
 * The folder of an InvokeModelWithResponseStream: each `chunk` event's `bytes` decoded as JSON and
 * folded by the family's folder; the last chunk's invocation metrics give the token counts when
 * the family's own events do not, and its presence marks the end for a body no family reads.
 */
function chunkFolder(family: InvokeFamily | undefined): StreamFolder {
  const inner = family?.folder();
  const decoded = new WeakMap<object, Obj>();
  let metrics: Obj | undefined;
  let text = "";
  const chunkOf = (event: unknown): Obj | undefined => {
    if (!isObject(event) || !isObject(event.chunk)) return undefined;
    let chunk = decoded.get(event);
    if (!chunk) {
      chunk = bodyJson(event.chunk.bytes);
      decoded.set(event, chunk);
    }
    return chunk;
  };
  return {
    fold(event) {
      const chunk = chunkOf(event);
      if (!chunk) return;
      if (isObject(chunk[METRICS_KEY])) metrics = chunk[METRICS_KEY];
      if (inner) inner.fold(chunk);
      else text += bodyText((event as { chunk: { bytes?: unknown } }).chunk.bytes) ?? "";
    },
    content(event) {
      const chunk = chunkOf(event);
      return chunk !== undefined && (inner ? inner.content(chunk) : true);
    },
    complete: () => (inner ? inner.complete() : metrics !== undefined),
    reply() {
      const reply: Reply = inner ? inner.reply() : { parts: [{ kind: "text", text }], metadata: {} };
      return {
        ...reply,
        inputTokens: reply.inputTokens ?? metrics?.inputTokenCount,
        outputTokens: reply.outputTokens ?? metrics?.outputTokenCount,
        metadata: { ...reply.metadata, invocationLatencyMs: metrics?.invocationLatency, firstByteLatencyMs: metrics?.firstByteLatency },
      };
    },
  };
}

/** InvokeModel and its stream: the body read by the model's family (or as text when none reads it). */
function invoke(streamed: boolean): Operation["start"] {
  return (input) => {
    const body = bodyJson(input.body);
    const family = familyOf(input.modelId, body);
    const started: Started = { input: family ? family.input(body) : rawInput(input.body) };
    if (family) started.family = family.name;
    if (family && isEmbedFamily(family)) started.embedding = true;
    if (streamed) started.stream = { member: "body", folder: () => chunkFolder(family) };
    else started.reply = (output) => (family ? family.reply(bodyJson(output.body)) : rawReply(output.body));
    return started;
  };
}

/** The operations traced, by the name the command's schema (or class) gives. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  Converse: { span: "bedrock.converse", start: (input) => ({ input: converseInput(input), reply: converseReply }) },
  ConverseStream: { span: "bedrock.converse_stream", start: (input) => ({ input: converseInput(input), stream: { member: "stream", folder: converseFolder } }) },
  InvokeModel: { span: "bedrock.invoke_model", start: invoke(false) },
  InvokeModelWithResponseStream: { span: "bedrock.invoke_model_with_response_stream", start: invoke(true) },
};

/**
 * The operation a command runs: its operation schema's name (`[9, namespace, "Converse", ...]`
 * in SDKs with schemas), else its class name without `Command`; undefined for commands not traced.
 */
export function operationOf(command: unknown): Operation | undefined {
  if (!isObject(command)) return undefined;
  const schema = (command as { schema?: unknown }).schema;
  let name: unknown;
  if (Array.isArray(schema) && schema[0] === 9) name = schema[2];
  else if (isObject(schema) && typeof schema.name === "string") name = schema.name;
  if (typeof name !== "string") {
    const ctor = (command as { constructor?: { name?: unknown } }).constructor?.name;
    name = typeof ctor === "string" ? ctor.replace(/Command$/, "") : undefined;
  }
  return typeof name === "string" && Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name] : undefined;
}

import { readable } from "../../spans/lc-values.js";
import { defaultSerializeLimits, toJsonValue } from "../../spans/serialize.js";
import { describeError } from "../../util/describe-error.js";
import { field, isMessage, readMessage } from "./messages.js";

/** A LangChain `Document` as our spans carry it. */
export interface ReadableDocument {
  pageContent: string;
  metadata: unknown;
}

type Walk = (v: unknown) => unknown;

/**
 * The LangChain objects read into plain values, first match wins: messages, documents and
 * prompt values (what a prompt template hands a model). Everything else is walked as it is.
 */
const readers: readonly { what: string; claims(v: object): boolean; read(v: object, walk: Walk): unknown }[] = [
  { what: "message", claims: isMessage, read: (v) => readMessage(v) },
  {
    what: "document",
    claims: (v) => typeof field(v, "pageContent") === "string",
    read: (v, walk): ReadableDocument => ({ pageContent: field(v, "pageContent") as string, metadata: walk(field(v, "metadata") ?? {}) }),
  },
  {
    // ChatPromptValue (its messages), StringPromptValue (its text).
    what: "prompt value",
    claims: (v) => typeof field(v, "toChatMessages") === "function",
    read: (v, walk) => {
      const messages = field(v, "messages");
      if (Array.isArray(messages)) return walk(messages);
      const text = field(v, "value");
      return typeof text === "string" ? text : walk((field(v, "toChatMessages") as () => unknown).call(v));
    },
  },
];

const MAX_DEPTH = defaultSerializeLimits.maxDepth;
const MAX_ITEMS = defaultSerializeLimits.maxItems;

/** Whether an object is one of LangChain's `Serializable` class instances (its JSON is a `{"lc":1}` blob). */
function isSerializable(v: object): boolean {
  return Array.isArray(field(v, "lc_namespace")) && typeof field(v, "toJSON") === "function";
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function walk(v: unknown, depth: number, stack: object[]): unknown {
  if (v === null || typeof v !== "object") return v;
  if (stack.includes(v)) return "<circular>";
  if (depth >= MAX_DEPTH) return "[max depth]";
  stack.push(v);
  try {
    const next: Walk = (x) => walk(x, depth + 1, stack);
    for (const reader of readers) if (reader.claims(v)) return reader.read(v, next);
    if (Array.isArray(v)) {
      const out = v.slice(0, MAX_ITEMS).map(next);
      if (v.length > MAX_ITEMS) out.push(`[${v.length - MAX_ITEMS} more items]`);
      return out;
    }
    if (isPlain(v)) {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).slice(0, MAX_ITEMS)) out[key] = next(field(v, key));
      return out;
    }
    // Any other LangChain object: its serialization blob, made readable (secrets come out empty).
    if (isSerializable(v)) return readable(toJsonValue(v)) ?? null;
    // Dates, Maps, Errors, binary data...: captured as they are.
    return v;
  } catch (err) {
    return `[unreadable: ${describeError(err)}]`;
  } finally {
    stack.pop();
  }
}

/**
 * A value a LangChain run takes or gives, made readable: messages become `{role, content,
 * tool_calls?, tool_call_id?}`, documents `{pageContent, metadata}`, prompt values their
 * messages or text, other LangChain objects their readable form; never a `{"lc":1,...}` blob.
 * Cycles and depth are bounded; throwing getters become markers. Never throws.
 */
export function readValue(value: unknown): unknown {
  return walk(value, 0, []);
}

/** Documents a retriever returned, read; non-documents are left out. */
export function readDocuments(value: unknown): ReadableDocument[] {
  if (!Array.isArray(value)) return [];
  const out: ReadableDocument[] = [];
  for (const d of value.slice(0, MAX_ITEMS)) {
    const read = d !== null && typeof d === "object" ? readValue(d) : undefined;
    if (read !== null && typeof read === "object" && typeof (read as ReadableDocument).pageContent === "string") out.push(read as ReadableDocument);
  }
  return out;
}

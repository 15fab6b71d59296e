import { messageText } from "../../spans/message-text.js";
import { isObject } from "../kit/model-call.js";

/** A LangChain message as our spans carry it: a role, plain text, and the tool-call links. */
export interface ReadableMessage {
  role: string;
  content: string;
  /** An assistant message's tool calls (`{id, name, args}`); the wire folds them into `content` lines. */
  tool_calls?: { id?: string; name: string; args?: unknown }[];
  /** A tool message: the id of the call it answers. */
  tool_call_id?: string;
  /** A tool or function message: the tool's name. */
  name?: string;
}

type Extra = "tool_calls" | "tool_call_id" | "name";

/**
 * How each LangChain message type (`getType()`) reads: the role the service knows and the fields
 * kept beside the text. A type not listed keeps its own name as the role.
 */
export const messageKinds: Readonly<Record<string, { role: string; keep: readonly Extra[] }>> = {
  human: { role: "user", keep: [] },
  ai: { role: "assistant", keep: ["tool_calls"] },
  system: { role: "system", keep: [] },
  developer: { role: "system", keep: [] },
  tool: { role: "tool", keep: ["tool_call_id", "name"] },
  function: { role: "tool", keep: ["name"] },
  // ChatMessage carries its own role (`role` field).
  generic: { role: "user", keep: [] },
};

/** Reads a property that may be a throwing getter: undefined then. */
export function field(obj: object, key: string): unknown {
  try {
    return (obj as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

function call(obj: object, method: string): unknown {
  const fn = field(obj, method);
  if (typeof fn !== "function") return undefined;
  try {
    return fn.call(obj);
  } catch {
    return undefined;
  }
}

/** Whether a value is a LangChain message (a `BaseMessage` of any copy of `@langchain/core`). */
export function isMessage(v: object): boolean {
  return (typeof field(v, "getType") === "function" || typeof field(v, "_getType") === "function") && "content" in v;
}

/** The message type (`human`, `ai`, `tool`, ...). */
function typeOf(m: object): string {
  const t = call(m, "getType") ?? call(m, "_getType") ?? field(m, "type");
  return typeof t === "string" ? t : "human";
}

/** Tool calls of an AI message as `{id, name, args}`, dropping what is no call. */
export function toolCallsOf(m: object): { id?: string; name: string; args?: unknown }[] {
  const list = field(m, "tool_calls");
  if (!Array.isArray(list)) return [];
  const out: { id?: string; name: string; args?: unknown }[] = [];
  for (const c of list.slice(0, 100)) {
    if (!isObject(c)) continue;
    const name = field(c, "name");
    const id = field(c, "id");
    const entry: { id?: string; name: string; args?: unknown } = { name: typeof name === "string" && name ? name : "tool" };
    if (typeof id === "string") entry.id = id;
    const args = field(c, "args");
    if (args !== undefined) entry.args = args;
    out.push(entry);
  }
  return out;
}

const readers: Record<Extra, (m: object, out: ReadableMessage) => void> = {
  tool_calls(m, out) {
    const calls = toolCallsOf(m);
    if (calls.length > 0) out.tool_calls = calls;
  },
  tool_call_id(m, out) {
    const id = field(m, "tool_call_id");
    if (typeof id === "string") out.tool_call_id = id;
  },
  name(m, out) {
    const name = field(m, "name");
    if (typeof name === "string" && name) out.name = name;
  },
};

/** Message content as text; content whose parts throw when read becomes "". */
export function textOf(content: unknown): string {
  try {
    return messageText(content);
  } catch {
    return "";
  }
}

/** A LangChain message as `{role, content, tool_calls?, tool_call_id?, name?}`. Never throws. */
export function readMessage(m: object): ReadableMessage {
  const type = typeOf(m);
  const kind = messageKinds[type];
  const own = field(m, "role");
  const role = type === "generic" && typeof own === "string" && own ? own : (kind?.role ?? type);
  const out: ReadableMessage = { role, content: textOf(field(m, "content")) };
  for (const extra of kind?.keep ?? []) readers[extra](m, out);
  return out;
}

import type { AttributeValue, Attributes } from "@opentelemetry/api";
import type { JsonValue } from "../tracing/serialize.js";
import { MAX_FOREIGN_JSON_CHARS } from "../tracing/string-limits.js";

/** A string attribute. */
export const str = (v: AttributeValue | undefined): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** A JSON attribute parsed; text that is not JSON (or too long to parse) stays text. */
export function json(v: AttributeValue | unknown): JsonValue | undefined {
  if (typeof v !== "string") return undefined;
  if (v.length > MAX_FOREIGN_JSON_CHARS) return v;
  const t = v.trimStart();
  if (!t.startsWith("{") && !t.startsWith("[") && !t.startsWith('"')) return v;
  try {
    return JSON.parse(v) as JsonValue;
  } catch {
    return v;
  }
}

/** `prefix.value` read by its `prefix.mime_type`: JSON parsed, text as it is (OpenInference). */
export function typedValue(a: Attributes, prefix: string): JsonValue | undefined {
  const value = a[`${prefix}.value`];
  if (typeof value !== "string") return undefined;
  return a[`${prefix}.mime_type`] === "application/json" ? readable(json(value)) : value;
}

/**
 * Items of a flattened list: `prefix.0.rest`, `prefix.1.rest` ... as objects of their `rest`
 * keys (`llm.input_messages.0.message.role` → `[{ "message.role": ... }]`).
 */
export function indexed(a: Attributes, prefix: string): Record<string, AttributeValue>[] {
  const items: Record<string, AttributeValue>[] = [];
  const lead = `${prefix}.`;
  for (const [key, value] of Object.entries(a)) {
    if (!key.startsWith(lead) || value === undefined) continue;
    const rest = key.slice(lead.length);
    const dot = rest.indexOf(".");
    const index = Number(dot < 0 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(index) || index < 0 || index > 10_000) continue;
    (items[index] ??= {})[dot < 0 ? "" : rest.slice(dot + 1)] = value;
  }
  return items.filter((i) => i !== undefined);
}

/** Sub-items of an indexed item: `tool_calls.0.tool_call.function.name` under `tool_calls`. */
export function subIndexed(item: Record<string, AttributeValue>, prefix: string): Record<string, AttributeValue>[] {
  return indexed(item as Attributes, prefix);
}

type LcBlob = { lc: number; type: string; id: string[]; kwargs?: { [key: string]: JsonValue } };

/** A LangChain serialization blob: `{"lc":1,"type":"constructor","id":[...],"kwargs":{...}}`. */
export function isLcBlob(v: JsonValue | undefined): v is LcBlob & { [key: string]: JsonValue } {
  return v !== null && typeof v === "object" && !Array.isArray(v) && v.lc === 1 && Array.isArray(v.id);
}

const lcRoles: Record<string, string> = {
  SystemMessage: "system",
  HumanMessage: "user",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  ToolMessage: "tool",
  FunctionMessage: "tool",
  ChatMessage: "user",
};

/**
 * A value made readable: LangChain's serialization blobs (`{"lc":1,"type":"constructor",...}`)
 * become what they stand for (messages as `{role, content}`, prompt values as their messages,
 * documents as their text); `{"output": x}` wrappers of one key stay as they are.
 */
export function readable(v: JsonValue | undefined, depth = 0): JsonValue | undefined {
  if (v === undefined || depth > 8) return v;
  if (Array.isArray(v)) return v.map((x) => readable(x, depth + 1) ?? null);
  if (v === null || typeof v !== "object") return v;
  if (isLcBlob(v)) {
    const kind = v.id[v.id.length - 1] ?? "";
    const kwargs = v.kwargs ?? {};
    const role = lcRoles[kind];
    if (role) {
      const out: { [key: string]: JsonValue } = { role: kind === "ChatMessage" && typeof kwargs.role === "string" ? kwargs.role : role, content: readable(kwargs.content, depth + 1) ?? "" };
      if (Array.isArray(kwargs.tool_calls) && kwargs.tool_calls.length > 0) out.tool_calls = kwargs.tool_calls;
      if (typeof kwargs.tool_call_id === "string") out.tool_call_id = kwargs.tool_call_id;
      return out;
    }
    if (kind === "Document") return typeof kwargs.page_content === "string" ? kwargs.page_content : (readable(kwargs, depth + 1) ?? null);
    if (Array.isArray(kwargs.messages)) return readable(kwargs.messages, depth + 1) ?? null;
    return readable(kwargs, depth + 1) ?? null;
  }
  const out: { [key: string]: JsonValue } = {};
  for (const [k, x] of Object.entries(v)) out[k] = readable(x, depth + 1) ?? null;
  return out;
}

import type { AttributeValue, Attributes } from "@opentelemetry/api";
import { readable } from "../spans/lc-values.js";
import type { JsonValue } from "../spans/json-value.js";
import { MAX_FOREIGN_JSON_CHARS } from "../spans/string-limits.js";

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
  // for-in rather than Object.entries: no array of pairs for each of the span's attributes.
  for (const key in a) {
    if (!key.startsWith(lead)) continue;
    const value = a[key];
    if (value === undefined || !Object.hasOwn(a, key)) continue;
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

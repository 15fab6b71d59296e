import type { AttributeValue, Attributes } from "@opentelemetry/api";
import { readable } from "../spans/lc-values.js";
import type { JsonValue } from "../spans/json-value.js";
import { MAX_FOREIGN_JSON_CHARS } from "../util/string-limits.js";

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
  return indexedLists(a, [prefix])[0]!;
}

/**
 * The items of several flattened lists (as {@link indexed} reads each), in one pass over the
 * attributes: a span's input and output messages, a message's parts and tool calls. No prefix
 * may start with another followed by a dot (each key belongs to one list at most).
 */
export function indexedLists(a: Attributes, prefixes: readonly string[]): Record<string, AttributeValue>[][] {
  const lists: Record<string, AttributeValue>[][] = [];
  const leads: string[] = [];
  for (const prefix of prefixes) {
    lists.push([]);
    leads.push(`${prefix}.`);
  }
  // for-in rather than Object.entries: no array of pairs for each of the span's attributes.
  for (const key in a) {
    for (let p = 0; p < leads.length; p++) {
      const lead = leads[p]!;
      if (!key.startsWith(lead)) continue;
      const value = a[key];
      if (value === undefined || !Object.hasOwn(a, key)) break;
      const dot = key.indexOf(".", lead.length);
      const index = Number(dot < 0 ? key.slice(lead.length) : key.slice(lead.length, dot));
      if (!Number.isInteger(index) || index < 0 || index > 10_000) continue;
      const items = lists[p]!;
      let item = items[index];
      if (item === undefined) items[index] = item = {};
      item[dot < 0 ? "" : key.slice(dot + 1)] = value;
      break;
    }
  }
  // Items in index order, the gaps of a sparse list left out.
  for (let p = 0; p < lists.length; p++) {
    const items = lists[p]!;
    let dense = true;
    for (let i = 0; i < items.length; i++) if (items[i] === undefined) dense = false;
    if (!dense) lists[p] = items.filter((i) => i !== undefined);
  }
  return lists;
}

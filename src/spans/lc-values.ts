import type { JsonValue } from "./json-value.js";

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

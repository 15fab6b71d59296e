import { toText } from "../../spans/serialize.js";
import { isObject } from "../kit/model-call.js";

/** What a tool span records of an MCP `CallToolResult`. */
export interface ToolOutcome {
  /** The span's output: the text content joined; with `structuredContent`, `{ text, structuredContent }`. */
  output: unknown;
  /** Set when the result says `isError: true`: the error the span carries (the result's text). */
  error?: Error;
}

type Block = Record<PropertyKey, unknown>;

const str = (v: unknown): string => (typeof v === "string" ? v : v === undefined || v === null ? "" : toText(v));

/**
 * How each content block of the MCP spec (`ContentBlock`: text, image, audio, embedded resource,
 * resource link) reads as text: binary data is named, never inlined.
 */
const blockText: { readonly [type: string]: (block: Block) => string } = {
  text: (b) => str(b.text),
  image: (b) => `[image ${str(b.mimeType)}]`,
  audio: (b) => `[audio ${str(b.mimeType)}]`,
  resource: (b) => {
    const r = isObject(b.resource) ? b.resource : {};
    return typeof r.text === "string" ? r.text : `[resource ${str(r.uri)}]`;
  },
  resource_link: (b) => `[resource_link ${str(b.uri)}]`,
};

function contentText(content: readonly unknown[]): string {
  const out: string[] = [];
  for (const block of content) {
    const read = isObject(block) && typeof block.type === "string" && Object.hasOwn(blockText, block.type) ? blockText[block.type] : undefined;
    out.push(read ? read(block as Block) : str(block));
  }
  return out.filter((s) => s !== "").join("\n");
}

/**
 * Reads a tool result (as the client received it or as the server's handler returned it) into
 * what its span records. A value that is not a `CallToolResult` (a legacy `toolResult`, a task)
 * is the output as it is. Throws only what a hostile result's getters throw: callers guard it.
 */
export function readToolResult(result: unknown): ToolOutcome {
  if (!isObject(result) || !Array.isArray(result.content)) return { output: result };
  const text = contentText(result.content);
  const structured = result.structuredContent;
  const output = structured === undefined || structured === null ? text : { text, structuredContent: structured };
  if (result.isError !== true) return { output };
  const error = new Error(text || "the tool returned isError without a message");
  error.name = "McpToolError";
  return { output, error };
}

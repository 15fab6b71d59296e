import { context } from "@opentelemetry/api";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { updateCurrentSpan } from "../../tracing/update.js";
import { quietly } from "../kit/model-call.js";
import { readToolResult } from "./tool-result.js";

/** What a tool span opens with. */
export interface ToolCallStart {
  /** The tool's name (the span's name). */
  name: string;
  /** The tool's arguments; undefined records no input. */
  input: unknown;
  /** The tool's description, when this side knows it. */
  description?: unknown;
  /**
   * Span metadata: which side recorded the span (`mcpSide`: "client" or "server") and who is at the
   * other end (`mcpServer` on the client's span, `mcpClient` on the server's). Both spans carry the
   * tool's name, and the peer keys name the *other* side: without `mcpSide`, a client and a server
   * of one name (as in js-genai's MCP sample) read as each other.
   */
  metadata: Record<string, unknown>;
}

/**
 * Runs `call` (an SDK call that returns a promise of a tool result) inside a tool span: a child of
 * the active span, or the root of a new trace. The span ends with the result (ERRORED when it says
 * `isError`) or with the rejection. The caller gets `call`'s own return value, and its own throw;
 * when `describe` throws or tracing is off, `call` simply runs.
 */
export function traceToolCall<R>(describe: () => ToolCallStart, call: () => R): R {
  let span: ManualSpan | undefined;
  try {
    const start = describe();
    span = openSpan(start.name, "tool", start.description === undefined ? {} : { description: start.description }, start.input);
    if (span) {
      span.setIntegration("MCP");
      const metadata = Object.fromEntries(Object.entries(start.metadata).filter(([, v]) => v !== undefined && v !== null && v !== ""));
      // ManualSpan has no metadata setter: the span is the current one inside its own context.
      if (Object.keys(metadata).length > 0) context.with(span.context, () => updateCurrentSpan({ metadata }));
    }
  } catch {
    span = undefined;
  }
  if (!span) return call();
  const open = span;
  let result: R;
  try {
    result = context.with(open.context, call);
  } catch (err) {
    open.fail(err);
    throw err;
  }
  quietly(() => {
    void Promise.resolve(result).then(
      (value) => finish(open, value),
      (err: unknown) => open.fail(err),
    );
  });
  return result;
}

function finish(span: ManualSpan, value: unknown): void {
  let outcome: ReturnType<typeof readToolResult>;
  try {
    outcome = readToolResult(value);
  } catch {
    // A result whose getters throw: recorded as the value it is (the capture is guarded).
    outcome = { output: value };
  }
  if (outcome.error) span.fail(outcome.error);
  else span.end(outcome.output);
}

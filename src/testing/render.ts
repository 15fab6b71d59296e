import type { CapturedSpan, CapturedTrace } from "./captured.js";

/** The most lines a rendered capture has; what is past it is counted. */
const MAX_LINES = 120;
/** The most characters of a value (input, output, error) on a line. */
const MAX_VALUE = 60;

/**
 * The captured traces as a compact tree, one line a span, for failure messages: what the agent
 * did, at a glance.
 *
 *     trace "support" SUCCESS (3 spans)
 *     └─ agent "support" in="When do orders ship?" out="In 2 days."
 *        ├─ llm "openai.chat.completions" model=gpt-4o-mini tokens=11/4 out="In 2 days."
 *        └─ tool "lookup_order" ERRORED error="no such order"
 */
export function renderTraces(traces: readonly CapturedTrace[]): string {
  if (traces.length === 0) return "nothing was captured (no trace ended while capturing: was the app's work awaited, and did it start after captureTraces()?)";
  const lines: string[] = [];
  let left = 0;
  const push = (line: string) => {
    if (lines.length < MAX_LINES) lines.push(line);
    else left++;
  };
  const count = traces.reduce((n, t) => n + t.spans.length, 0);
  push(`captured ${traces.length} trace(s), ${count} span(s):`);
  for (const trace of traces) {
    push(`trace ${quote(trace.name ?? trace.uuid)} ${trace.status} (${trace.spans.length} span${trace.spans.length === 1 ? "" : "s"})`);
    const walk = (span: CapturedSpan, prefix: string, last: boolean) => {
      push(`${prefix}${last ? "└─ " : "├─ "}${describeSpan(span)}`);
      const next = prefix + (last ? "   " : "│  ");
      span.children.forEach((child, i) => {
        walk(child, next, i === span.children.length - 1);
      });
    };
    trace.roots.forEach((root, i) => {
      walk(root, "", i === trace.roots.length - 1);
    });
  }
  if (left > 0) lines.push(`... ${left} more line(s)`);
  return lines.join("\n");
}

/** One span on one line: type, name, status when errored, and the fields that say most. */
export function describeSpan(span: CapturedSpan): string {
  const parts = [`${span.type} ${quote(span.name)}`];
  if (span.status === "ERRORED") parts.push("ERRORED");
  if (span.error !== undefined) parts.push(`error=${short(span.error)}`);
  if (span.model !== undefined) parts.push(`model=${span.model}`);
  if (span.inputTokenCount !== undefined || span.outputTokenCount !== undefined) parts.push(`tokens=${span.inputTokenCount ?? "?"}/${span.outputTokenCount ?? "?"}`);
  if (span.toolsCalled && span.toolsCalled.length > 0) parts.push(`tools=[${span.toolsCalled.map((t) => t.name).join(", ")}]`);
  if (span.input !== undefined && span.type !== "llm") parts.push(`in=${short(span.input)}`);
  if (span.output !== undefined) parts.push(`out=${short(span.output)}`);
  return parts.join(" ");
}

function quote(text: string): string {
  return JSON.stringify(text);
}

/** A value on one line, cut to {@link MAX_VALUE} characters. */
function short(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  text = text.replace(/\s+/g, " ");
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 3)}...` : text;
}

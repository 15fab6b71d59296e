import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { shapeValue } from "../encode/wire.js";
import { processWide } from "../process-wide.js";
import type { SpanType } from "../protocol/types.js";
import { BeeAiRuns } from "../semconv/beeai.js";
import { toolCallOf } from "../semconv/child-tools.js";
import { finishedSpan } from "../semconv/finished.js";
import { interpret } from "../semconv/interpret.js";
import { type LogRecords, takeLogs } from "./log-records.js";
import type { Mapped } from "../semconv/types.js";
import { keptShapes } from "../spans/kept-shapes.js";
import { applyScopedForeignDefaults } from "../spans/scoped-fields.js";
import { toJsonValue } from "../spans/serialize.js";
import type { JsonValue } from "../spans/json-value.js";
import { type ForeignSpanSource, type SpanData, setForeignSource } from "../spans/span-data.js";
import { buildTestCase, type LlmTestCaseOption } from "../spans/test-case.js";
import { checkField, spanFieldRules } from "../spans/validate-fields.js";

/** The GenAI operation a model call of ours counts as, under a span of another instrumentation. */
const MODEL_CALL = "chat";

/**
 * The operations of the children each tracked span has had (see childStarted). One map for all
 * the span processors of the process, whichever copy of the SDK (ESM or CommonJS) made them: a
 * child may start under another provider's span (zero-code's AI SDK spans, made by a provider of
 * its own, under a framework's span on the app's provider).
 */
const childOperations = processWide("bridge.childOperations", () => new WeakMap<object, string[]>());

/** The GenAI tool spans (`gen_ai.tool.name`) started under each tracked span, read when it ends (semconv/child-tools.ts). */
const childToolSpans = processWide("bridge.childToolSpans", () => new WeakMap<object, ReadableSpan[]>());

/** Online-evaluation settings for the foreign llm spans of one span processor. */
export interface ForeignEvaluation {
  metricCollection?: string;
  llmTestCase?: LlmTestCaseOption;
}

/**
 * How the spans of other instrumentations are read for one `EvaltraceSpanProcessor` (its
 * online-evaluation settings). It is each tracked span's {@link ForeignSpanSource} until the span
 * ends: a span sent unfinished (its trace could wait no longer) is read as it stands.
 */
export class ForeignReader implements ForeignSpanSource {

  constructor(readonly evaluation: ForeignEvaluation | undefined) {}

  /**
   * A tracked span got a child: its GenAI operation, else its AI SDK `ai.operationId` (a call of
   * the AI SDK, whose telemetry zero-code turns on), if it has one, is noted for the parent, and
   * a GenAI tool span is kept for it, its tool call read when the parent ends.
   */
  childStarted(parent: object, child: ReadableSpan): void {
    const op = child.attributes?.["gen_ai.operation.name"] ?? child.attributes?.["ai.operationId"];
    if (typeof op === "string") this.noteOperation(parent, op);
    if (child.attributes?.["gen_ai.tool.name"] !== undefined) {
      const tools = childToolSpans.get(parent);
      if (tools) tools.push(child);
      else childToolSpans.set(parent, [child]);
    }
  }

  /**
   * One of our llm spans (zero-code's SDK call) started under a tracked span: noted as a model
   * call under it, so that a framework's own span of that call is read as no second one (the
   * GenAI table types a model-call span around model calls base). Ours is kept as the llm span:
   * it is the request itself, with the SDK's own model, tokens and stream timings.
   */
  modelCallStarted(parent: object): void {
    this.noteOperation(parent, MODEL_CALL);
  }

  private noteOperation(parent: object, op: string): void {
    const ops = childOperations.get(parent);
    if (!ops) childOperations.set(parent, [op]);
    else if (!ops.includes(op)) ops.push(op);
  }

  /** BeeAI runs whose start span carried attributes to the span that closes them (semconv/beeai.ts). */
  private readonly beeAi = new BeeAiRuns();

  /** What the conventions read of `span`, with its records `logs` and its children's operations. */
  finished(span: ReadableSpan, logs: LogRecords | undefined) {
    const toolCalls = childToolSpans.get(span)?.flatMap((tool) => toolCallOf(tool.attributes ?? {}) ?? []);
    return this.beeAi.fold(span, finishedSpan(span, logs, childOperations.get(span), toolCalls));
  }

  /** Reads a span that has not ended, as it stands (what its trace sends for it now). */
  spanData(span: object): SpanData {
    const logs = takeLogs((span as ReadableSpan).spanContext().spanId);
    const mapped = interpret(this.finished(span as ReadableSpan, logs));
    return new ForeignSpan(this, mapped?.type ?? "base", mapped, logs).spanData(span);
  }

  /** Whether a convention reads `span` as it stands, before it ended (its start attributes). */
  claims(span: object): boolean {
    return this.claimed(span) !== undefined;
  }

  /** The type and name a convention reads `span` as, as it stands (its start attributes). */
  claimed(span: object): { type: SpanType; name: string } | undefined {
    const mapped = interpret(this.finished(span as ReadableSpan, undefined));
    return mapped && { type: mapped.type, name: mapped.name };
  }

  /** A span kept as `type` when it ended, read then by its convention (`mapped`, from its records `logs`), from now on its data. */
  ended(span: ReadableSpan, type: SpanType, mapped: Mapped | undefined, logs: LogRecords | undefined): SpanData {
    const read = new ForeignSpan(this, type, mapped, logs);
    setForeignSource(span, read);
    return read;
  }

  /**
   * The trace's local root, kept as a base span once something under it was kept (it ended
   * without a type of its own). Read with the records that came since it ended (those before
   * were let go); when no convention claimed it then, none would now.
   */
  endedRoot(span: ReadableSpan, claimed: boolean): void {
    const logs = takeLogs(span.spanContext().spanId);
    this.ended(span, "base", claimed ? interpret(this.finished(span, logs)) : undefined, logs);
  }
}

/**
 * A kept span of another instrumentation as its convention read it when it ended: the one object
 * the bridge stores on it. It becomes the span's {@link SpanData} when the span is sent: its input
 * and output shaped for the wire, the online-evaluation and scoped-default fields added. Content
 * records that came after it ended (a log record emitted late) are read with those it had.
 */
class ForeignSpan implements SpanData, ForeignSpanSource {
  name: string | undefined = undefined;
  input: JsonValue | undefined = undefined;
  output: JsonValue | undefined = undefined;
  fields: { [key: string]: JsonValue } = NO_FIELDS;
  error: string | undefined = undefined;
  readonly foreign = true;

  constructor(
    private readonly reader: ForeignReader,
    readonly type: SpanType,
    mapped: Mapped | undefined,
    /** Its content records, until it is sent: read again with any that come later. */
    private logs: LogRecords | undefined,
  ) {
    this.take(mapped);
    keptShapes.mappedSpan = this;
  }

  /** Its data as sent (once, when its trace or late update is written). */
  spanData(span: object): SpanData {
    const late = takeLogs((span as ReadableSpan).spanContext().spanId);
    if (late !== undefined) {
      // Records that came after it ended: read again with those it had.
      const logs = this.logs ? [...this.logs, ...late] : late;
      this.take(interpret(this.reader.finished(span as ReadableSpan, logs)));
    }
    this.logs = undefined;
    const type = this.type;
    // Parsed from attributes of any size: bounded like a captured value.
    if (this.input !== undefined) this.input = shapeInput(type, toJsonValue(this.input));
    if (this.output !== undefined) this.output = shapeValue(type, toJsonValue(this.output), true);
    const evaluation = this.reader.evaluation;
    if (evaluation && type === "llm") Object.assign(this.fields, evaluationFields(evaluation, this.input, this.output));
    applyScopedForeignDefaults(span, type, this.fields);
    return this;
  }

  /**
   * Takes what the convention read. A type other than the convention's (a kept local root, a span
   * `keep` kept) makes a base span with the span's own name.
   */
  private take(mapped: Mapped | undefined): void {
    const read = mapped !== undefined && mapped.type === this.type;
    this.name = read ? mapped.name : undefined;
    this.input = read ? mapped.input : undefined;
    this.output = read ? mapped.output : undefined;
    this.fields = read ? mapped.fields : { integration: mapped?.integration ?? "OpenTelemetry" };
    this.error = read ? mapped.error : undefined;
  }
}

const NO_FIELDS: { [key: string]: JsonValue } = Object.freeze({});

type Obj = { [key: string]: JsonValue };
const isObj = (v: JsonValue | undefined): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A span's input for the wire ({@link shapeValue}), and for an llm span's messages the links of
 * a tool call to its result the conventions read (an assistant's `tool_calls` with their ids, a
 * tool message's `tool_call_id`: semconv/messages.ts), which `{role, content}` alone would lose.
 */
function shapeInput(type: SpanType, input: JsonValue): JsonValue {
  const shaped = shapeValue(type, input);
  if (type !== "llm" || !Array.isArray(shaped) || !Array.isArray(input)) return shaped;
  // shapeValue reads a list holding one message list as that list.
  const source = input.length === 1 && Array.isArray(input[0]) && shaped.length !== 1 ? input[0] : input;
  if (source.length !== shaped.length) return shaped;
  return shaped.map((m, i) => {
    const from = source[i];
    if (!isObj(m) || !isObj(from)) return m;
    const linked: Obj = { ...m };
    if (Array.isArray(from.tool_calls) && from.tool_calls.length > 0) linked.tool_calls = from.tool_calls;
    if (typeof from.tool_call_id === "string" && from.tool_call_id !== "") linked.tool_call_id = from.tool_call_id;
    return linked;
  });
}

/**
 * The online-evaluation fields of a foreign llm span, checked like those of our own spans, from
 * its input and output as sent. The test case comes from the app's callback, which may throw or
 * return anything: then there is no test case, and the span still goes out.
 */
function evaluationFields(evaluation: ForeignEvaluation, input: JsonValue | undefined, output: JsonValue | undefined): { [key: string]: JsonValue } {
  const out: { [key: string]: JsonValue } = {};
  const collection = checkField(spanFieldRules.metricCollection!, evaluation.metricCollection, "metricCollection").value;
  if (collection !== undefined) out.metricCollection = collection;
  const messages = Array.isArray(input) ? (input as { role: string; content: string }[]) : [];
  let testCase: unknown;
  try {
    testCase = buildTestCase(evaluation.llmTestCase, typeof collection === "string" ? collection : undefined, messages, typeof output === "string" ? output : "");
  } catch {
    testCase = undefined;
  }
  const checked = checkField(spanFieldRules.llmTestCase!, testCase, "llmTestCase").value;
  if (checked !== undefined) out.llmTestCase = checked;
  return out;
}

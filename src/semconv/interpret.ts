import type { SpanType } from "../protocol/types.js";
import type { JsonValue } from "../spans/json-value.js";
import { SPAN_TYPE_ATTRIBUTE } from "../spans/span-data.js";
import { MAX_NAME_CHARS, truncateString } from "../util/string-limits.js";
import { checkField, spanFieldRules } from "../spans/validate-fields.js";
import { adk } from "./adk.js";
import { aiSdk } from "./ai-sdk.js";
import { childToolCalls } from "./child-tools.js";
import { genAi } from "./genai.js";
import { genkit } from "./genkit.js";
import { langfuseInput, langfuseOutput } from "./langfuse.js";
import { openInference } from "./openinference.js";
import { openLlmetry } from "./openllmetry.js";
import type { Convention, FieldSource, FinishedSpan, Mapped } from "./types.js";
import { voltAgent } from "./voltagent.js";

/** The conventions, most specific first: the first that claims a span reads it. */
export const conventions: readonly Convention[] = [openInference, openLlmetry, aiSdk, genkit, voltAgent, adk, genAi];

const spanTypes = new Set<string>(["base", "llm", "retriever", "agent", "tool"]);

function read(source: FieldSource, span: FinishedSpan): JsonValue | undefined {
  for (const key of source.keys) {
    const v = span.attributes[key];
    if (source.as === "string" && typeof v === "string" && v !== "") return v;
    if (source.as === "count" && typeof v === "number") return v;
  }
  return undefined;
}

/**
 * What a foreign span is in our traces, decided from its final attributes, events and log
 * records by the first convention that claims it; undefined when none does (HTTP, DB and other
 * infrastructure spans: their kept descendants re-parent past them). Typed fields are checked
 * like those of our own spans, so a NaN token count or a huge model name never gets a trace
 * rejected. Never throws.
 */
export function interpret(span: FinishedSpan): Mapped | undefined {
  try {
    const declared = span.attributes[SPAN_TYPE_ATTRIBUTE];
    const isDeclared = typeof declared === "string" && spanTypes.has(declared);
    let convention: Convention | undefined;
    for (const c of conventions) {
      if (c.claims(span)) {
        convention = c;
        break;
      }
    }
    if (convention === undefined && !isDeclared) return undefined;
    const type: SpanType | undefined = isDeclared ? (declared as SpanType) : convention!.type(span);
    if (!type) return undefined;
    const fields: { [key: string]: JsonValue } = {};
    let input: JsonValue | undefined;
    let output: JsonValue | undefined;
    let error: string | undefined;
    if (convention !== undefined) {
      for (const source of convention.fields) {
        if ((source.types !== undefined && !source.types.includes(type)) || fields[source.field] !== undefined) continue;
        const v = read(source, span);
        if (v !== undefined) fields[source.field] = v;
      }
      if (convention.input !== undefined) input = convention.input(span, type);
      if (convention.output !== undefined) output = convention.output(span, type);
      if (convention.extra !== undefined) Object.assign(fields, convention.extra(span, type));
      if (convention.error !== undefined) error = convention.error(span, type);
      // What the convention did not find, from Langfuse's attributes (langfuse.ts).
      if (input === undefined) input = langfuseInput(span, type);
      if (output === undefined) output = langfuseOutput(span, type);
      // An llm span that recorded no reply, with the tool calls its tool children ran (child-tools.ts).
      if (type === "llm" && output === undefined && fields.toolsCalled === undefined) {
        const calls = childToolCalls(span);
        if (calls !== undefined) [output, fields.toolsCalled] = [calls.output, calls.toolsCalled];
      }
    }
    for (const key in fields) {
      if (!Object.hasOwn(spanFieldRules, key)) continue;
      const checked = checkField(spanFieldRules[key]!, fields[key], key).value;
      if (checked === undefined) delete fields[key];
      else fields[key] = checked;
    }
    const integration = convention === undefined ? "OpenTelemetry" : convention.name;
    fields.integration = integration;
    const spanName = convention === undefined || convention.spanName === undefined ? undefined : convention.spanName(span, type);
    const name = spanName === undefined || spanName === null ? span.name : spanName;
    const mapped: Mapped = { type, name: truncateString(name, MAX_NAME_CHARS), integration, fields, input, output };
    if (error !== undefined) mapped.error = error;
    return mapped;
  } catch {
    return undefined;
  }
}

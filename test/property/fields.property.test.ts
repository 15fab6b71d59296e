import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { type DevServer, startDevServer } from "../../src/devserver/index.js";
import { currentTraceUuid, flush, observe, shutdown, stats, updateCurrentSpan, updateCurrentTrace } from "../../src/index.js";
import { configureForTest } from "../helpers/sdk.js";

let dev: DevServer | undefined;
afterEach(async () => {
  await shutdown(0);
  await dev?.close();
  dev = undefined;
});

const spanTypes = ["base", "llm", "retriever", "agent", "tool"] as const;
const typeFields = [
  "model",
  "provider",
  "inputTokenCount",
  "outputTokenCount",
  "costPerInputToken",
  "costPerOutputToken",
  "promptAlias",
  "promptVersion",
  "promptLabel",
  "promptCommitHash",
  "embedder",
  "topK",
  "chunkSize",
  "availableTools",
  "agentHandoffs",
  "description",
];
const testCaseFields = ["expectedOutput", "retrievalContext", "context", "toolsCalled", "expectedTools"];
const commonFields = ["name", "metadata", "metricCollection", "llmTestCase", ...testCaseFields];
const optionKeys = [...commonFields, ...typeFields];
const spanUpdateKeys = [...optionKeys, "input", "output"];
const traceUpdateKeys = [...commonFields, "input", "output", "threadId", "userId", "tags", "environment"];
// Typos and look-alikes of real keys, and keys the service would reject outright.
const strayKeys = ["metricColection", "threadID", "tag", "dropTrace", "status", "uuid", "spans", "baseSpans", "startTime", "__proto__", "constructor", "toString"];

const toolCall = fc.record(
  {
    name: fc.oneof(fc.constantFrom("search", "", "  ", "a\u0000b"), fc.string(), fc.integer()),
    type: fc.oneof(fc.constantFrom("FUNCTION", "MCP", "function", "mcp", "tool", ""), fc.anything()),
    description: fc.oneof(fc.string(), fc.anything()),
    inputParameters: fc.oneof(fc.object(), fc.array(fc.integer()), fc.anything()),
    output: fc.anything(),
    reasoning: fc.oneof(fc.string(), fc.anything()),
    args: fc.anything(),
  },
  { requiredKeys: [] },
);

/** Values of the right shape, slightly off, or of no sensible shape at all. */
const nearMiss: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    fc.constantFrom<unknown>(
      "",
      "   ",
      "\u0000",
      "a\u0000b",
      "\ud800",
      "x".repeat(100_000),
      0,
      -1,
      1.5,
      -0.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.MAX_SAFE_INTEGER * 4,
      true,
      null,
      [],
      {},
      [""],
      [null, undefined],
      [1, "a", { text: "doc" }, { pageContent: "page" }, { other: 1 }],
      { name: "" },
      [{ name: "" }],
      { input: "q" },
      { input: "q", actualOutput: "a", extra: 1 },
      { input: 1, actualOutput: null },
      { input: "q", actualOutput: "a", retrievalContext: [{ text: "doc" }], toolsCalled: "search", context: "one" },
      new Date(0),
      new Date(Number.NaN),
      new Map([["a", 1]]),
      new Set(["a"]),
      Symbol("s"),
      10n,
      () => 1,
      Object.create(null),
      new Error("as a value"),
    ),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.object({ maxDepth: 1 })), { maxLength: 5 }),
    fc.array(toolCall, { maxLength: 3 }),
    toolCall,
    fc.record(
      {
        input: tie("value"),
        actualOutput: tie("value"),
        expectedOutput: tie("value"),
        context: tie("value"),
        retrievalContext: tie("value"),
        toolsCalled: tie("value"),
        expectedTools: tie("value"),
        comments: fc.string(),
      },
      { requiredKeys: [] },
    ),
    fc.anything({ maxDepth: 2, withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true, withSparseArray: true }),
  ),
})).value;

/** An object of fields: known keys, stray keys and random keys, each with any near-miss value. */
const fieldsOf = (keys: string[]) =>
  fc.dictionary(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: fc.constantFrom(...strayKeys) }, { weight: 1, arbitrary: fc.string() }), nearMiss, {
    maxKeys: 6,
  });

/** Mostly an object of fields; now and then not an object at all. */
const argumentOf = (keys: string[]) => fc.oneof({ weight: 8, arbitrary: fieldsOf(keys) }, { weight: 1, arbitrary: nearMiss });

describe("properties of field checks", () => {
  it("any value given to observe options, the decorator, updateCurrentSpan or updateCurrentTrace never throws and never gets a trace rejected", async () => {
    dev = await startDevServer({ port: 0 });
    const logger = configureForTest(dev.url, dev.projectKey);
    const uuids: string[] = [];
    const late: Promise<unknown>[] = [];
    const thrown = new Error("the app's own error");
    fc.assert(
      fc.property(
        fc.constantFrom(...spanTypes),
        fieldsOf(optionKeys),
        fc.constantFrom(...spanTypes),
        fieldsOf(optionKeys),
        argumentOf(spanUpdateKeys),
        argumentOf(traceUpdateKeys),
        argumentOf(spanUpdateKeys),
        argumentOf(traceUpdateKeys),
        fc.constantFrom("function", "decorator"),
        fc.oneof(fc.constant(undefined), nearMiss),
        fc.boolean(),
        (type, options, childType, childOptions, spanFields, traceFields, lateSpanFields, lateTraceFields, form, thrownValue, throws) => {
          // Late work: a child that outlives its root updates the span and the (already sent) trace.
          const lateChild = observe({ ...childOptions, type: childType } as never, async () => {
            await new Promise((r) => setTimeout(r, 1));
            updateCurrentSpan(lateSpanFields as never);
            updateCurrentTrace(lateTraceFields as never);
            return lateSpanFields;
          });
          const child = observe({ ...childOptions, type: childType } as never, () => {
            updateCurrentSpan(spanFields as never);
            if (throws) throw thrownValue ?? thrown;
            return spanFields;
          });
          const body = function (this: unknown) {
            uuids.push(currentTraceUuid()!);
            updateCurrentSpan(spanFields as never);
            updateCurrentTrace(traceFields as never);
            late.push(lateChild());
            try {
              child();
            } catch (err) {
              // The same value the child threw, untouched.
              expect(err).toBe(thrownValue ?? thrown);
            }
            return traceFields;
          };
          const fullOptions = { ...options, type } as never;
          const root =
            form === "function"
              ? observe(fullOptions, body)
              : (observe(fullOptions) as unknown as (m: typeof body, c: ClassMethodDecoratorContext) => typeof body)(body, {
                  kind: "method",
                  name: "method",
                } as ClassMethodDecoratorContext);
          expect(root.call({})).toBe(traceFields);
        },
      ),
      { numRuns: 300 },
    );
    await Promise.all(late);
    const result = await flush(10_000);
    // What the service refused, if anything, is in the error log.
    expect(logger.lines.filter((l) => l.startsWith("error:"))).toEqual([]);
    expect(result.notDelivered).toEqual([]);
    expect(result.ok).toBe(true);
    const s = stats()!;
    expect(s.tracesFailed).toBe(0);
    expect(s.updatesFailed).toBe(0);
    for (const uuid of uuids) expect(dev.state.traces[uuid], uuid).toBeDefined();
  });

  it("an observe option of an unknown type is a TypeError at definition, and only that", () => {
    fc.assert(
      fc.property(fc.anything(), (type) => {
        const valid = typeof type === "string" && (spanTypes as readonly string[]).includes(type);
        let error: unknown;
        try {
          observe({ type } as never, () => 1);
        } catch (err) {
          error = err;
        }
        if (valid || type === undefined || type === null) expect(error).toBeUndefined();
        else expect(error).toBeInstanceOf(TypeError);
      }),
    );
  });
});

import { type Context, context, ROOT_CONTEXT, type SpanContext, type TextMapGetter, type TextMapSetter, trace } from "@opentelemetry/api";
// Core is a devDependency only: the reference our vendored copies are compared with.
import { TraceState as CoreTraceState, W3CTraceContextPropagator as CoreW3C, suppressTracing } from "@opentelemetry/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TraceState } from "../../src/util/trace-state.js";
import { parseTraceParent, W3CTraceContextPropagator } from "../../src/util/w3c-trace-context.js";

// src/util/w3c-trace-context.ts and src/util/trace-state.ts are vendored from
// @opentelemetry/core: on every header here they must do what core does.

type Carrier = Record<string, string | string[] | undefined>;
const getter: TextMapGetter<Carrier> = { keys: (c) => Object.keys(c), get: (c, k) => c[k] };
const setter: TextMapSetter<Carrier> = { set: (c, k, v) => void (c[k] = v) };

const ours = new W3CTraceContextPropagator();
const core = new CoreW3C();

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const SPAN_ID = "b7ad6b7169203331";

/** What extract() put in the context, in a form toEqual compares (the trace state by what it holds). */
function extracted(propagator: { extract(c: Context, carrier: Carrier, g: TextMapGetter<Carrier>): Context }, carrier: Carrier) {
  const base = ROOT_CONTEXT.setValue(Symbol.for("test.base"), 1);
  const out = propagator.extract(base, carrier, getter);
  const sc = trace.getSpanContext(out);
  if (!sc) return { unchanged: out === base };
  const { traceState, ...rest } = sc;
  return { ...rest, traceState: traceState?.serialize(), hasTraceState: traceState !== undefined, keepsBase: out.getValue(Symbol.for("test.base")) === 1 };
}

const long = (n: number, c = "a") => c.repeat(n);
const members = (count: number, value = "v") => Array.from({ length: count }, (_, i) => `k${i}=${value}${i}`).join(",");

/** traceparent values: valid, and invalid in each way core checks. */
const TRACEPARENTS: string[] = [
  `00-${TRACE_ID}-${SPAN_ID}-01`,
  `00-${TRACE_ID}-${SPAN_ID}-00`,
  `00-${TRACE_ID}-${SPAN_ID}-03`,
  `00-${TRACE_ID}-${SPAN_ID}-ff`,
  ` 00-${TRACE_ID}-${SPAN_ID}-01 `,
  `  00-${TRACE_ID}-${SPAN_ID}-01`,
  `\t00-${TRACE_ID}-${SPAN_ID}-01`,
  `00-${TRACE_ID}-${SPAN_ID}-01-extra`,
  `01-${TRACE_ID}-${SPAN_ID}-01`,
  `01-${TRACE_ID}-${SPAN_ID}-01-future-fields`,
  `cc-${TRACE_ID}-${SPAN_ID}-09-x`,
  `ff-${TRACE_ID}-${SPAN_ID}-01`,
  `0-${TRACE_ID}-${SPAN_ID}-01`,
  `000-${TRACE_ID}-${SPAN_ID}-01`,
  `00-${TRACE_ID.toUpperCase()}-${SPAN_ID}-01`,
  `00-${TRACE_ID}-${SPAN_ID.toUpperCase()}-01`,
  `00-${TRACE_ID}-${SPAN_ID}-0A`,
  `0A-${TRACE_ID}-${SPAN_ID}-01`,
  `00-${"0".repeat(32)}-${SPAN_ID}-01`,
  `00-${TRACE_ID}-${"0".repeat(16)}-01`,
  `00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`,
  `00-${TRACE_ID}0-${SPAN_ID}-01`,
  `00-${TRACE_ID}-${SPAN_ID}-1`,
  `00-${TRACE_ID}-${SPAN_ID}`,
  `00_${TRACE_ID}_${SPAN_ID}_01`,
  `00-${TRACE_ID.replace("a", "g")}-${SPAN_ID}-01`,
  "",
  "garbage",
  `00-${TRACE_ID}-${SPAN_ID}-01${long(600, "-")}`,
];

/** tracestate values, each with a valid traceparent: valid, invalid members, limits. */
const TRACESTATES: (string | string[])[] = [
  "vendor=value",
  "a=1,b=2,c=3",
  " a=1 , b=2\t,c=3 ",
  "a=1,,b=2",
  "a=1,a=2",
  "A=1,b=2",
  "1a=1,b=2",
  "tenant@vendor=x,b=2",
  "0tenant@vendor=x",
  "tenant@Vendor=x",
  `t@${long(14)}=x`,
  `t@${long(15)}=x`,
  `${long(256)}=x`,
  `${long(257)}=x`,
  "k_-*/0=v",
  "a=,b=2",
  "a=va lue,b=2",
  "a=value ,b=2",
  "a= value",
  "a=v=w,b=2",
  "a=caf\u00e9,b=2",
  `a=${long(256)}`,
  `a=${long(257)}`,
  "novalue,b=2",
  "=1,b=2",
  members(31),
  members(32),
  members(33),
  members(40),
  `a=${long(250)},b=${long(250)},c=${long(20)}`,
  `a=${long(250)},b=${long(250)},c=1`,
  `big=${long(255)},big2=${long(255)},small=1`,
  ["a=1,b=2", "c=3"],
  ["a=1", "a=2"],
  [],
  "",
  ",",
  long(9000, "x"),
];

describe("the vendored W3CTraceContextPropagator, against @opentelemetry/core's", () => {
  it.each(TRACEPARENTS.map((t) => [JSON.stringify(t).slice(0, 90), t]))("extracts traceparent %s as core does", (_name, traceparent) => {
    const carrier: Carrier = { traceparent, tracestate: "vendor=value,other=1" };
    expect(extracted(ours, carrier)).toEqual(extracted(core, carrier));
  });

  it.each(TRACESTATES.map((t) => [JSON.stringify(t).slice(0, 90), t]))("extracts tracestate %s as core does", (_name, tracestate) => {
    const carrier: Carrier = { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate };
    const mine = extracted(ours, carrier);
    expect(mine).toEqual(extracted(core, carrier));
    expect(mine).toHaveProperty("isRemote", true);
  });

  it("extracts as core does when headers are missing, empty, arrays or not strings", () => {
    const carriers: Carrier[] = [
      {},
      { tracestate: "a=1" },
      { traceparent: "" },
      { traceparent: [`00-${TRACE_ID}-${SPAN_ID}-01`, "garbage"] },
      { traceparent: ["garbage", `00-${TRACE_ID}-${SPAN_ID}-01`] },
      { traceparent: [] },
      { traceparent: [`00-${TRACE_ID}-${SPAN_ID}-01`], tracestate: ["a=1", "b=2"] },
      { traceparent: 7 as unknown as string },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: 7 as unknown as string },
      { traceparent: `00-${TRACE_ID}-${SPAN_ID}-01`, tracestate: "" },
      { Traceparent: `00-${TRACE_ID}-${SPAN_ID}-01` },
    ];
    for (const carrier of carriers) expect(extracted(ours, carrier), JSON.stringify(carrier)).toEqual(extracted(core, carrier));
  });

  it("injects as core does: flags, trace state, invalid and suppressed contexts", () => {
    const contexts: [string, Context][] = [];
    const withSpan = (sc: SpanContext) => trace.setSpanContext(ROOT_CONTEXT, sc);
    for (const traceFlags of [0, 1, 2, 3, 15]) contexts.push([`flags ${traceFlags}`, withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags })]);
    contexts.push(["our trace state", withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState: new TraceState("a=1,b=2").set("c", "3") })]);
    contexts.push(["core's trace state", withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState: new CoreTraceState("a=1") })]);
    contexts.push(["an empty trace state", withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState: new TraceState() })]);
    contexts.push(["an invalid trace id", withSpan({ traceId: "0".repeat(32), spanId: SPAN_ID, traceFlags: 1 })]);
    contexts.push(["an invalid span id", withSpan({ traceId: TRACE_ID, spanId: "xyz", traceFlags: 1 })]);
    contexts.push(["suppressed", suppressTracing(withSpan({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 }))]);
    contexts.push(["no span", ROOT_CONTEXT]);
    for (const [name, ctx] of contexts) {
      const mine: Carrier = {};
      const theirs: Carrier = {};
      ours.inject(ctx, mine, setter);
      core.inject(ctx, theirs, setter);
      expect(mine, name).toEqual(theirs);
    }
    expect(ours.fields()).toEqual(core.fields());
  });

  it("writes flags of 16 and over as two hex digits, where core writes an invalid three (the one difference)", () => {
    const ctx = trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 0x1f });
    const mine: Carrier = {};
    ours.inject(ctx, mine, setter);
    expect(mine.traceparent).toBe(`00-${TRACE_ID}-${SPAN_ID}-1f`);
    expect(parseTraceParent(mine.traceparent as string)?.traceFlags).toBe(0x1f);
  });

  it("round-trips through core: what one injects, the other extracts the same", () => {
    const sc: SpanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, traceState: new TraceState("x=1,y=2") };
    const carrier: Carrier = {};
    ours.inject(trace.setSpanContext(context.active(), sc), carrier, setter);
    expect(extracted(core, carrier)).toEqual(extracted(ours, carrier));
    expect(extracted(ours, carrier)).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1, isRemote: true, traceState: "x=1,y=2" });
  });
});

/** Applies the same operations to our TraceState and core's; returns what each shows after every step. */
function replay(raw: string | undefined, ops: readonly (readonly ["set", string, string] | readonly ["unset", string] | readonly ["get", string])[]) {
  const trail = (start: { get(k: string): string | undefined; set(k: string, v: string): unknown; unset(k: string): unknown; serialize(): string }) => {
    let ts = start;
    const out: unknown[] = [ts.serialize()];
    for (const op of ops) {
      if (op[0] === "get") out.push(ts.get(op[1]));
      else {
        const next = (op[0] === "set" ? ts.set(op[1], op[2]) : ts.unset(op[1])) as typeof ts;
        out.push(next === ts ? "same" : "new", next.serialize());
        ts = next;
      }
    }
    return out;
  };
  return { ours: trail(new TraceState(raw)), core: trail(new CoreTraceState(raw)) };
}

describe("the vendored TraceState, against @opentelemetry/core's", () => {
  const cases: [string, string | undefined, Parameters<typeof replay>[1]][] = [
    ["empty, then sets", undefined, [["set", "a", "1"], ["set", "b", "2"], ["get", "a"], ["set", "a", "3"], ["get", "a"]]],
    ["unset of a present and an absent key", "a=1,b=2,c=3", [["unset", "b"], ["unset", "zz"], ["unset", "a"], ["unset", "c"], ["set", "d", "4"]]],
    ["invalid keys and values are refused", "a=1", [["set", "A", "1"], ["set", "a", "x,y"], ["set", "a", "x=y"], ["set", "a", ""], ["set", "a", "end "], ["set", "t@v", "1"], ["set", "a", long(257)]]],
    ["sets up to 512 characters, then refused", `a=${long(250)},b=${long(250)}`, [["set", "c", long(5)], ["set", "d", long(10)], ["set", "a", long(240)], ["set", "e", "1"]]],
    ["an update's length counts the value's difference", `a=${long(254)},b=${long(253)}`, [["set", "a", long(255)], ["set", "b", long(255)], ["set", "b", "1"], ["set", "c", long(200)]]],
    ["past 32 members on parse", members(40), [["get", "k0"], ["get", "k31"], ["get", "k32"], ["set", "new", "1"], ["unset", "k5"]]],
    ["lengths after unset", "a=1,b=2", [["unset", "a"], ["unset", "b"], ["set", "c", long(255)], ["set", "d", long(251)], ["set", "e", "1"]]],
    // The 512-character limit to the character, through each way the length is kept.
    ["the first set counts its separator-less member", undefined, [["set", "a", long(255)], ["set", "b", long(253)], ["set", "b", long(252)], ["set", "c", "1"]]],
    ["an unset of one of several counts its separator", `x=1,a=${long(250)},b=${long(250)}`, [["unset", "x"], ["set", "c", "12345"], ["set", "c", "1234"], ["set", "d", "1"]]],
    ["an unset of the last member leaves nothing", "x=1", [["unset", "x"], ["set", "a", long(255)], ["set", "b", long(252)], ["set", "c", "1"]]],
    ["an update counts the difference of the values", `a=${long(250)},b=${long(250)},c=1`, [["set", "c", "1234"], ["set", "c", "12345"], ["set", "c", "1"], ["set", "d", "1"]]],
    ["a parse that dropped members counts what it kept", `a=${long(250)},b=${long(250)},c=${long(20)},d=1`, [["set", "e", "1"], ["set", "f", "1"], ["set", "g", "1"]]],
    ["duplicated keys on parse", "a=1,b=2,a=3", [["get", "a"], ["unset", "a"], ["set", "b", "9"]]],
    ["whitespace and empty members", " a=1 ,, b=2\t", [["get", "a"], ["get", "b"], ["set", "c", "3"]]],
  ];
  it.each(cases)("%s", (_name, raw, ops) => {
    const { ours: mine, core: theirs } = replay(raw, ops);
    expect(mine).toEqual(theirs);
  });

  it("parses and edits any list of plausible members as core does (property)", () => {
    const key = fc.oneof(fc.constantFrom("a", "b", "k0", "t@v", "0t@v", "A", "", "evaltrace"), fc.stringMatching(/^[a-z0-9@_*/-]{1,12}$/));
    const value = fc.oneof(fc.constantFrom("1", "", " x", "x ", "a,b", "a=b", long(255), long(256)), fc.string({ maxLength: 40 }));
    const member = fc.oneof(fc.tuple(key, value).map(([k, v]) => `${k}=${v}`), fc.constantFrom("", " ", "novalue", "=x"));
    const raw = fc.tuple(fc.array(member, { maxLength: 40 }), fc.constantFrom(",", " , ", ",\t")).map(([ms, separator]) => ms.join(separator));
    const op = fc.oneof(
      fc.tuple(fc.constant("set" as const), key, value),
      fc.tuple(fc.constant("unset" as const), key),
      fc.tuple(fc.constant("get" as const), key),
    );
    fc.assert(
      fc.property(fc.option(raw, { nil: undefined }), fc.array(op, { maxLength: 12 }), (r, ops) => {
        const { ours: mine, core: theirs } = replay(r, ops);
        expect(mine).toEqual(theirs);
      }),
      { numRuns: 300 },
    );
  });
});

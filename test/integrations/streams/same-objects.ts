import { inspect } from "node:util";
import { expect } from "vitest";

// Issue 42, class 3a: what a wrapped client returns reads exactly as what the raw client returns
// (responses, streams, stream helpers, API promises): `util.inspect` (deep, no hidden members)
// and the own property names. Shared by the per-SDK test files of this folder.

/**
 * The text without the value of a promise's async context store (Node 20 keeps the
 * AsyncLocalStorage store a promise was made in on it): the wrapped call runs in its own span's
 * context, as every traced call does.
 */
function withoutContextStore(text: string): string {
  const lines = text.split("\n");
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.includes("[Symbol(kResourceStore)]:")) {
      out.push(line);
      continue;
    }
    const indent = line.length - line.trimStart().length;
    out.push(`${" ".repeat(indent)}[Symbol(kResourceStore)]: <store>`);
    if (!/[{[]$/.test(line.trimEnd())) continue;
    while (i + 1 < lines.length && !(lines[i + 1]!.length - lines[i + 1]!.trimStart().length === indent && /^[}\]]/.test(lines[i + 1]!.trimStart()))) i++;
    i++;
  }
  return out.join("\n");
}

/** Masks what the SDKs and the fakes make up per call: ids, request ids, times, counters. */
export function masked(text: string): string {
  return withoutContextStore(text)
    .replace(/'([a-z]+)_[0-9A-Za-z]+'/g, "'$1_<id>'")
    .replace(/[0-9a-f]{8,}(-[0-9a-f]{4,})*/gi, "<hex>")
    .replace(/\d+/g, "#");
}

/** How an object reads to the app: its `util.inspect` text (masked) and own property names. */
export function shape(value: unknown): { inspect: string; names: string[]; type: string } {
  return {
    type: typeof value,
    inspect: masked(inspect(value, { depth: 20, showHidden: false })),
    names: value !== null && (typeof value === "object" || typeof value === "function") ? Object.getOwnPropertyNames(value) : [],
  };
}

type Shape = ReturnType<typeof shape>;

/**
 * Runs `scenario` with the raw client (`wrapped` false) and with the wrapped one: each `snap(name,
 * value)` it takes (how `value` reads at that moment) reads the same in both runs.
 */
export async function expectSameObjects(scenario: (wrapped: boolean, snap: (name: string, value: unknown) => void) => Promise<void>): Promise<void> {
  const runs: Record<string, Shape>[] = [];
  for (const wrapped of [false, true]) {
    const snaps: Record<string, Shape> = {};
    await scenario(wrapped, (name, value) => {
      snaps[name] = shape(value);
    });
    runs.push(snaps);
  }
  const [raw, traced] = runs as [Record<string, Shape>, Record<string, Shape>];
  expect(Object.keys(traced)).toEqual(Object.keys(raw));
  expect(Object.keys(raw).length).toBeGreaterThan(0);
  for (const name of Object.keys(raw)) expect({ name, ...traced[name] }).toEqual({ name, ...raw[name] });
}

/** How one own property reads: its attributes, and its value's kind (a function's name, an object's class). */
function describeProperty(d: PropertyDescriptor): Record<string, unknown> {
  const kind = (v: unknown) =>
    typeof v === "function" ? `function ${(v as { name?: string }).name ?? ""}` : v !== null && typeof v === "object" ? `object ${Object.getPrototypeOf(v)?.constructor?.name ?? "null"}` : typeof v;
  return {
    configurable: d.configurable,
    enumerable: d.enumerable,
    writable: d.writable,
    ...("value" in d ? { value: kind(d.value) } : {}),
    ...(d.get ? { get: kind(d.get) } : {}),
    ...(d.set ? { set: kind(d.set) } : {}),
  };
}

/**
 * How a client and its resources read to the app, for each path (`""` is the client itself,
 * `chat.completions` a resource): `Reflect.ownKeys`, the property descriptors, `typeof`, the class
 * name, and `util.inspect(obj, { showHidden: true, depth: 4 })` (masked).
 */
export function clientReading(client: object, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const path of ["", ...paths]) {
    let obj: unknown = client;
    for (const key of path ? path.split(".") : []) obj = (obj as Record<string, unknown> | undefined)?.[key];
    if (obj === null || (typeof obj !== "object" && typeof obj !== "function")) {
      out[path || "(client)"] = { missing: true };
      continue;
    }
    const keys = Reflect.ownKeys(obj);
    out[path || "(client)"] = {
      type: typeof obj,
      class: Object.getPrototypeOf(obj)?.constructor?.name,
      ownKeys: keys.map(String),
      descriptors: Object.fromEntries(keys.map((k) => [String(k), describeProperty(Object.getOwnPropertyDescriptor(obj, k)!)])),
      inspect: masked(inspect(obj, { showHidden: true, depth: 4 })),
    };
  }
  return out;
}

/**
 * How an SDK object itself reads (issue 42: no own property of an SDK object replaced or added):
 * its own keys, each own property's descriptor, and `util.inspect` with hidden members, masked.
 */
export function objectShape(value: object): { keys: string[]; descriptors: string; inspect: string } {
  const descriptors: Record<string, unknown> = {};
  for (const key of Reflect.ownKeys(value)) descriptors[String(key)] = Object.getOwnPropertyDescriptor(value, key);
  return {
    keys: Reflect.ownKeys(value).map(String),
    descriptors: masked(inspect(descriptors, { depth: 2, showHidden: true })),
    inspect: masked(inspect(value, { showHidden: true, depth: 4 })),
  };
}

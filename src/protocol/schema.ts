/**
 * A request that breaks a rule of the spec, found without asking the service: `path` names the
 * field (e.g. `body.metrics[0].evaluationParams`), `message` the rule. The emulator answers it
 * with 400; the client raises it before sending.
 */
export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaError";
  }
}

const badRequest = (message: string) => new SchemaError(message);

/** Checks one value at `path`; throws a 400 naming the path and the rule. */
export type Check = (value: unknown, path: string) => void;

/** A field of an object schema. */
export interface Field {
  check: Check;
  required?: boolean;
}

export type Shape = Record<string, Field>;

const fail = (path: string, expected: string): never => {
  throw badRequest(`${path} must be ${expected}`);
};

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** The number in `iso` from `from` to `to` (exclusive), or -1 if a character there is not a digit. */
function digits(iso: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = iso.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** The two-digit number at `at` in `iso`, or -1 if either character is not a digit. */
function twoDigits(iso: string, at: number): number {
  const a = iso.charCodeAt(at) - 48;
  const b = iso.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/** Microseconds per unit of the last digit of a fraction `width` digits wide (up to 6). */
const FRACTION_SCALE = [1e6, 1e5, 1e4, 1e3, 100, 10, 1];

/**
 * Microseconds since the epoch of the common form `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (what every
 * SDK sends), read digit by digit; undefined for anything else (offsets, a day past the 28th,
 * which Date.parse may refuse), which takes the general path. A trace of 200k spans has 400k
 * timestamps: the regular expressions and Date.parse of the general path were a tenth of ingest.
 */
function fastIsoMicros(iso: string): number | undefined {
  const n = iso.length;
  if (n < 20 || n > 30 || iso.charCodeAt(n - 1) !== 90 /* Z */ || iso.charCodeAt(4) !== 45 || iso.charCodeAt(7) !== 45 || iso.charCodeAt(10) !== 84) return undefined;
  if (iso.charCodeAt(13) !== 58 || iso.charCodeAt(16) !== 58) return undefined;
  const century = twoDigits(iso, 0);
  const yearOfCentury = twoDigits(iso, 2);
  const month = twoDigits(iso, 5);
  const day = twoDigits(iso, 8);
  const hour = twoDigits(iso, 11);
  const minute = twoDigits(iso, 14);
  const second = twoDigits(iso, 17);
  if (century < 0 || yearOfCentury < 0 || month < 1 || month > 12 || day < 1 || day > 28 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  let micros = 0;
  if (n > 20) {
    // ".f" to ".fffffffff": up to 9 digits, microseconds kept (floored), as the general path does.
    if (iso.charCodeAt(19) !== 46 || n - 21 > 9 || n - 21 < 1) return undefined;
    const fraction = digits(iso, 20, n - 1);
    if (fraction < 0) return undefined;
    const width = n - 21;
    micros = width <= 6 ? fraction * FRACTION_SCALE[width]! : Math.floor(fraction / 10 ** (width - 6));
  } else if (iso.charCodeAt(19) !== 90) {
    return undefined;
  }
  return (dayMillis(century * 100 + yearOfCentury, month, day) + ((hour * 60 + minute) * 60 + second) * 1000) * 1000 + micros;
}

/** The last day {@link dayMillis} computed: a trace's timestamps nearly all fall on one day. */
let lastDay = -1;
let lastDayMillis = 0;

/** `Date.UTC(year, month - 1, day)`, remembered for the last day asked. */
function dayMillis(year: number, month: number, day: number): number {
  const key = (year * 100 + month) * 100 + day;
  if (key !== lastDay) {
    lastDayMillis = Date.UTC(year, month - 1, day);
    lastDay = key;
  }
  return lastDayMillis;
}

/** Microseconds since the epoch of an ISO 8601 timestamp, keeping sub-millisecond digits. */
export function isoMicros(iso: string): number {
  const fast = fastIsoMicros(iso);
  if (fast !== undefined) return fast;
  const m = /\.(\d+)/.exec(iso);
  const whole = Date.parse(iso.replace(/\.\d+/, ""));
  // The first six digits of the fraction, read as an integer: exact (0.259881 * 1e6 is not).
  const micros = m ? Number((m[1] ?? "").slice(0, 6).padEnd(6, "0")) : 0;
  return whole * 1000 + micros;
}

/** Accepts any value. */
const anyValue: Check = () => {};

export const t = {
  any: anyValue,
  string: ((v, p) => {
    if (typeof v !== "string") fail(p, "a string");
  }) as Check,
  nonEmpty: ((v, p) => {
    if (typeof v !== "string" || v.trim().length === 0) fail(p, "a non-empty string");
  }) as Check,
  boolean: ((v, p) => {
    if (typeof v !== "boolean") fail(p, "a boolean");
  }) as Check,
  number: ((v, p) => {
    if (typeof v !== "number" || !Number.isFinite(v)) fail(p, "a number");
  }) as Check,
  integer: ((v, p) => {
    if (!Number.isInteger(v)) fail(p, "an integer");
  }) as Check,
  nonNegativeInteger: ((v, p) => {
    if (!Number.isInteger(v) || (v as number) < 0) fail(p, "a non-negative integer");
  }) as Check,
  iso: ((v, p) => {
    if (typeof v !== "string" || (fastIsoMicros(v) === undefined && (!ISO.test(v) || Number.isNaN(Date.parse(v.replace(/\.\d+/, "")))))) {
      fail(p, "an ISO 8601 timestamp (e.g. 2026-01-02T03:04:05.123Z)");
    }
  }) as Check,
  record: ((v, p) => {
    if (!isPlainObject(v)) fail(p, "an object");
  }) as Check,
  strings: ((v, p) => {
    if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) fail(p, "a list of strings");
  }) as Check,
  enumOf(values: readonly string[]): Check {
    return (v, p) => {
      if (typeof v !== "string" || !values.includes(v)) fail(p, `one of ${values.join(", ")}`);
    };
  },
  range(min: number, max: number): Check {
    return (v, p) => {
      if (typeof v !== "number" || !(v >= min && v <= max)) fail(p, `a number from ${min} to ${max}`);
    };
  },
  nullable(check: Check): Check {
    return (v, p) => {
      if (v !== null) check(v, p);
    };
  },
  list(item: Check, options: { nonEmpty?: boolean } = {}): Check {
    return (v, p) => {
      if (!Array.isArray(v)) fail(p, "a list");
      const arr = v as unknown[];
      if (options.nonEmpty && arr.length === 0) fail(p, "a non-empty list");
      // A list of anything needs no walk (a trace's 200k spans are checked one by one later).
      if (item === anyValue) return;
      arr.forEach((x, i) => {
        item(x, `${p}[${i}]`);
      });
    };
  },
  object(shape: Shape): Check {
    return (v, p) => checkObject(v, shape, p);
  },
};

/** A value without a whitespace or control character first is not blank: `trim` need not copy it. */
const isNonEmpty = (v: string) => {
  const c = v.charCodeAt(0);
  return (c > 0x20 && c < 0x7f) || v.trim().length > 0;
};

/** Shortcuts of the common checks: true only where the check passes, so a check need not run. */
const quickChecks = new Map<Check, (v: unknown) => boolean>([
  [t.any, () => true],
  [t.string, (v) => typeof v === "string"],
  [t.nonEmpty, (v) => typeof v === "string" && isNonEmpty(v)],
  [t.boolean, (v) => typeof v === "boolean"],
  [t.number, (v) => typeof v === "number" && Number.isFinite(v)],
  [t.iso, (v) => typeof v === "string" && fastIsoMicros(v) !== undefined],
  [t.record, isPlainObject],
]);

/** A required field. */
export const req = (check: Check): Field => ({ check, required: true });
/** An optional field. */
export const opt = (check: Check): Field => ({ check });

/** A shape as {@link checkObject} walks it, computed once per shape (shapes are never changed once built). */
interface ShapePlan {
  entries: [string, Field][];
  required: string[];
  /** Per key, a predicate true only for values the key's check accepts (undefined: no shortcut known). */
  quick: Map<string, ((v: unknown) => boolean) | undefined>;
}

const plans = new WeakMap<Shape, ShapePlan>();

function planOf(shape: Shape): ShapePlan {
  let plan = plans.get(shape);
  if (!plan) {
    const entries = Object.entries(shape);
    plan = {
      entries,
      required: entries.filter(([, f]) => f.required).map(([k]) => k),
      quick: new Map(entries.map(([k, f]) => [k, quickChecks.get(f.check)])),
    };
    plans.set(shape, plan);
  }
  return plan;
}

/**
 * Whether every key of `keys` holds a value its field's shortcut accepts and every required key
 * is present: then the checks would all pass, and none need run (nor their paths be built). False
 * means only "look closer".
 */
function passesQuickly(obj: Record<string, unknown>, keys: readonly string[], plan: ShapePlan): boolean {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const pass = plan.quick.get(key);
    const value = obj[key];
    if (pass === undefined || value === undefined || !pass(value)) return false;
  }
  for (let i = 0; i < plan.required.length; i++) if (obj[plan.required[i]!] === undefined) return false;
  return true;
}

/** Every required key present, every present key valid, in the shape's order. */
function checkInOrder(obj: Record<string, unknown>, plan: ShapePlan, path: string): void {
  for (const [key, field] of plan.entries) {
    const value = obj[key];
    if (value === undefined) {
      if (field.required) throw badRequest(`${path}.${key} is required`);
      continue;
    }
    field.check(value, `${path}.${key}`);
  }
}

/**
 * The field checks of {@link checkObject}, with the same outcome, for an object parsed from JSON
 * (own enumerable data properties only, no getters, no prototype but Object's) whose own keys,
 * `keys`, are all fields of `shape`. Faster: when the common checks plainly pass, none runs.
 */
export function checkParsedFields(obj: Record<string, unknown>, keys: readonly string[], shape: Shape, path: string): void {
  const plan = planOf(shape);
  if (!passesQuickly(obj, keys, plan)) checkInOrder(obj, plan, path);
}

/**
 * Checks an object against a shape: every key known (unknown fields are rejected), every
 * required key present, every present key valid.
 */
export function checkObject(v: unknown, shape: Shape, path: string): asserts v is Record<string, unknown> {
  if (!isPlainObject(v)) fail(path, "an object");
  const obj = v as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(shape, key)) throw badRequest(`unknown field ${path}.${key}`);
  }
  checkInOrder(obj, planOf(shape), path);
}

/** The tool-call object of test cases and goldens (spec 2.7). */
export const toolCall: Check = t.object({
  name: req(t.nonEmpty),
  type: opt(t.enumOf(["FUNCTION", "MCP"])),
  description: opt(t.nullable(t.string)),
  inputParameters: opt(t.nullable(t.record)),
  output: opt(t.any),
  reasoning: opt(t.nullable(t.string)),
});

/** Test-case fields beside input/actualOutput that traces, spans and test cases may carry. */
export const testCaseExtras: Shape = {
  expectedOutput: opt(t.string),
  context: opt(t.strings),
  retrievalContext: opt(t.strings),
  toolsCalled: opt(t.list(toolCall)),
  expectedTools: opt(t.list(toolCall)),
};

/** A single-turn test case (spec 2.4). */
export const llmTestCase: Check = t.object({
  input: req(t.string),
  actualOutput: req(t.string),
  ...testCaseExtras,
  name: opt(t.string),
  additionalMetadata: opt(t.record),
  comments: opt(t.string),
  tokenCost: opt(t.number),
  completionTime: opt(t.number),
});

/** A turn of a conversational test case. */
export const turn: Check = t.object({
  role: req(t.enumOf(["user", "assistant"])),
  content: req(t.string),
  userId: opt(t.string),
  retrievalContext: opt(t.nullable(t.strings)),
  toolsCalled: opt(t.nullable(t.list(toolCall))),
  additionalMetadata: opt(t.record),
});

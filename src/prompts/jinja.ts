import type * as Jinja from "@huggingface/jinja";
import { requireHere } from "../util/lazy-dependency.js";
import { missingError, PromptInterpolationError } from "./errors.js";

// The engine's own declarations import their siblings without a file extension, which NodeNext
// resolution cannot follow; these are the parts of its public classes used here.
interface RuntimeValue {
  type: string;
  value: unknown;
}
interface Environment {
  parent?: Environment | undefined;
  variables: Map<string, unknown>;
  set(name: string, value: unknown): unknown;
}
interface Interpreter {
  evaluate(statement: unknown, environment: Environment): RuntimeValue;
  run(program: Program): RuntimeValue;
}
type Program = { readonly type: "Program" };
interface Engine {
  Environment: new () => Environment;
  Template: new (template: string) => { parsed: Program };
  StrictInterpreter: new (env: Environment) => Interpreter & { readonly missing: string[] };
}

const JINJA = "@huggingface/jinja";
const INSTALL = `npm install ${JINJA}`;

let engine: Engine | undefined;

/**
 * The engine, loaded at the first JINJA render rather than when `evaltrace` is imported (it
 * takes tens of milliseconds to load, and most apps never render a JINJA prompt). It is an
 * optional peer dependency: an app that renders JINJA prompts installs it. Loaded synchronously
 * (`interpolate()` is synchronous) through `require` from the built file, the same way in the
 * ESM and the CommonJS build. Without it, the render throws an error that says so and how to
 * install it; a later render tries again.
 */
function loadEngine(): Engine {
  if (engine) return engine;
  let jinja: typeof Jinja;
  try {
    jinja = requireHere(JINJA) as typeof Jinja;
  } catch (err) {
    throw engineError(err);
  }
  if (typeof jinja?.Template !== "function" || typeof jinja.Environment !== "function" || typeof jinja.Interpreter !== "function") {
    throw new Error(`evaltrace: rendering a JINJA prompt needs ${JINJA}, and the version installed lacks its Template, Environment or Interpreter. Install a supported version: ${INSTALL}@^0.5`);
  }
  const Interpreter = jinja.Interpreter as unknown as new (env: Environment) => Interpreter;
  engine = { Environment: jinja.Environment as unknown as Engine["Environment"], Template: jinja.Template as unknown as Engine["Template"], StrictInterpreter: strictInterpreter(Interpreter) };
  return engine;
}

/** The error of a JINJA render when the engine's package cannot be loaded: the cause, and the fix. */
function engineError(err: unknown): Error {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  const notInstalled = (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") && message.includes(JINJA);
  const why = notInstalled
    ? `${JINJA} is not installed (an optional peer dependency of evaltrace, needed only for JINJA prompts)`
    : `${JINJA} could not be loaded (${message.split("\n")[0]})`;
  return new Error(`evaltrace: rendering a JINJA prompt needs ${JINJA}, and ${why}. Install it: ${INSTALL}`, { cause: err });
}

/** The fields of the engine's AST nodes read here. */
interface Node {
  type: string;
  value?: unknown;
  operand?: Node;
  object?: Node;
  property?: Node;
  computed?: boolean;
  filter?: Node;
  callee?: Node;
}

/**
 * Jinja's StrictUndefined, on `@huggingface/jinja`: a name the template reads that is neither
 * given nor set by the template (`{% set %}`, a loop variable, a macro) is an error, and so is an
 * attribute or key that does not exist (`{{ user.name }}` without `name`). As in Jinja, only a
 * test (`x is defined`, `x is none` ...) and the `default` filter may look at an undefined value.
 * The missing names are collected as rendering goes on, so the error names all it met (a loop
 * over a missing list stops rendering there).
 */
function strictInterpreter(Interpreter: new (env: Environment) => Interpreter) {
  return class StrictInterpreter extends Interpreter {
    readonly missing: string[] = [];
    private readonly guarded = new WeakSet<object>();
  
    override evaluate(statement: unknown, environment: Environment): RuntimeValue {
      const node = statement as unknown as Node | undefined;
      if (node?.type === "TestExpression" && node.operand) this.guarded.add(node.operand);
      if (node?.type === "FilterExpression" && node.operand && filterName(node.filter) === "default") this.guarded.add(node.operand);
      const value = super.evaluate(statement, environment);
      if (node && value.type === "UndefinedValue" && !this.guarded.has(node)) {
        if (node.type === "Identifier" && !isSet(environment, String(node.value))) this.miss(String(node.value));
        else if (node.type === "MemberExpression") this.miss(pathOf(node));
      }
      return value;
    }
  
    /** Records a missing name, unless it is the attribute of a name already missing. */
    private miss(name: string): void {
      if (this.missing.some((m) => name === m || name.startsWith(`${m}.`) || name.startsWith(`${m}[`))) return;
      this.missing.push(name);
    }
  };
}

function filterName(filter: Node | undefined): string | undefined {
  const id = filter?.type === "CallExpression" ? filter.callee : filter;
  return id?.type === "Identifier" ? String(id.value) : undefined;
}

/** Whether a scope of the chain holds `name` (set to anything, even to undefined by a macro). */
function isSet(environment: Environment, name: string): boolean {
  for (let e: Environment | undefined = environment; e; e = e.parent) if (e.variables.has(name)) return true;
  return false;
}

/** `user.name`, `items[0]`, `row["k"]` as written, for the error. */
function pathOf(node: Node): string {
  if (node.type === "Identifier") return String(node.value);
  if (node.type !== "MemberExpression" || !node.object || !node.property) return "…";
  const base = pathOf(node.object);
  const p = node.property;
  if (!node.computed) return `${base}.${String(p.value)}`;
  if (p.type === "StringLiteral") return `${base}[${JSON.stringify(p.value)}]`;
  if (p.type === "IntegerLiteral") return `${base}[${String(p.value)}]`;
  return `${base}[${pathOf(p)}]`;
}

/** Python's `range`, as Jinja's global. */
function range(start: number, stop?: number, step = 1): number[] {
  const [from, to] = stop === undefined ? [0, start] : [start, stop];
  if (step === 0) throw new Error("range() step must not be zero");
  const out: number[] = [];
  for (let i = from; step > 0 ? i < to : i > to; i += step) out.push(i);
  return out;
}

/** Jinja's globals the engine knows (`namespace` comes with every Environment). */
const GLOBALS: Readonly<Record<string, unknown>> = { true: true, false: false, none: null, True: true, False: false, None: null, range };

/** Parsed templates, most recently used last; bounded. */
const parsedCache = new Map<string, Program>();
const PARSED_CACHE_SIZE = 256;

function parse(template: string): Program {
  const hit = parsedCache.get(template);
  if (hit) {
    parsedCache.delete(template);
    parsedCache.set(template, hit);
    return hit;
  }
  const { Template } = loadEngine();
  let program: Program;
  try {
    program = new Template(template).parsed;
  } catch (err) {
    throw new PromptInterpolationError(`invalid JINJA template: ${err instanceof Error ? err.message : String(err)}`);
  }
  parsedCache.set(template, program);
  if (parsedCache.size > PARSED_CACHE_SIZE) parsedCache.delete(parsedCache.keys().next().value as string);
  return program;
}

/**
 * Checks that a JINJA template parses: the engine's message when it does not, undefined when it
 * does. Throws a plain `Error` naming the fix when `@huggingface/jinja` is not installed.
 */
export function jinjaSyntaxError(template: string): string | undefined {
  try {
    parse(template);
    return undefined;
  } catch (err) {
    if (err instanceof PromptInterpolationError) return err.message;
    throw err;
  }
}

/**
 * Renders a JINJA template through `@huggingface/jinja` (a JavaScript implementation of Jinja:
 * statements, loops, filters, tests, macros), with undefined variables an error. A variable
 * given as `undefined` counts as not given. Throws a plain `Error` (not a
 * `PromptInterpolationError`) when `@huggingface/jinja` is not installed, naming the fix.
 */
export function renderJinja(template: string, variables: Readonly<Record<string, unknown>>): string {
  const program = parse(template);
  const { Environment, StrictInterpreter } = loadEngine();
  const env = new Environment();
  try {
    for (const [name, value] of Object.entries(GLOBALS)) env.set(name, value);
    for (const [name, value] of Object.entries(variables)) {
      if (value === undefined) continue;
      if (env.variables.has(name)) env.variables.delete(name);
      env.set(name, value);
    }
  } catch (err) {
    throw new PromptInterpolationError(`a variable cannot be passed to the JINJA template: ${err instanceof Error ? err.message : String(err)}`);
  }
  const interpreter = new StrictInterpreter(env);
  let out: string;
  try {
    out = interpreter.run(program).value as string;
  } catch (err) {
    // A missing name usually makes the engine fail further on: name it rather than the symptom.
    if (interpreter.missing.length > 0) throw missingError(interpreter.missing);
    throw new PromptInterpolationError(`the JINJA template failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (interpreter.missing.length > 0) throw missingError(interpreter.missing);
  return out;
}

import { context } from "@opentelemetry/api";
import { type AfcRun, startAfc, type ToolWatch, unwatchTools, watchTools } from "./afc.js";
import { fromResponses, inputMessages } from "./content.js";
import { isObject, quietly } from "../kit/model-call.js";

type Fn = (...args: unknown[]) => unknown;

/** The SDK's `DEFAULT_MAX_REMOTE_CALLS`: model requests after which a run stops calling tools. */
const DEFAULT_MAX_REMOTE_CALLS = 10;

/**
 * A non-streamed automatic-function-calling run of `models.generateContent`. The SDK runs that loop
 * inside `generateContent` itself, an instance field of each `models` object which we leave as
 * the SDK made it; the loop calls prototype methods, which are hooked: first
 * `processParamsMaybeAddMcpUsage(params)`, where the run starts (its agent span, see `afc.ts`),
 * then `generateContentWithContinuation(transformed)` once per model request (a step: an llm span
 * under the agent span, found by the `transformed` params object the SDK passes to every step),
 * with the callable tools called between steps (their tool spans, see `afc.ts`). The run ends as
 * the SDK's loop does: with the first reply that has no function calls, or after the tool calls
 * of the last request `maximumRemoteCalls` allows, and fails with a step's or a tool's error.
 */
class Loop implements ToolWatch {
  private steps = 0;
  /** Tool calls still to settle before the run ends (after its last allowed request), or -1. */
  private awaiting = -1;
  private last: unknown;
  private closed = false;

  constructor(
    readonly run: AfcRun,
    private readonly max: number,
  ) {
    watchTools(run.tools, this);
  }

  /** Runs one step (`call` opens its llm span) and watches its reply. Returns the SDK's own result. */
  step(call: () => unknown): unknown {
    const result = call();
    quietly(() =>
      Promise.resolve(result).then(
        (reply) => quietly(() => this.stepped(reply)),
        (err: unknown) => this.fail(err),
      ),
    );
    return result;
  }

  settled(err?: unknown): void {
    if (this.closed) return;
    if (err !== undefined) this.fail(err);
    else if (this.awaiting > 0 && --this.awaiting === 0) this.close();
  }

  fail(err: unknown): void {
    if (this.closed) return;
    this.closed = true;
    unwatchTools(this.run.tools, this);
    this.run.span.fail(err);
  }

  private stepped(reply: unknown): void {
    if (this.closed) return;
    this.last = reply;
    if (!hasFunctionCalls(reply)) {
      this.close();
      return;
    }
    this.steps++;
    if (this.steps < this.max) return;
    // The SDK calls each callable tool once more, then returns this reply.
    if (this.run.tools.length === 0) this.close();
    else this.awaiting = this.run.tools.length;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    unwatchTools(this.run.tools, this);
    this.run.end(fromResponses(this.last === undefined ? [] : [this.last]).output);
  }
}

/** Whether a reply asks for function calls (read from its data: the SDK's `functionCalls` getter warns on several candidates). */
function hasFunctionCalls(reply: unknown): boolean {
  const candidate = isObject(reply) && Array.isArray(reply.candidates) ? reply.candidates[0] : undefined;
  const parts = isObject(candidate) && isObject(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
  return parts.some((p) => isObject(p) && isObject(p.functionCall));
}

function maxRemoteCalls(params: Record<string, unknown>): number {
  const config = isObject(params.config) ? params.config : {};
  const afc = isObject(config.automaticFunctionCalling) ? config.automaticFunctionCalling : {};
  return typeof afc.maximumRemoteCalls === "number" ? afc.maximumRemoteCalls : DEFAULT_MAX_REMOTE_CALLS;
}

/** Runs by the params object the SDK's loop passes to each of its steps. */
const loops = new WeakMap<object, Loop>();

/**
 * `processParamsMaybeAddMcpUsage(params)` called by `generateContent` for a call with callable
 * tools: the run starts (its agent span, under the app's context) and the params it resolves to
 * are the key of its steps. Returns the SDK's own promise.
 */
export function startLoop(self: unknown, original: Fn, args: unknown[]): unknown {
  let loop: Loop | undefined;
  try {
    const params = isObject(args[0]) ? args[0] : {};
    const run = startAfc(params, inputMessages(params));
    if (run) loop = new Loop(run, maxRemoteCalls(params));
  } catch {
    loop = undefined;
  }
  if (!loop) return original.apply(self, args);
  const open = loop;
  let result: unknown;
  try {
    result = context.with(open.run.ctx, () => original.apply(self, args));
  } catch (err) {
    open.fail(err);
    throw err;
  }
  // Registered before the SDK awaits the promise: the key is in place before its first step.
  quietly(() =>
    Promise.resolve(result).then(
      (params) => quietly(() => void (isObject(params) && loops.set(params, open))),
      (err: unknown) => open.fail(err),
    ),
  );
  return result;
}

/** The non-streamed run whose step gets `params`, if any. */
export function loopOf(params: unknown): { readonly run: AfcRun; step(call: () => unknown): unknown } | undefined {
  return isObject(params) ? loops.get(params) : undefined;
}

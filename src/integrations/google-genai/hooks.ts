import { afcStep, usesAfc } from "./afc.js";
import { loopOf, startLoop } from "./afc-loop.js";
import { afcCall, modelCall } from "./calls.js";
import { countTokensCall, embedCall } from "./embeddings.js";
import { methodLike } from "./method-like.js";
import type { State } from "./options.js";
import { methodHolder } from "../kit/class-method.js";
import { isObject, modelCallOwned } from "../kit/model-call.js";
import { type Fn, replaceMethod } from "../kit/prototype-method.js";

/** What a hooked method does for a `models` object that is instrumented, outside a call already recorded. */
type Hook = (self: object, original: Fn, args: unknown[], state: State) => unknown;

/** Marks a method hooked here (shared by every copy of evaltrace: the first one hooks). */
const HOOKED = Symbol.for("evaltrace.google-genai.hooked");

/** One model call: an llm span; a non-streamed AFC run's step: an llm span under its agent span. */
const request =
  (streamed: boolean): Hook =>
  (self, original, args, state) => {
    const loop = streamed ? undefined : loopOf(args[0]);
    return loop ? loop.step(() => modelCall(self, original, args, false, state, loop.run.ctx)) : modelCall(self, original, args, streamed, state);
  };

function runsAfc(args: unknown[]): boolean {
  try {
    return isObject(args[0]) && usesAfc(args[0]);
  } catch {
    return false;
  }
}

/**
 * The `Models` prototype methods hooked, as data. `@google/genai` assigns its public methods
 * (`generateContent`, `generateContentStream`, `embedContent`...) as fields of each `models`
 * object; they call these prototype methods through `this`, and so do chats. Hooking them on the
 * class leaves every object the app holds as the SDK made it. The first of them a call reaches
 * records it; those it reaches inside (continuation hops, the requests of a stream) run in the
 * call's own context, marked as owned, and pass through.
 */
const HOOKS: Readonly<Record<string, Hook>> = {
  // generateContent, and generateContentStream with AFC disabled: one call, continuation hops included.
  generateContentWithContinuation: request(false),
  generateContentStreamWithContinuation: request(true),
  // The same with automatic continuation turned off (one request).
  generateContentInternal: request(false),
  generateContentStreamInternal: request(true),
  // generateContentStream otherwise: the stream the app reads, an AFC run when it has callable tools.
  processAfcStream: (self, original, args, state) => (runsAfc(args) ? afcCall(self, original, args, true) : modelCall(self, original, args, true, state)),
  // The first thing generateContent does: with callable tools, a non-streamed AFC run starts.
  processParamsMaybeAddMcpUsage: (self, original, args) => (!afcStep() && runsAfc(args) ? startLoop(self, original, args) : original.apply(self, args)),
  embedContentInternal: (self, original, args, state) => embedCall(self, original, args, state),
  countTokens: (self, original, args) => countTokensCall(self, original, args),
};

/**
 * Hooks the methods of {@link HOOKS} on the class of `models` (its prototype chain), once per
 * class; a call on an object `stateOf` knows, outside a recorded call, is recorded. Returns how
 * many of them the class has. Never throws.
 */
export function hookModels(models: object, stateOf: (self: object) => State | undefined): number {
  let found = 0;
  for (const [name, hook] of Object.entries(HOOKS)) {
    try {
      const owner = methodHolder(Object.getPrototypeOf(models), name);
      if (!owner) continue;
      found++;
      if ((owner[name] as { [HOOKED]?: unknown })[HOOKED]) continue;
      replaceMethod(owner, name, (original) => {
        const run = function (this: unknown, args: unknown[]): unknown {
          let state: State | undefined;
          try {
            state = isObject(this) && !modelCallOwned() ? stateOf(this) : undefined;
          } catch {
            state = undefined;
          }
          return state ? hook(this as object, original, args, state) : original.apply(this, args);
        };
        const hooked = methodLike(original, run);
        Object.defineProperty(hooked, HOOKED, { value: original });
        return hooked;
      });
    } catch {
      // A method we cannot hook runs as it is.
    }
  }
  return found;
}

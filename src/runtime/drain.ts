import type { Clock } from "../clock.js";
import type { FlushResult } from "../export/types.js";
import { servesRemoteCaller } from "../traces/joined-remotely.js";
import type { TraceAssembler } from "../traces/trace-assembler.js";
import { isRunning, type TraceView } from "../traces/trace-view.js";
import { isUnendedForeignCall } from "../traces/unended-call.js";
import { settleUnreadStreams, whenStreamsSettled } from "./unread-streams.js";

/**
 * Why the app wants its traces out now:
 * - `deliver`: a serverless handler's end (`deliver()`): traces whose root has ended, and the
 *   caller's own, go now; a trace whose root still runs is another request's, left to it.
 * - `shutdown`: `shutdown()`, and a signal with no handler of the app: everything goes, then
 *   the runtime closes.
 * - `exit`: the event loop ran dry (`beforeExit`): nothing can end any more, so nothing is
 *   waited for; everything goes.
 */
export type DrainReason = "deliver" | "shutdown" | "exit";

/** What a drain is asked: why, within how long, and for whom. */
export interface DrainRequest {
  reason: DrainReason;
  /** Milliseconds for the whole drain: at most half waits for running work, the rest delivers. */
  budget: number;
  /** The trace of the code that called `deliver()`: sent now whatever its root does. */
  caller?: string | undefined;
}

/** What a drain works with, handed in by the runtime. */
export interface DrainParts {
  clock: Clock;
  assembler: TraceAssembler;
  /** Delivers what is finished within `left` ms (a flush, or shutdown's flush and close). Never rejects. */
  deliver(left: number): Promise<FlushResult>;
}

/**
 * The one policy for work still running when the app wants its traces out, whatever the exit
 * path (`deliver()`, `shutdown()`, a signal, the loop running dry):
 * 1. Running work and the streams the app holds get half the budget to end (none at `exit`).
 * 2. A stream nobody reads in a trace that goes now (or that is its trace's root) is cut short,
 *    its call ended ERRORED "never read by the app" / "not read to its end by the app"
 *    (docs/streams.md), so that it is never sent as merely unfinished.
 * 3. Spans still open in the traces that go now are sent as they stand, marked unfinished (at
 *    `deliver`, a trace whose root is a model call another instrumentation never ended goes too).
 * 4. Everything finished is delivered within what is left of the budget.
 * Never rejects. At `exit` it runs to its delivery without awaiting anything (the loop is dry).
 */
export function drain(parts: DrainParts, request: DrainRequest): Promise<FlushResult> {
  const started = parts.clock.now();
  if (request.reason === "exit") return sendNow(parts, request, started, undefined);
  return waitForRunningWork(parts, request).then((waited) => sendNow(parts, request, started, waited));
}

/** Step 1: the traces with spans open (after a turn, for `deliver()`), once they ended or half the budget passed. */
async function waitForRunningWork({ clock, assembler }: DrainParts, request: DrainRequest): Promise<TraceView[]> {
  // A call the app made just now may open its span a moment later (an SDK helper that starts
  // its request on a timer, such as openai's chat.completions.stream()): one turn of the loop.
  if (request.reason === "deliver") await new Promise<void>((resolve) => setTimeout(resolve, 0));
  const running = [...assembler.all()].filter((rec) => rec.open > 0);
  // Streams handed to the app are waited for too: their calls' spans may not have started yet.
  await Promise.all([assembler.whenSpansEnded(running, request.budget / 2), whenStreamsSettled(request.budget / 2, clock)]);
  return running;
}

/** Steps 2 to 4. */
function sendNow(parts: DrainParts, request: DrainRequest, started: number, waited: TraceView[] | undefined): Promise<FlushResult> {
  const { assembler, clock } = parts;
  if (request.reason === "deliver") {
    // Work left running after its handler returned (its root ended), and the caller's own
    // trace, go as they stand: the instance may be frozen next. A trace whose root still runs
    // is another request being served: it delivers itself; unless that root is a model call of
    // another instrumentation that it never ended (a rejected call, in some): it goes too.
    const caller = request.caller;
    const going = (waited ?? []).filter((rec) => (!isRunning(rec) && !servesRemoteCaller(rec)) || rec.traceId === caller || isUnendedForeignCall(rec));
    const ids = new Set(going.map((rec) => rec.traceId));
    settleUnreadStreams((traceId) => ids.has(traceId));
    assembler.forceEndAll("deliver", going);
  } else {
    // Every trace the runtime holds goes.
    settleUnreadStreams((traceId) => assembler.get(traceId) !== undefined);
    assembler.forceEndAll(request.reason);
  }
  return parts.deliver(Math.max(0, request.budget - (clock.now() - started)));
}

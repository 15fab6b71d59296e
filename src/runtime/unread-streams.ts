import { reportInternalError } from "../util/internal-errors.js";
import type { Clock, TimerHandle } from "../clock.js";
import { processWide } from "../process-wide.js";

/**
 * Which traces a drain sends now (runtime/drain.ts): for `deliver()`, that of the caller and those
 * whose root has ended; for `shutdown()` and the way out, every trace the runtime holds.
 */
export type SendsNow = (traceId: string) => boolean;

/**
 * A stream an integration handed to the app, until it is read to its end (or cut short): every
 * drain (`deliver()`, `shutdown()`, the exit hooks) settles those nobody reads, in traces it
 * sends now and in traces of their own (a stream whose call is its trace's root: no request runs
 * around it to wait for), so that an unread stream ends the same way whatever the exit path.
 */
export interface UnreadStream {
  /** Cuts the stream short if nobody reads it and its trace goes out now (its spans end); idle otherwise. */
  settleUnread(sendsNow: SendsNow): void;
  /** Resolves once the stream was read to its end, or cut short. */
  readonly whenSettled: Promise<void>;
  /** Whether its call recorded spans (a stream nobody traces is not waited for). */
  readonly traced: boolean;
}

/** Streams held past this many: the oldest are let go (left to `maxTraceDurationMillis`). */
const MAX_HELD = 1000;

const held = (): Set<UnreadStream> => processWide("unreadStreams", () => new Set<UnreadStream>());

/** Holds a stream handed to the app until {@link releaseUnread}. */
export function holdUnread(stream: UnreadStream): void {
  const streams = held();
  streams.add(stream);
  if (streams.size > MAX_HELD) streams.delete(streams.values().next().value!);
}

/** The stream was read to its end, or cut short: nothing left for a drain to do. */
export function releaseUnread(stream: UnreadStream): void {
  held().delete(stream);
}

/**
 * Resolves once every traced stream held now has settled (read to its end, or cut short), or
 * after `timeoutMillis` (a timer of `clock` that keeps the process alive: the caller awaits it).
 */
export async function whenStreamsSettled(timeoutMillis: number, clock: Clock): Promise<void> {
  if (held().size === 0) return;
  // A call made just now records its first spans a moment later.
  await new Promise<void>((resolve) => clock.setTimeout(resolve, 0, true));
  const streams = [...held()].filter((s) => s.traced);
  if (streams.length === 0) return;
  let timer: TimerHandle | undefined;
  const deadline = new Promise<void>((resolve) => {
    if (timeoutMillis <= 0) resolve();
    else timer = clock.setTimeout(resolve, timeoutMillis, true);
  });
  await Promise.race([Promise.all(streams.map((s) => s.whenSettled)), deadline]);
  if (timer !== undefined) clock.clearTimeout(timer);
}

/** Called by a drain once it has waited: each stream held settles, or not ({@link UnreadStream.settleUnread}). */
export function settleUnreadStreams(sendsNow: SendsNow): void {
  for (const stream of [...held()]) {
    try {
      stream.settleUnread(sendsNow);
    } catch (error) {
      // One stream's bookkeeping never stops the delivery; counted and logged.
      reportInternalError("settling a stream the app did not read", error, undefined);
    }
  }
}

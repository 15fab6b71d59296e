import { holdUnread, releaseUnread, type SendsNow, type UnreadStream } from "../../runtime/unread-streams.js";
import { parentSpanIdOf } from "../../spans/span-data.js";
import { currentObservedSpan } from "../../tracing/context.js";
import type { ManualSpan } from "../../tracing/manual-span.js";

/**
 * How a model stream that did not end at its end is recorded, by every integration (the model
 * SDKs' wrappers and the AI SDK's): ERRORED, the error saying why in one of these words, the
 * output what was streamed before. And the stream of a model SDK's call while the app holds it:
 * `deliver()` ends the call of one nobody reads.
 */

/** The app left its loop (`break`, `return()`, a cancelled reader) before the stream's end. */
export const STOPPED_READING = "stream cut short: the app stopped reading before its end";
/** `deliver()` found the stream never read. */
export const NEVER_READ = "stream cut short: never read by the app";
/** `deliver()` found the stream read, but not to its end, and nobody reading it now. */
export const NOT_READ_TO_END = "stream cut short: not read to its end by the app";

/** An abort reason as text: an error's message, a string, else its JSON; `aborted` for none. */
export function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message || reason.name;
  if (typeof reason === "string" && reason) return reason;
  if (reason === undefined || reason === null) return "aborted";
  try {
    return JSON.stringify(reason) ?? String(reason);
  } catch {
    return String(reason);
  }
}

/** The error text of a stream aborted (its AbortController, an abort signal) with `reason`. */
export function abortedWhy(reason: unknown): string {
  return `aborted: ${reasonText(reason)}`;
}

/** What a stream's reads tell: it was read at all, a read is waiting for the SDK, it came back. */
export interface ReadWatch {
  /** A read was asked for (the stream is no longer never read). */
  iterated(): void;
  readStarted(): void;
  readEnded(): void;
}

/**
 * One model call's stream from the moment the app holds it until the call ends: the call ends
 * once ({@link settle}), and a stream nobody is reading when `deliver()` sends its trace (or a
 * stream that is its trace's root) is cut short there ({@link NEVER_READ}, {@link NOT_READ_TO_END})
 * through `cut`, so that it never keeps its trace open. Never throws.
 */
export class HeldStream implements UnreadStream, ReadWatch {
  readonly whenSettled: Promise<void>;
  private began = false;
  private reading = 0;
  private settled = false;
  private onSettled!: () => void;

  constructor(
    private readonly span: ManualSpan,
    /** Ends the call as cut short, with `why` and what it streamed so far. */
    private readonly cut: (why: string) => void,
  ) {
    this.whenSettled = new Promise<void>((resolve) => {
      this.onSettled = resolve;
    });
    holdUnread(this);
  }

  /** Whether its span is still open (one ended some other way, such as force-ended, is let go: nothing to wait for). */
  get traced(): boolean {
    if (this.settled) return false;
    let open = false;
    try {
      open = currentObservedSpan(this.span.context)?.isRecording() === true;
    } catch {
      open = false;
    }
    if (!open) this.settle(() => undefined);
    return open;
  }

  /** Whether the call has ended. */
  get ended(): boolean {
    return this.settled;
  }

  iterated(): void {
    this.began = true;
  }

  readStarted(): void {
    this.reading++;
  }

  readEnded(): void {
    this.reading = Math.max(0, this.reading - 1);
  }

  /** Ends the call with `end`, unless it has ended already. */
  settle(end: () => void): void {
    if (this.settled) return;
    this.settled = true;
    this.release();
    try {
      end();
    } catch {
      // Our bookkeeping never reaches the app.
    }
  }

  /** Ends the call as cut short with `why`, unless it has ended already. */
  cutShort(why: string): void {
    this.settle(() => this.cut(why));
  }

  settleUnread(sendsNow: SendsNow): void {
    if (this.settled || this.reading > 0) return;
    const observed = currentObservedSpan(this.span.context) as (ReturnType<typeof currentObservedSpan> & { parentSpanContext?: { spanId: string } }) | undefined;
    if (!observed?.isRecording()) {
      // Ended some other way (or never recorded): nothing to cut.
      this.settle(() => undefined);
      return;
    }
    if (parentSpanIdOf(observed) !== undefined && !sendsNow(observed.spanContext().traceId)) return;
    this.cutShort(this.began ? NOT_READ_TO_END : NEVER_READ);
  }

  private release(): void {
    releaseUnread(this);
    this.onSettled();
  }
}

import type { AsyncLocalStorage } from "node:async_hooks";

/** A JSON object as a request body would carry it (parsed back from the very bytes it would send). */
export type WireObject = { [key: string]: unknown };

/**
 * One capture of `evaltrace/testing` as the runtime sees it: where the traces it claims go
 * instead of the service. The runtime hands it each trace as the body of `POST /v1/traces` would
 * carry it, and each late update as `PUT /v1/traces/:uuid` would.
 */
export interface CaptureTarget {
  /** False once stopped: it takes nothing more. */
  readonly active: boolean;
  /** A claimed trace's root ended: the trace as it would have been sent. */
  received(trace: WireObject): void;
  /** Something of a claimed trace arrived after its root ended (spans, fields), as its update would carry it. */
  updated(uuid: string, update: WireObject): void;
  /** The app dropped a claimed trace (`updateCurrentTrace({ drop: true })`). */
  dropped(uuid: string): void;
}

/**
 * The captures of the process (every copy of the package sees the same: a process-wide slot):
 * those running, and the async contexts they are bound to.
 */
export interface TraceTaps {
  /** Captures running now, oldest first. */
  readonly active: Set<CaptureTarget>;
  /** The captures bound to an async context, outermost first (each capture binds itself to the context that made it). */
  readonly scope: AsyncLocalStorage<readonly CaptureTarget[]>;
  /** Traces a capture claimed that ended after every capture claiming them had stopped: neither captured nor sent. */
  lost: number;
}

import { AsyncLocalStorage } from "node:async_hooks";
import { processWide } from "../process-wide.js";
import type { CaptureTarget, TraceTaps } from "./trace-capture.js";

let taps: TraceTaps | undefined;

/** The process's taps (one for every copy of the package), made on first use. */
export function traceTaps(): TraceTaps {
  taps ??= processWide("traceTaps", (): TraceTaps => ({ active: new Set(), scope: new AsyncLocalStorage(), lost: 0 }));
  return taps;
}

/** Whether a capture is running: traces are then recorded whatever the key, `enabled` and `sampleRate`, and nothing is sent. */
export function isCapturing(): boolean {
  return traceTaps().active.size > 0;
}

/**
 * The capture that takes a trace starting now, in the async context of its first span: the
 * newest running capture bound to this context; when none is, every running capture (the trace
 * started where no capture was made: a server's request handler, a timer set before). Empty when
 * nothing captures.
 */
export function claimingCaptures(): readonly CaptureTarget[] {
  const taps = traceTaps();
  if (taps.active.size === 0) return NONE;
  const bound = taps.scope.getStore();
  if (bound) {
    for (let i = bound.length - 1; i >= 0; i--) {
      const capture = bound[i]!;
      if (capture.active) return [capture];
    }
  }
  return [...taps.active];
}

const NONE: readonly CaptureTarget[] = Object.freeze([]);

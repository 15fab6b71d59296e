import type { HrTime } from "@opentelemetry/api";
import { processWide } from "../process-wide.js";

// One epoch anchor for the whole process, so that every timestamp we take is on the same
// monotonic scale. OTel's own default takes Date.now() (whole milliseconds) per span, which
// loses the order of spans that start within the same millisecond.
// One per process, not per copy of the package: a child span opened by the CommonJS copy under a
// parent opened by the ESM copy must never seem to start before it.
// Anchored where OpenTelemetry's own clock is (`performance.timeOrigin`), so that our spans and
// those of other instrumentations in the same trace agree on the order of their starts.
// Taken at the first timestamp, not when evaltrace is imported: Node sets up `performance` on
// its first use (about 1.5 ms of `import "evaltrace"` otherwise).
let anchor: { anchorMillis: number; lastMicros: number } | undefined;
const clockAnchor = () => processWide("clockAnchor", () => ({ anchorMillis: timeOrigin(), lastMicros: 0 }));

function timeOrigin(): number {
  const origin = (performance as { timeOrigin?: number }).timeOrigin;
  return typeof origin === "number" && Number.isFinite(origin) && origin > 0 ? origin : Date.now() - performance.now();
}

/** Whether `a` is later than `b`. */
export function isLater(a: HrTime, b: HrTime): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** A strictly increasing high-resolution wall-clock time (microsecond steps). */
export function preciseNow(): HrTime {
  const scale = (anchor ??= clockAnchor());
  let micros = Math.floor((scale.anchorMillis + performance.now()) * 1000);
  if (micros <= scale.lastMicros) micros = scale.lastMicros + 1;
  scale.lastMicros = micros;
  const seconds = Math.floor(micros / 1_000_000);
  return [seconds, (micros - seconds * 1_000_000) * 1000];
}

let cachedSecond = -1;
let cachedPrefix = "";
// The last two times formatted: a trace's start and end are those of its root span, formatted
// just before for it (the same string then, stringified once).
let secondsA = -1;
let nanosA = -1;
let isoA = "";
let secondsB = -1;
let nanosB = -1;
let isoB = "";

/** ISO 8601 in UTC with microseconds and a `Z` suffix, e.g. `2026-01-02T03:04:05.123456Z`. */
export function hrTimeToIso(time: HrTime): string {
  const [seconds, nanos] = time;
  if (nanos === nanosA && seconds === secondsA) return isoA;
  if (nanos === nanosB && seconds === secondsB) return isoB;
  // Spans cluster in time: reuse the formatted whole second (Date formatting is the slow part).
  if (seconds !== cachedSecond) {
    cachedSecond = seconds;
    cachedPrefix = new Date(seconds * 1000).toISOString().slice(0, 19);
  }
  const micros = Math.floor(nanos / 1000);
  const iso = `${cachedPrefix}.${micros < 100000 ? String(micros).padStart(6, "0") : micros}Z`;
  secondsB = secondsA;
  nanosB = nanosA;
  isoB = isoA;
  secondsA = seconds;
  nanosA = nanos;
  isoA = iso;
  return iso;
}

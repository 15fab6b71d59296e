/** Formats 32 hex digits as an 8-4-4-4-12 UUID string. */
function asUuid(hex32: string): string {
  // Made when a trace is sent (its record formats it on each read, holds none): concatenated,
  // which costs less than joining an array of the pieces.
  return `${hex32.slice(0, 8)}-${hex32.slice(8, 12)}-${hex32.slice(12, 16)}-${hex32.slice(16, 20)}-${hex32.slice(20, 32)}`;
}

/** The service uuid of a trace: its OTel trace id, UUID-formatted. */
export function traceUuid(traceId: string): string {
  return asUuid(traceId);
}

// The spans of a trace are mapped one after the other: their uuids share the first 19
// characters (the trace id's first 16 digits, formatted), kept for the trace seen last.
let prefixOf = "";
let prefix = "";

/**
 * The service uuid of a span, derived from its trace id and span id alone, so a span that ends
 * late still knows its parent's uuid without a lookup. Unique because span ids are unique within
 * a trace; never equal to the trace uuid because the last 16 digits differ from the trace id's.
 */
export function spanUuid(traceId: string, spanId: string): string {
  // Astronomically unlikely, but the spec forbids a span uuid equal to the trace uuid.
  if (traceId.length - spanId.length === 16 ? traceId.endsWith(spanId) : spanId === "" && traceId.length < 16) {
    return asUuid(traceId.slice(0, 16) + invert(spanId));
  }
  if (traceId.length !== 32 || spanId.length !== 16) return asUuid(traceId.slice(0, 16) + spanId);
  if (traceId !== prefixOf) {
    prefixOf = traceId;
    prefix = `${traceId.slice(0, 8)}-${traceId.slice(8, 12)}-${traceId.slice(12, 16)}-`;
    spanA = spanB = "";
  }
  // A parent's uuid is asked for by each child, then by the parent itself (children end first):
  // the last two are remembered, for the trace seen last.
  if (spanId === spanA) return uuidA;
  if (spanId === spanB) return uuidB;
  const uuid = `${prefix}${spanId.slice(0, 4)}-${spanId.slice(4)}`;
  spanB = spanA;
  uuidB = uuidA;
  spanA = spanId;
  uuidA = uuid;
  return uuid;
}

let spanA = "";
let uuidA = "";
let spanB = "";
let uuidB = "";

function invert(hex: string): string {
  let out = "";
  for (const c of hex) out += (15 - Number.parseInt(c, 16)).toString(16);
  return out;
}

// Moved to util/string-limits.ts (the ground floor, so that util/describe-error.ts can use it).
// This re-export keeps the importers in tracing/, encode/ and semconv/log-records.ts working
// while those rooms are being changed elsewhere; delete it once they import util/ directly.
export * from "../util/string-limits.js";

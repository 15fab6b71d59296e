// Preloaded into every real-world program, in both runs (with and without evaltrace/auto):
// Math.random called from the program's own files (test/realworld/programs/) returns a fixed
// sequence, so that examples that make up weather or pick a city print the same in both runs.
// Every other caller (the SDKs, OpenTelemetry's id generator, evaltrace) gets the real one, so
// the sequence the program sees does not depend on how much tracing runs beside it.
const real = Math.random;
let seed = 0x2f6b1a3d;
const seeded = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
Math.random = function random() {
  const holder = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 2;
  Error.captureStackTrace(holder, random);
  Error.stackTraceLimit = limit;
  return /[/\\]test[/\\]realworld[/\\]programs[/\\]/.test(String(holder.stack)) ? seeded() : real();
};

/**
 * The emulator's two modes, for the conformance suite to run in both: strict (the spec exactly,
 * as our SDK's tests run it) and lenient (the default: what the live service accepts).
 */
export const MODES = [
  { mode: "strict", strict: true },
  { mode: "lenient", strict: false },
] as const;

/**
 * Not a public entry: what `evaltrace/auto` loads, as CommonJS, at the app's first import of a
 * package zero-code claims (`on-first-import.ts`).
 */
export { instrumentFromEnvironment } from "./instrument.js";

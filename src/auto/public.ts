/**
 * `evaltrace/instrument`: zero-code tracing turned on from code (a worker thread, or an app that
 * cannot pass `--import`), with `@evaltrace/auto` installed beside evaltrace. A subpath of its
 * own so that `import "evaltrace"` loads none of the hooks.
 *
 * @example
 * import { instrument } from "evaltrace/instrument";
 * instrument({ langchain: false });
 */
export type { InstrumentOptions } from "./instrument.js";
export { instrument } from "./instrument.js";
export type { LibraryName } from "./libraries.js";

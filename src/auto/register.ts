/**
 * `evaltrace/auto`: zero-code tracing. Load it before the app
 * (`node --import evaltrace/auto app.mjs`, `node -r evaltrace/auto app.cjs`, or either through
 * `NODE_OPTIONS`): the SDK is configured from the environment (`EVALTRACE_API_KEY`,
 * `EVALTRACE_BASE_URL`, ...) and every supported library the app loads is instrumented, except
 * those named in `EVALTRACE_DISABLE_INSTRUMENTATIONS`. It exports nothing. Worker threads are
 * not instrumented (call `instrument()` in one). Nothing of the hooks loads until the app first
 * imports a supported library (`on-first-import.ts`).
 */
import { nodeBuiltinNow } from "../util/node-builtin.js";
import { startZeroCode } from "./on-first-import.js";

// Preloads also run in Node's module-hooks thread (and in the app's worker threads, which inherit
// the flags): only the main thread is instrumented, so the hooks thread never starts a runtime or
// registers the loader a second time. (`worker_threads` from process.getBuiltinModule, as every
// supported Node has it: an ESM import of it costs a few ms more of start-up.)
const workerThreads = nodeBuiltinNow<typeof import("node:worker_threads")>("worker_threads");
if (workerThreads?.isMainThread !== false) startZeroCode();

/**
 * `@evaltrace/dev`: the emulator of the service (`startDevServer`), with its trace viewer and
 * judge. The fake model servers are `@evaltrace/dev/fakes`.
 */
export type { Judge, JudgeInput, Plan } from "./context.js";
export type { DevServer, DevServerOptions } from "./server.js";
export { startDevServer } from "./server.js";
export type { EvaluationJob, State, StoredSpan, StoredTrace } from "./store/store.js";

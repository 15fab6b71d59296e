import * as fakes from "../fakes/index.js";

// The fake model servers moved to `evaltrace/fakes`; these re-exports stay for one minor.
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeAnthropic extends fakes.FakeAnthropic {}
/** @deprecated Import it from `evaltrace/fakes`. */
export const startFakeAnthropic: typeof fakes.startFakeAnthropic = fakes.startFakeAnthropic;
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeGoogleGenAI extends fakes.FakeGoogleGenAI {}
/** @deprecated Import it from `evaltrace/fakes`. */
export const startFakeGoogleGenAI: typeof fakes.startFakeGoogleGenAI = fakes.startFakeGoogleGenAI;
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeFailure extends fakes.FakeFailure {}
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeModelServer extends fakes.FakeModelServer {}
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeRequest extends fakes.FakeRequest {}
/** @deprecated Import it from `evaltrace/fakes`. */
export const FAKE_REPLY: typeof fakes.FAKE_REPLY = fakes.FAKE_REPLY;
/** @deprecated Import it from `evaltrace/fakes`. */
export interface FakeOpenAI extends fakes.FakeOpenAI {}
/** @deprecated Import it from `evaltrace/fakes`. */
export const startFakeOpenAI: typeof fakes.startFakeOpenAI = fakes.startFakeOpenAI;

export type { Judge, JudgeInput, Plan } from "./context.js";
export type { DevServer, DevServerOptions } from "./server.js";
export { startDevServer } from "./server.js";
export type { EvaluationJob, State, StoredSpan, StoredTrace } from "./store/store.js";

export type { Judge, JudgeInput, Plan } from "./context.js";
export type { FakeOpenAI } from "./fake-openai.js";
export { startFakeOpenAI } from "./fake-openai.js";
export type { DevServer, DevServerOptions } from "./server.js";
export { startDevServer } from "./server.js";
export type { EvaluationJob, State, StoredSpan, StoredTrace } from "./store.js";

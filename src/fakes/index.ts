/**
 * `@evaltrace/dev/fakes`: fake model servers for tests and examples, speaking enough of the OpenAI,
 * Anthropic, Google GenAI and Amazon Bedrock Runtime HTTP APIs that the official SDKs (and their own helpers) work
 * against them unmodified. Each starts on a free loopback port and records what it was sent.
 * Neither the SDK nor the emulator imports this subpath: it exists for code that tests them.
 *
 * @example
 * import { startFakeOpenAI } from "@evaltrace/dev/fakes";
 * const fake = await startFakeOpenAI();
 * // new OpenAI({ baseURL: fake.url, apiKey: "test" }), then fake.requests holds what it was sent
 * await fake.close();
 */
export type { FakeAnthropic } from "./anthropic.js";
export { startFakeAnthropic } from "./anthropic.js";
export type { FakeBedrock } from "./bedrock.js";
export { startFakeBedrock } from "./bedrock.js";
export type { FakeGoogleGenAI } from "./google.js";
export { startFakeGoogleGenAI } from "./google.js";
export type { FakeFailure, FakeModelServer, FakeRequest } from "./http.js";
export type { FakeReply, FakeScript } from "./model.js";
export { FAKE_REPLY } from "./model.js";
export type { FakeOpenAI, FakeOpenAIOptions } from "./openai.js";
export { startFakeOpenAI } from "./openai.js";

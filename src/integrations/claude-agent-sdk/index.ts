import { reportUnexpectedClient } from "../kit/unexpected-client.js";
import { wrapQueryWhen } from "./wrap.js";

/**
 * `evaltrace/claude-agent-sdk`: traces of the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`).
 * Each `query()` is an agent span (the session id, the prompt as input, the result as output,
 * cost, turns and usage), with an llm span per model turn, a tool span per tool call until its
 * result, and each subagent an agent span under the tool call that started it.
 */

/**
 * Wraps the Claude Agent SDK's `query` function: each call is traced while the app reads its
 * messages. The Query object it returns is the SDK's own, yielding the very same messages in
 * the same order (its `interrupt()` and other methods work as before); a prompt streamed as an
 * AsyncIterable reaches the SDK message by message as before. Calls made inside an `observe()`
 * span are traced under it. Wrapping a wrapped `query` returns it unchanged.
 *
 * @param query - `query` from `@anthropic-ai/claude-agent-sdk`.
 * @returns A function called exactly like `query`; `query` itself, unchanged, when it is not a
 * function (logged and counted in `stats().internalErrors`).
 *
 * @example
 * import { query as sdkQuery } from "@anthropic-ai/claude-agent-sdk";
 * import { wrapQuery } from "evaltrace/claude-agent-sdk";
 * const query = wrapQuery(sdkQuery);
 * for await (const message of query({ prompt: "Where is order A-1001?" })) console.log(message.type);
 */
export function wrapQuery<F extends (params: never) => unknown>(query: F): F {
  return wrapQueryWhen(query, () => true);
}

/**
 * The Claude Agent SDK module with its `query` wrapped by {@link wrapQuery} (a new object; the
 * module is not changed).
 *
 * @param sdk - The module (`import * as sdk from "@anthropic-ai/claude-agent-sdk"`).
 * @returns The module's exports, `query` traced; `sdk` itself, unchanged, when it has no `query`
 * function (logged and counted in `stats().internalErrors`).
 *
 * @example
 * import * as sdk from "@anthropic-ai/claude-agent-sdk";
 * import { wrapClaudeAgentSdk } from "evaltrace/claude-agent-sdk";
 * const { query } = wrapClaudeAgentSdk(sdk);
 */
export function wrapClaudeAgentSdk<M extends { query: (params: never) => unknown }>(sdk: M): M {
  if (typeof sdk !== "object" || sdk === null || typeof sdk.query !== "function") {
    reportUnexpectedClient("wrapClaudeAgentSdk", "the module has no query function (pass the module: import * as sdk from \"@anthropic-ai/claude-agent-sdk\")");
    return sdk;
  }
  return { ...sdk, query: wrapQuery(sdk.query) };
}

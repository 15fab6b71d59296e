import type { ModelWrapOptions } from "../kit/model-call.js";
import { instrumentedSend } from "./send.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";

/** Options of {@link wrapBedrock}. */
export interface WrapBedrockOptions extends ModelWrapOptions {}

/** Where a wrapped client keeps its state (shared by every copy of evaltrace). */
const WRAPPED = Symbol.for("evaltrace.bedrock.wrapped");

type State = { options: WrapBedrockOptions };
type Fn = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Instruments an Amazon Bedrock Runtime client (`BedrockRuntimeClient` or `BedrockRuntime` of
 * `@aws-sdk/client-bedrock-runtime`, AWS SDK for JavaScript v3) in place and returns it: every
 * `send` of a `ConverseCommand`, `ConverseStreamCommand`, `InvokeModelCommand` or
 * `InvokeModelWithResponseStreamCommand` becomes one llm span: the model id, provider `Bedrock`,
 * the system prompt and messages as readable text (tool calls with their ids, each tool result
 * as a `tool` message linked to its call by `tool_call_id`), the reply's text, its tool calls as
 * `toolsCalled` (their ids as the `toolCallIds` metadata), the input and output tokens exactly as
 * the reply's usage says, and errors (the SDK's own, rethrown unchanged). InvokeModel bodies are
 * read per model family: Anthropic Claude, Amazon Nova, Amazon Titan Text, Meta Llama (another
 * body is recorded as its text). Other commands are not traced.
 *
 * A streamed call's span ends when its stream ends, with the text and the usage it carried; a
 * stream that fails, is aborted, or that the app stops reading before the message's end is
 * ERRORED. The client, the output and its `stream` / `body` iterable stay the SDK's own objects.
 * Wrapping twice is wrapping once (the latest options apply).
 *
 * @example
 * import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
 * import { wrapBedrock } from "evaltrace/bedrock";
 * const bedrock = wrapBedrock(new BedrockRuntimeClient({ region: "us-east-1" }));
 */
export function wrapBedrock<T extends object>(client: T, options: WrapBedrockOptions = {}): T {
  try {
    const target = client as { send?: unknown; [WRAPPED]?: State };
    const existing = target[WRAPPED];
    if (existing) {
      existing.options = options;
      return client;
    }
    const send = target.send;
    if (typeof send !== "function") {
      reportUnexpectedClient("wrapBedrock", "the client has no send");
      return client;
    }
    const state: State = { options };
    Object.defineProperty(client, WRAPPED, { value: state, configurable: true });
    Object.defineProperty(client, "send", { value: instrumentedSend(send as Fn, () => state.options), writable: true, configurable: true, enumerable: false });
  } catch (err) {
    // A client we cannot add to is left as it is.
    reportWrapFailure("wrapBedrock", err);
  }
  return client;
}

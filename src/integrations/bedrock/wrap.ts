import { processWide } from "../../process-wide.js";
import type { ModelWrapOptions } from "../kit/model-call.js";
import { reportUnexpectedClient, reportWrapFailure } from "../kit/unexpected-client.js";
import { netBedrockClient } from "../net/index.js";
import { type Middleware, modelCallMiddleware } from "./send.js";

/** Options of {@link wrapBedrock}. */
export interface WrapBedrockOptions extends ModelWrapOptions {}

type State = { options: WrapBedrockOptions };

/** The clients instrumented, with their options (shared by every copy of evaltrace). */
const instrumented = (): WeakMap<object, State> => processWide("bedrockClients", () => new WeakMap<object, State>());

/** The name of our middleware in a client's stack (`client.middlewareStack.identify()` lists it). */
export const MODEL_CALL_MIDDLEWARE = "evaltraceModelCall";

/** The part of a client's `middlewareStack` we use. */
interface Stack {
  add(middleware: Middleware, options: { step: string; priority?: string; name: string; override?: boolean }): void;
}

const isStack = (v: unknown): v is Stack => v !== null && typeof v === "object" && typeof (v as { add?: unknown }).add === "function";

/** Whether `client` is instrumented (by `wrapBedrock`, or by zero-code on its first `send`). */
export function bedrockInstrumented(client: object): boolean {
  return instrumented().has(client);
}

/**
 * Instruments an Amazon Bedrock Runtime client (`BedrockRuntimeClient` or `BedrockRuntime` of
 * `@aws-sdk/client-bedrock-runtime`, AWS SDK for JavaScript v3) and returns it: every
 * `send` of a `ConverseCommand`, `ConverseStreamCommand`, `InvokeModelCommand` or
 * `InvokeModelWithResponseStreamCommand` becomes one llm span: the model id, provider `Bedrock`,
 * the system prompt and messages as readable text (tool calls with their ids, each tool result
 * as a `tool` message linked to its call by `tool_call_id`), the reply's text, its tool calls as
 * `toolsCalled` (their ids as the `toolCallIds` metadata), the input and output tokens exactly as
 * the reply's usage says, and errors (the SDK's own, rethrown unchanged). InvokeModel bodies are
 * read per model family: Anthropic Claude, Amazon Nova, Amazon Titan Text, Meta Llama (another
 * body is recorded as its text). Other commands are not traced.
 *
 * It adds a middleware to the client's own `middlewareStack` (the AWS SDK's extension point, at the
 * `initialize` step) and nothing to the client: its own properties, `send` and `util.inspect` stay
 * the SDK's. The net below it (a middleware at the `build` step) records a model request of the
 * client that no span owns. Commands sent before wrapping, through a client whose middleware the SDK
 * cached (`cacheMiddleware: true`), keep their cached stack.
 *
 * A streamed call's span ends when its stream ends, with the text and the usage it carried; a
 * stream that fails, is aborted, or that the app stops reading before the message's end is
 * ERRORED. The output and its `stream` / `body` iterable read as the SDK's own objects.
 * Wrapping twice is wrapping once (the latest options apply).
 *
 * @example
 * import { BedrockRuntimeClient } from "@aws-sdk/client-bedrock-runtime";
 * import { wrapBedrock } from "evaltrace/bedrock";
 * const bedrock = wrapBedrock(new BedrockRuntimeClient({ region: "us-east-1" }));
 */
export function wrapBedrock<T extends object>(client: T, options: WrapBedrockOptions = {}): T {
  try {
    const existing = instrumented().get(client);
    if (existing) {
      existing.options = options;
      return client;
    }
    const target = client as { send?: unknown; middlewareStack?: unknown };
    if (typeof target.send !== "function") {
      reportUnexpectedClient("wrapBedrock", "the client has no send");
      return client;
    }
    const stack = target.middlewareStack;
    if (!isStack(stack)) {
      reportUnexpectedClient("wrapBedrock", "the client has no middlewareStack");
      return client;
    }
    const state: State = { options };
    stack.add(modelCallMiddleware(() => state.options), { step: "initialize", priority: "high", name: MODEL_CALL_MIDDLEWARE, override: true });
    instrumented().set(client, state);
    netBedrockClient(client);
  } catch (err) {
    // A client we cannot add to is left as it is.
    reportWrapFailure("wrapBedrock", err);
  }
  return client;
}

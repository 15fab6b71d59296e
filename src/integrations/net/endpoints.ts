import type { Path } from "./paths.js";

/**
 * The net's endpoint tables: for each model endpoint of a claimed SDK, where its request keeps
 * the input and model, where its JSON reply keeps the text, tool calls, model and tokens, and how
 * its stream's events add up to the same. Read by one interpreter (`read-body.ts`,
 * `stream-fold.ts`); a new endpoint is a new row, not a new branch.
 */

/** The SDKs whose request layer the net watches. */
export type NetSdk = "openai" | "anthropic" | "google-genai" | "bedrock";

/** Where a request body keeps its input: a system prompt, a message list, or plain text. */
export interface RequestTable {
  /** A system prompt (text or text parts), as the first message. */
  system?: Path;
  /** The conversation (any convention `readConversation` reads; a string is one user message). */
  messages?: Path;
  /** Texts joined as one user message (embeddings, legacy completions). */
  text?: Path[];
  /** The model named in the body. */
  model?: Path;
}

/** Where tool calls are: each item at `at`, its name and its arguments (text or object) under it. */
export interface CallsTable {
  at: Path;
  /** Under the item: a call's name (an item without one continues the call of its key). */
  name?: Path;
  args: Path;
  /** Where a streamed piece says which call it continues (an index), relative to the item. */
  key?: Path;
}

/** Where a JSON reply keeps what the span records. */
export interface ReplyTable {
  text?: Path[];
  calls?: CallsTable[];
  model?: Path[];
  inputTokens?: Path[];
  outputTokens?: Path[];
  /** A reply that carries no text: its output says how many items it has (`[2 embedding(s)]`). */
  count?: { at: Path; noun: string };
}

/** How the events of a stream add up to a reply. */
export interface StreamTable {
  /** Each event is a partial reply, read with the reply table and added up (Gemini). */
  chunks?: boolean;
  /** Text pieces, appended. */
  text?: Path[];
  /** Tool calls: an item with a name starts one (at its key), an item without one adds to the call of its key. */
  calls?: CallsTable[];
  /** The first model found. */
  model?: Path[];
  /** Token counts: the last found wins. */
  inputTokens?: Path[];
  outputTokens?: Path[];
  /** An event that carries the whole reply (read with the reply table): it replaces what the pieces gave. */
  whole?: Path;
}

/**
 * Where the output an SDK parsed keeps the reply, for a net that reads that output rather than the
 * raw response (Bedrock: the AWS SDK decodes its event streams itself). No `json` nor `events`:
 * the output is the reply.
 */
export interface OutputTable {
  /** The member holding the reply's JSON body as bytes (InvokeModel's `body`). */
  json?: string;
  /** The member holding the stream of events (`stream`, `body`). */
  events?: string;
  /** Under each event, the bytes of its JSON data (`chunk/bytes`); none: the event is the data. */
  eventJson?: Path;
}

/** One model endpoint of one SDK. */
export interface Endpoint {
  sdk: NetSdk;
  /** As the debug line and the span's metadata name it (`/chat/completions`). */
  name: string;
  /** Matched against the request's path (no query string). */
  path: RegExp;
  /** The provider, as the method-level wrappers of this SDK name it. */
  provider: string;
  /** The integration label of the SDK's method-level wrappers. */
  integration: string;
  /** The model taken from the path itself (Gemini: `models/{model}:generateContent`). */
  modelInPath?: RegExp;
  request: RequestTable;
  reply: ReplyTable;
  stream?: StreamTable;
  /** Read from the SDK's parsed output (see {@link OutputTable}). */
  output?: OutputTable;
}

const openaiUsage = { inputTokens: ["usage/prompt_tokens", "usage/input_tokens"], outputTokens: ["usage/completion_tokens", "usage/output_tokens"] };
const openai = { sdk: "openai", provider: "OpenAI", integration: "OpenAI" } as const;
const anthropic = { sdk: "anthropic", provider: "Anthropic", integration: "Anthropic" } as const;
const gemini = { sdk: "google-genai", provider: "Gemini", integration: "Google GenAI", modelInPath: /models\/([^/:]+):/ } as const;

const chatReply: ReplyTable = {
  text: ["choices/0/message/content", "choices/0/message/refusal"],
  calls: [{ at: "choices/0/message/tool_calls/*/function", name: "name", args: "arguments" }],
  model: ["model"],
  ...openaiUsage,
};

const responsesReply: ReplyTable = {
  text: ["output/*/type=message/content/*/text"],
  calls: [{ at: "output/*/type=function_call", name: "name", args: "arguments" }],
  model: ["model"],
  ...openaiUsage,
};

const anthropicReply: ReplyTable = {
  text: ["content/*/type=text/text"],
  calls: [{ at: "content/*/type=tool_use", name: "name", args: "input" }],
  model: ["model"],
  inputTokens: ["usage/input_tokens"],
  outputTokens: ["usage/output_tokens"],
};

const geminiReply: ReplyTable = {
  text: ["candidates/0/content/parts/*/text"],
  calls: [{ at: "candidates/0/content/parts/*/functionCall", name: "name", args: "args" }],
  model: ["modelVersion"],
  inputTokens: ["usageMetadata/promptTokenCount"],
  outputTokens: ["usageMetadata/candidatesTokenCount"],
};

const bedrock = { sdk: "bedrock", provider: "Bedrock", integration: "Bedrock", modelInPath: /\/model\/([^/]+)\// } as const;

const converseRequest: RequestTable = { system: "system", messages: "messages" };
const converseReply: ReplyTable = {
  text: ["output/message/content/*/text"],
  calls: [{ at: "output/message/content/*/toolUse", name: "name", args: "input" }],
  inputTokens: ["usage/inputTokens"],
  outputTokens: ["usage/outputTokens"],
};

/** InvokeModel bodies are the model family's own: the rows name each family's places (Claude, Nova, Titan Text, Llama). */
const invokeRequest: RequestTable = { system: "system", messages: "messages", text: ["inputText", "prompt"] };
const invokeReply: ReplyTable = {
  text: ["content/*/type=text/text", "output/message/content/*/text", "results/*/outputText", "generation"],
  calls: [
    { at: "content/*/type=tool_use", name: "name", args: "input" },
    { at: "output/message/content/*/toolUse", name: "name", args: "input" },
  ],
  // No model from the reply: the span keeps the model id the request addressed, as the wrapper's does.
  inputTokens: ["usage/input_tokens", "usage/inputTokens", "inputTextTokenCount", "prompt_token_count"],
  outputTokens: ["usage/output_tokens", "usage/outputTokens", "results/0/tokenCount", "generation_token_count"],
};
const METRICS = "amazon-bedrock-invocationMetrics";

/** Every endpoint the net records, by SDK. */
export const ENDPOINTS: readonly Endpoint[] = [
  {
    ...openai,
    name: "/chat/completions",
    path: /\/chat\/completions$/,
    request: { messages: "messages", model: "model" },
    reply: chatReply,
    stream: {
      text: ["choices/0/delta/content", "choices/0/delta/refusal"],
      calls: [{ at: "choices/0/delta/tool_calls/*", key: "index", name: "function/name", args: "function/arguments" }],
      model: ["model"],
      ...openaiUsage,
    },
  },
  {
    ...openai,
    name: "/responses",
    path: /\/responses$/,
    request: { system: "instructions", messages: "input", model: "model" },
    reply: responsesReply,
    stream: {
      text: ["type=response.output_text.delta/delta"],
      calls: [
        { at: "type=response.output_item.added", key: "output_index", name: "item/type=function_call/name", args: "item/type=function_call/arguments" },
        { at: "type=response.function_call_arguments.delta", key: "output_index", args: "delta" },
      ],
      model: ["type=response.created/response/model"],
      whole: "type=response.completed/response",
    },
  },
  { ...openai, name: "/embeddings", path: /\/embeddings$/, request: { text: ["input", "input/*"], model: "model" }, reply: { count: { at: "data/*", noun: "embedding(s)" }, model: ["model"], ...openaiUsage } },
  {
    ...openai,
    name: "/completions",
    path: /(^|\/v1)\/completions$/,
    request: { text: ["prompt", "prompt/*"], model: "model" },
    reply: { text: ["choices/0/text"], model: ["model"], ...openaiUsage },
    stream: { text: ["choices/0/text"], model: ["model"], ...openaiUsage },
  },
  {
    ...anthropic,
    name: "/v1/messages",
    path: /\/v1\/messages$/,
    request: { system: "system", messages: "messages", model: "model" },
    reply: anthropicReply,
    stream: {
      text: ["type=content_block_delta/delta/type=text_delta/text"],
      calls: [
        { at: "type=content_block_start", key: "index", name: "content_block/type=tool_use/name", args: "content_block/type=tool_use/input" },
        { at: "type=content_block_delta", key: "index", args: "delta/type=input_json_delta/partial_json" },
      ],
      model: ["type=message_start/message/model"],
      inputTokens: ["type=message_start/message/usage/input_tokens", "type=message_delta/usage/input_tokens"],
      outputTokens: ["type=message_start/message/usage/output_tokens", "type=message_delta/usage/output_tokens"],
    },
  },
  { ...gemini, name: ":generateContent", path: /:generateContent$/, request: { system: "systemInstruction", messages: "contents" }, reply: geminiReply },
  { ...gemini, name: ":streamGenerateContent", path: /:streamGenerateContent$/, request: { system: "systemInstruction", messages: "contents" }, reply: geminiReply, stream: { chunks: true } },
  { ...gemini, name: ":embedContent", path: /:embedContent$/, request: { text: ["content/parts/*/text", "contents/*/parts/*/text"] }, reply: { count: { at: "embedding", noun: "embedding(s)" } } },
  {
    ...gemini,
    name: ":batchEmbedContents",
    path: /:batchEmbedContents$/,
    request: { text: ["requests/*/content/parts/*/text"] },
    reply: { count: { at: "embeddings/*", noun: "embedding(s)" } },
  },
  { ...bedrock, name: "/converse", path: /\/model\/[^/]+\/converse$/, request: converseRequest, reply: converseReply, output: {} },
  {
    ...bedrock,
    name: "/converse-stream",
    path: /\/model\/[^/]+\/converse-stream$/,
    request: converseRequest,
    reply: converseReply,
    output: { events: "stream" },
    stream: {
      text: ["contentBlockDelta/delta/text"],
      calls: [
        { at: "contentBlockStart", key: "contentBlockIndex", name: "start/toolUse/name", args: "start/toolUse/input" },
        { at: "contentBlockDelta", key: "contentBlockIndex", args: "delta/toolUse/input" },
      ],
      inputTokens: ["metadata/usage/inputTokens"],
      outputTokens: ["metadata/usage/outputTokens"],
    },
  },
  { ...bedrock, name: "/invoke", path: /\/model\/[^/]+\/invoke$/, request: invokeRequest, reply: invokeReply, output: { json: "body" } },
  {
    ...bedrock,
    name: "/invoke-with-response-stream",
    path: /\/model\/[^/]+\/invoke-with-response-stream$/,
    request: invokeRequest,
    reply: invokeReply,
    output: { events: "body", eventJson: "chunk/bytes" },
    stream: {
      text: ["type=content_block_delta/delta/type=text_delta/text", "contentBlockDelta/delta/text", "outputText", "generation"],
      calls: [
        { at: "type=content_block_start", key: "index", name: "content_block/type=tool_use/name", args: "content_block/type=tool_use/input" },
        { at: "type=content_block_delta", key: "index", args: "delta/type=input_json_delta/partial_json" },
      ],
      inputTokens: ["type=message_start/message/usage/input_tokens", "metadata/usage/inputTokens", `${METRICS}/inputTokenCount`],
      outputTokens: ["type=message_delta/usage/output_tokens", "metadata/usage/outputTokens", `${METRICS}/outputTokenCount`],
    },
  },
];

/** The endpoint of `sdk` a POST to `path` (query string left out) reaches, if the net records it. */
export function endpointOf(sdk: NetSdk, method: string | undefined, path: string): Endpoint | undefined {
  if (method !== undefined && method.toUpperCase() !== "POST") return undefined;
  const bare = path.split("?")[0]!;
  return ENDPOINTS.find((e) => e.sdk === sdk && e.path.test(bare));
}

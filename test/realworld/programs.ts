/**
 * The real-world programs: official examples of the SDKs we instrument, copied verbatim into
 * programs/<sdk>/ (where each comes from, at which commit and under which licence: programs/SOURCES.md).
 * Each runs unmodified against the fake model servers, as a user would run it, once plain and
 * once under `--import evaltrace/auto` (see realworld.test.ts).
 */
export interface Program {
  /** `<sdk>/<name>`, as the summary and the known gaps name it. */
  id: string;
  /** The program file, relative to programs/. */
  file: string;
  /** Lines fed to its standard input (interactive examples). */
  stdin?: string;
  /** Arguments; `{port}` is the companion's port. */
  args?: string[];
  /**
   * A server the program talks to (relative to programs/), started before it in the same way
   * (plain, or under evaltrace/auto) with `MCP_PORT` set to a free port, and stopped with SIGINT
   * after it, once it has printed `ready`. Its output is compared too.
   */
  companion?: { file: string; ready: string };
  /** Milliseconds between streamed events: the fakes stream as slowly as a real model, so that an abort lands mid-stream. */
  paceMs?: number;
  /** Lowest Node version it runs on, e.g. `22.13` for Mastra. */
  minNode?: string;
  /** It imports packages that live in test/node22 (Node 22+ only; installed by test/node22/install.mjs): a resolve hook finds them there. */
  node22?: boolean;
  /**
   * What differs between two runs of the program itself, whatever tracing does, masked in stdout
   * before the runs are compared (beyond the dates, ids and times every program gets masked).
   */
  normalize?: (stdout: string) => string;
}

const openai = (name: string, file = `${name}.ts`): Program => ({ id: `openai/${name}`, file: `openai/examples/${file}` });
const anthropic = (name: string): Program => ({ id: `anthropic/${name}`, file: `anthropic/examples/${name}.ts` });
const gemini = (name: string): Program => ({ id: `google-genai/${name}`, file: `google-genai/sdk-samples/${name}.ts` });
const aiSdk = (path: string): Program => ({ id: `ai-sdk/${path}`, file: `ai-sdk/examples/ai-functions/src/${path}.ts` });
const langchain = (name: string, path: string): Program => ({ id: `langchain/${name}`, file: `langchain/examples/src/${path}.ts` });
const agents = (name: string, path: string, stdin?: string): Program => ({
  id: `openai-agents/${name}`,
  file: `openai-agents/examples/${path}.ts`,
  ...(stdin !== undefined ? { stdin } : {}),
});

const bedrock = (name: string, path: string): Program => ({ id: `bedrock/${name}`, file: `bedrock/javascriptv3/example_code/bedrock-runtime/${path}.js` });
const llamaindex = (name: string, path: string): Program => ({ id: `llamaindex/${name}`, file: `llamaindex/examples/${path}.ts` });

export const programs: Program[] = [
  // openai-node (openai 6)
  openai("demo"),
  openai("stream"),
  openai("tool-call-helpers"),
  openai("parsing"),
  openai("responses-stream", "responses/stream.ts"),
  openai("responses-structured-outputs", "responses/structured-outputs.ts"),
  openai("responses-streaming-tools", "responses/streaming-tools.ts"),
  // chat.completions.stream with structured output and with a tool; runTools streamed; responses.parse with a tool
  openai("parsing-stream"),
  openai("parsing-tools-stream"),
  openai("parsing-run-tools"),
  openai("responses-structured-outputs-tools", "responses/structured-outputs-tools.ts"),
  // anthropic-sdk-typescript
  anthropic("demo"),
  anthropic("streaming"),
  anthropic("tools"),
  anthropic("tools-streaming"),
  anthropic("tools-helpers-zod"),
  // beta.messages.toolRunner with stream: true; structured output streamed; token counting; the SDK's own middleware
  anthropic("tools-helpers-advanced-streaming"),
  anthropic("structured-outputs-streaming"),
  anthropic("count-tokens"),
  // The SDK's own middleware prints each request's URL: the fake's port differs between the runs.
  { ...anthropic("middleware"), normalize: (stdout) => stdout.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>") },
  // the stream aborted from a 1.5 s timer, mid-stream
  { ...anthropic("cancellation"), paceMs: 1000 },
  // googleapis/js-genai (@google/genai 2), the Gemini Developer API branch of each sample
  gemini("generate_content_with_system_instructions"),
  gemini("chats"),
  gemini("generate_content_with_function_calling"),
  gemini("generate_content_afc_streaming"),
  gemini("chat_afc"),
  gemini("mcp_client"),
  gemini("chat_afc_streaming"),
  gemini("generate_content_with_response_schema"),
  gemini("embed_content"),
  gemini("count_tokens"),
  // vercel/ai (ai 6 with @ai-sdk/openai)
  aiSdk("generate-text/openai/system-message-a"),
  aiSdk("generate-text/openai/tool-call"),
  aiSdk("generate-text/openai/multi-step"),
  aiSdk("stream-text/openai/multi-step"),
  aiSdk("embed/openai/basic"),
  aiSdk("embed-many/openai/basic"),
  // ToolLoopAgent: generate, stream with a tool, structured output generated and streamed
  aiSdk("agent/openai/generate"),
  aiSdk("agent/openai/stream-tools"),
  aiSdk("agent/openai/generate-output-object"),
  aiSdk("agent/openai/stream-output-object"),
  aiSdk("stream-text/openai/output-object"),
  // wrapLanguageModel with a logging middleware, generated and streamed
  aiSdk("middleware/generate-text-log-middleware-example"),
  aiSdk("middleware/stream-text-log-middleware"),
  // AbortSignal.timeout(3000), mid-stream
  { ...aiSdk("stream-text/openai/abort"), paceMs: 1200 },
  // langchainjs, LangGraph through langchain's createAgent and a StateGraph
  langchain("quickstart", "langchain-classic/get_started/quickstart"),
  langchain("interface_stream", "langchain-classic/guides/expression_language/interface_stream"),
  langchain("integration_openai_wsa_zod", "langchain-classic/models/chat/integration_openai_wsa_zod"),
  langchain("createAgent-tools", "createAgent/tools"),
  langchain("router-knowledge-base", "multi-agent/router-knowledge-base"),
  langchain("embeddings-openai", "langchain-classic/embeddings/openai"),
  langchain("chat_streaming_stream_method", "langchain-classic/models/chat/chat_streaming_stream_method"),
  langchain("integration_openai_tool_calls", "langchain-classic/models/chat/integration_openai_tool_calls"),
  // createAgent middleware: model call limits (with a MemorySaver thread), a model choosing the tools
  langchain("createAgent-modelCallLimit", "createAgent/middleware/modelCallLimit"),
  langchain("createAgent-llmToolSelector", "createAgent/middleware/llmToolSelector"),
  // controller.abort() after 3 s (LangChain lets the stream run on)
  langchain("how_to_cancellation", "langchain-classic/guides/expression_language/how_to_cancellation"),
  // openai-agents-js (@openai/agents 0.14)
  agents("tools", "basic/tools"),
  agents("stream-text", "basic/stream-text"),
  agents("readme-handoffs", "docs/readme/readme-handoffs"),
  agents("agents-as-tools", "agent-patterns/agents-as-tools", "Translate 'good morning' to Spanish\n"),
  // The program pipes its text stream into stdout and logs its next heading once the run has
  // completed, which may come before the pipe's last write: the heading's place moves between
  // any two runs (seen untraced, on a loaded machine), so it is taken out before they are compared.
  { ...agents("streamed", "agent-patterns/streamed"), normalize: (stdout) => stdout.replace("\n\n  ● All event stream  \n\n", "") },
  agents("stream-items", "basic/stream-items"),
  agents("handoffs", "handoffs/index"),
  // an input and an output guardrail, each an agent with structured output (the fake's sample says "trip")
  agents("guardrails-input", "docs/guardrails/guardrails-input"),
  agents("guardrails-output", "docs/guardrails/guardrails-output"),
  agents("streaming-guardrails", "agent-patterns/streaming-guardrails"),
  // modelcontextprotocol/typescript-sdk (v1.x): a client and the example server it talks to, over Streamable HTTP
  {
    id: "mcp/streamableHttpWithSseFallbackClient",
    file: "mcp/src/examples/client/streamableHttpWithSseFallbackClient.ts",
    args: ["http://localhost:{port}/mcp"],
    companion: { file: "mcp/src/examples/server/simpleStreamableHttp.ts", ready: "MCP Streamable HTTP Server listening" },
  },
  // awsdocs/aws-doc-sdk-examples, JavaScript v3 (@aws-sdk/client-bedrock-runtime 3)
  bedrock("hello", "hello"),
  bedrock("anthropicClaude-converse", "models/anthropicClaude/converse"),
  bedrock("anthropicClaude-converseStream", "models/anthropicClaude/converseStream"),
  // InvokeModel with a Claude Messages body (from the commit before the repository removed its InvokeModel text examples)
  bedrock("anthropicClaude-invoke_claude_3", "models/anthropicClaude/invoke_claude_3"),
  // Reads the text block a model writes before its tool call (`toolRequests[0].text`); the fake
  // answers with the toolUse block alone, so the program stops after the first request at its own
  // (caught, printed) TypeError, alike in both runs: one request with a system prompt, tools and a tool call.
  bedrock("amazonNovaText-converse-with-tool", "models/amazonNovaText/converse-with-tool"),
  // run-llama/LlamaIndexTS (llamaindex 0.12 with @llamaindex/openai and @llamaindex/workflow)
  llamaindex("vectorIndex", "index/vectorIndex"),
  llamaindex("agent-openai", "agents/agent/openai"),
  // RAG as an agent tool: a query engine over a vector index (OpenAIEmbedding)
  llamaindex("agent-query-tool", "agents/agent/query-tool"),
  llamaindex("tools-exec-stream", "agents/tools/exec-stream"),
  llamaindex("openai-responses-stream", "models/openai/responses/stream"),
  // mastra (@mastra/core 1, Node 22.13+)
  { id: "mastra/agent-v6-example", file: "mastra/examples/agent-v6/src/example.ts", minNode: "22.13", node22: true },
];

/**
 * The live service's provider vocabulary: what the vendor SDKs map every span's provider to
 * before sending (case and punctuation ignored, the first word of `openai.chat`). Checked in
 * order: the first whose pattern matches the normalised name wins; unknown names pass through.
 */
const vocabulary: readonly [RegExp, string][] = [
  [/^azure/, "Azure"],
  [/vertex/, "VertexAI"],
  [/bedrock/, "Bedrock"],
  [/^openrouter/, "OpenRouter"],
  [/^portkey/, "Portkey"],
  [/^truefoundry/, "TrueFoundry"],
  [/^openai/, "OpenAI"],
  [/^anthropic/, "Anthropic"],
  [/^(gemini|google)/, "Gemini"],
  [/^(xai|grok)/, "XAI"],
  [/^deepseek/, "DeepSeek"],
  [/^mistral/, "Mistral"],
  [/^perplexity/, "Perplexity"],
  [/^moonshot/, "Moonshot"],
];

/** A provider name in the service's vocabulary (`openai.chat` → `OpenAI`), or as it was. */
export function providerName(raw: string): string {
  const normalised = raw.toLowerCase().replace(/[^a-z0-9]/g, "");
  const firstWord = raw.toLowerCase().split(/[.\s/:]/)[0]!.replace(/[^a-z0-9]/g, "");
  for (const [pattern, name] of vocabulary) if (pattern.test(firstWord) || pattern.test(normalised)) return name;
  return raw;
}

/**
 * `gen_ai.system` (the GenAI conventions before `gen_ai.provider.name`) → the provider it
 * names, for its well-known values the vocabulary above does not read; null for values that
 * name a framework rather than a provider (ADK's `gcp.vertex.agent`, whichever API it calls;
 * Strands' default service name): no provider rather than a wrong one. Other values pass
 * through (the vocabulary maps them when sent).
 */
const genAiSystems: Record<string, string | null> = {
  "gcp.gemini": "Gemini",
  "gcp.gen_ai": "Gemini",
  "gcp.vertex_ai": "VertexAI",
  "aws.bedrock": "Bedrock",
  "az.ai.inference": "Azure",
  "az.ai.openai": "Azure",
  "azure.ai.inference": "Azure",
  "azure.ai.openai": "Azure",
  mistral_ai: "Mistral",
  "gcp.vertex.agent": null,
  "strands-agents": null,
};

/** The provider a span's `gen_ai.provider.name`, else its `gen_ai.system`, names; undefined when neither does. */
export function genAiProvider(providerAttr: unknown, systemAttr: unknown): string | undefined {
  if (typeof providerAttr === "string" && providerAttr !== "") return providerAttr;
  if (typeof systemAttr !== "string" || systemAttr === "") return undefined;
  const mapped = genAiSystems[systemAttr];
  return mapped === undefined ? systemAttr : (mapped ?? undefined);
}

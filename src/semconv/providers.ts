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

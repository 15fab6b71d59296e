import { claimSdk, type NetSdk, netBedrock, netGenAI, netStainless } from "../integrations/net/index.js";
import { callingFramework } from "./frameworks.js";
import type { LibraryName } from "./libraries.js";
import { isOn } from "./state.js";

/**
 * Zero-code claims a model SDK whole for the net below the method-level wrappers: a request of
 * any of its clients that no wrapper's span owns is recorded, while the library is on and unless
 * a traced framework (LangChain, the Agents SDK, LlamaIndex) is the caller, whose own llm span
 * records the call.
 */
function claim(sdk: NetSdk, library: LibraryName): void {
  claimSdk(sdk, () => isOn(library) && callingFramework() === undefined);
}

/** Puts the net under a Stainless client class (`OpenAI`, `Anthropic`) and claims its SDK. Never throws. */
export function netUnderClientClass(sdk: "openai" | "anthropic", library: LibraryName, clientClass: unknown): void {
  if (typeof clientClass !== "function") return;
  netStainless(sdk, clientClass.prototype);
  claim(sdk, library);
}

/** Puts the net under the `ApiClient` of a `@google/genai` `models` object and claims the SDK. Never throws. */
export function netUnderGenAIModels(models: object): void {
  netGenAI((models as { apiClient?: unknown }).apiClient);
  claim("google-genai", "google-genai");
}

/** Puts the net under a Bedrock Runtime client (on its first `send`) and claims the SDK. Never throws. */
export function netUnderBedrockClient(client: object): void {
  netBedrock(client);
  claim("bedrock", "bedrock");
}

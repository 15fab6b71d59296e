/**
 * The net below the method-level wrappers: a model request of a claimed SDK that no wrapper's
 * span owns is recorded from its request and response bodies, with a table per endpoint.
 */
export { leftToAiSdk, netProviderPost } from "./ai-sdk-provider.js";
export { netBedrock, netBedrockClient } from "./bedrock.js";
export { claimClient, claimSdk, type SdkClaim } from "./claims.js";
export type { NetSdk } from "./endpoints.js";
export { netGenAI, netGenAIClient } from "./genai.js";
export { NET_ENDPOINT_KEY, RECORDED_BY_KEY } from "./net-span.js";
export { netStainless, netStainlessClient } from "./stainless.js";

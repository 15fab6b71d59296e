import { traceAnthropicClasses } from "../../integrations/anthropic/wrap.js";
import { netUnderClientClass } from "../net-claim.js";
import { resourceClientHook } from "../resource-hook.js";

/**
 * `@anthropic-ai/sdk`: the calls of every client, as `wrapAnthropic` records them (which also keeps
 * the SDK's own OTel span from doubling them), its classes patched when the package loads.
 */
export const anthropicHook = resourceClientHook({
  library: "anthropic",
  packageName: "@anthropic-ai/sdk",
  versions: [">=0.20"],
  clientExport: "Anthropic",
  trace: traceAnthropicClasses,
  net: (client) => netUnderClientClass("anthropic", "anthropic", client),
});

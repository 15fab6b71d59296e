import { wrapAnthropic } from "../../integrations/anthropic.js";
import { netUnderClientClass } from "../net-claim.js";
import { resourceClientHook } from "../resource-hook.js";

/**
 * `@anthropic-ai/sdk`: every client, on its first `messages.create` or `messages.stream`, is
 * instrumented by `wrapAnthropic` (which also keeps the SDK's own OTel span from doubling it).
 */
export const anthropicHook = resourceClientHook({
  library: "anthropic",
  packageName: "@anthropic-ai/sdk",
  versions: [">=0.20"],
  clientExport: "Anthropic",
  resources: [["Messages"], ["Beta", "Messages"]],
  methods: ["create", "stream"],
  wrap: wrapAnthropic,
  net: (client) => netUnderClientClass("anthropic", "anthropic", client),
});

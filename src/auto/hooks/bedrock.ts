import { wrapBedrock } from "../../integrations/bedrock/index.js";
import { bedrockInstrumented } from "../../integrations/bedrock/wrap.js";
import { callingFramework } from "../frameworks.js";
import { wrapOnFirstUse } from "../first-use.js";
import type { LibraryHook } from "../instrumentation.js";
import { netUnderBedrockClient } from "../net-claim.js";
import { isOn } from "../state.js";

/**
 * `@aws-sdk/client-bedrock-runtime`: `send` on `BedrockRuntimeClient.prototype` (which the
 * `BedrockRuntime` aggregate client inherits) instruments each client on its first call with
 * `wrapBedrock` (a middleware on the client's own stack), unless a traced framework is the caller,
 * and puts the net under every client. Other AWS clients are untouched: `send` is patched on this
 * class alone, not on the SDK's shared base class.
 */
export const bedrockHook: LibraryHook = {
  library: "bedrock",
  packageName: "@aws-sdk/client-bedrock-runtime",
  versions: [">=3"],
  onLoad(exports) {
    const Client = exports.BedrockRuntimeClient as { prototype?: unknown } | undefined;
    if (typeof Client !== "function") return;
    // Clients decided on (wrapped, wrapped by the app, or left to a framework): a send checks this set only.
    const seen = new WeakSet<object>();
    wrapOnFirstUse(Client.prototype, ["send"], (client) => {
      if (seen.has(client)) return;
      netUnderBedrockClient(client);
      if (!isOn("bedrock")) return;
      seen.add(client);
      if (bedrockInstrumented(client) || callingFramework()) return;
      wrapBedrock(client);
    });
  },
};

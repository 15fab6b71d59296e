import { wrapBedrock } from "../../integrations/bedrock/index.js";
import { callingFramework } from "../frameworks.js";
import { wrapOnFirstUse } from "../first-use.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

/**
 * `@aws-sdk/client-bedrock-runtime`: `send` on `BedrockRuntimeClient.prototype` (which the
 * `BedrockRuntime` aggregate client inherits) instruments each client on its first call with
 * `wrapBedrock`, unless a traced framework is the caller. Other AWS clients are untouched: `send`
 * is patched on this class alone, not on the SDK's shared base class.
 */
export const bedrockHook: LibraryHook = {
  library: "bedrock",
  packageName: "@aws-sdk/client-bedrock-runtime",
  versions: [">=3"],
  onLoad(exports) {
    const Client = exports.BedrockRuntimeClient as { prototype?: unknown } | undefined;
    if (typeof Client !== "function") return;
    const leftAlone = new WeakSet<object>();
    wrapOnFirstUse(Client.prototype, ["send"], (client) => {
      if (!isOn("bedrock") || leftAlone.has(client)) return;
      if (callingFramework()) {
        leftAlone.add(client);
        return;
      }
      wrapBedrock(client);
    });
  },
};

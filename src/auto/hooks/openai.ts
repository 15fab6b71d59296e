import { traceOpenAIClasses } from "../../integrations/openai/wrap.js";
import { netUnderClientClass } from "../net-claim.js";
import { resourceClientHook } from "../resource-hook.js";

/** `openai`: the calls of every client, as `wrapOpenAI` records them (its classes patched when the package loads). */
export const openaiHook = resourceClientHook({
  library: "openai",
  packageName: "openai",
  // The package's entry by name, and by its file: `import OpenAI from "openai/index"` (as
  // openai-node's own examples do) loads the very same module through another specifier.
  entryFiles: ["openai/index.mjs", "openai/index.js"],
  versions: [">=4"],
  clientExport: "OpenAI",
  trace: traceOpenAIClasses,
  net: (client) => netUnderClientClass("openai", "openai", client),
});

import { wrapOpenAI } from "../../integrations/openai/index.js";
import { netUnderClientClass } from "../net-claim.js";
import { resourceClientHook } from "../resource-hook.js";

/** `openai`: every client, on its first call, is instrumented by `wrapOpenAI`. */
export const openaiHook = resourceClientHook({
  library: "openai",
  packageName: "openai",
  // The package's entry by name, and by its file: `import OpenAI from "openai/index"` (as
  // openai-node's own examples do) loads the very same module through another specifier.
  entryFiles: ["openai/index.mjs", "openai/index.js"],
  versions: [">=4"],
  clientExport: "OpenAI",
  resources: [["Chat", "Completions"], ["Responses"], ["Embeddings"]],
  methods: ["create"],
  wrap: wrapOpenAI,
  net: (client) => netUnderClientClass("openai", "openai", client),
});

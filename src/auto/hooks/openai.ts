import { wrapOpenAI } from "../../integrations/openai/index.js";
import { resourceClientHook } from "../resource-hook.js";

/** `openai`: every client, on its first call, is instrumented by `wrapOpenAI`. */
export const openaiHook = resourceClientHook({
  library: "openai",
  packageName: "openai",
  versions: [">=4"],
  clientExport: "OpenAI",
  resources: [["Chat", "Completions"], ["Responses"], ["Embeddings"]],
  methods: ["create"],
  wrap: wrapOpenAI,
});

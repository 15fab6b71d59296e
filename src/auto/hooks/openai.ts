import { wrapOpenAI } from "../../integrations/openai.js";
import { callingFramework } from "../frameworks.js";
import { wrapOnFirstUse } from "../first-use.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Resource = { _client?: object };

/** The resource classes whose `create` reaches a model, as paths from the client class. */
const resources: readonly (readonly string[])[] = [["Chat", "Completions"], ["Responses"], ["Embeddings"]];

const leftAlone = new WeakSet<object>();

/** Instruments the client of a resource on its first call (unless a traced framework owns it). */
function ensure(resource: object): void {
  const client = (resource as Resource)._client;
  if (!client || !isOn("openai") || leftAlone.has(client)) return;
  if (callingFramework()) {
    leftAlone.add(client);
    return;
  }
  wrapOpenAI(client);
}

/** `openai`: every client, on its first call, is instrumented by `wrapOpenAI`. */
export const openaiHook: LibraryHook = {
  library: "openai",
  packageName: "openai",
  versions: [">=4"],
  onLoad(exports) {
    const client = (exports.OpenAI ?? exports.default) as Record<string, unknown> | undefined;
    for (const path of resources) {
      let cls: unknown = client;
      for (const key of path) cls = (cls as Record<string, unknown> | undefined)?.[key];
      if (typeof cls === "function") wrapOnFirstUse(cls.prototype, ["create"], ensure);
    }
  },
};

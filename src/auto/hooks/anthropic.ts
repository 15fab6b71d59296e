import { wrapAnthropic } from "../../integrations/anthropic.js";
import { callingFramework } from "../frameworks.js";
import { wrapOnFirstUse } from "../first-use.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Resource = { _client?: object };

/** The messages resource classes, as paths from the client class. */
const resources: readonly (readonly string[])[] = [["Messages"], ["Beta", "Messages"]];

const leftAlone = new WeakSet<object>();

function ensure(resource: object): void {
  const client = (resource as Resource)._client;
  if (!client || !isOn("anthropic") || leftAlone.has(client)) return;
  if (callingFramework()) {
    leftAlone.add(client);
    return;
  }
  wrapAnthropic(client);
}

/**
 * `@anthropic-ai/sdk`: every client, on its first `messages.create` or `messages.stream`, is
 * instrumented by `wrapAnthropic` (which also keeps the SDK's own OTel span from doubling it).
 */
export const anthropicHook: LibraryHook = {
  library: "anthropic",
  packageName: "@anthropic-ai/sdk",
  versions: [">=0.20"],
  onLoad(exports) {
    const client = (exports.Anthropic ?? exports.default) as Record<string, unknown> | undefined;
    for (const path of resources) {
      let cls: unknown = client;
      for (const key of path) cls = (cls as Record<string, unknown> | undefined)?.[key];
      if (typeof cls === "function") wrapOnFirstUse(cls.prototype, ["create", "stream"], ensure);
    }
  },
};

import { wrapGoogleGenAI } from "../../integrations/google-genai/index.js";
import { callingFramework } from "../frameworks.js";
import { onFieldsAssigned } from "../first-use.js";
import { netUnderGenAIModels } from "../net-claim.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

/**
 * `@google/genai`: its `Models` constructor assigns `generateContent` and
 * `generateContentStream` on each instance, so a prototype method would never be reached; the
 * hook instead sees those assignments and instruments the `models` object with
 * `wrapGoogleGenAI` as it is built (the app's object, its fields enumerable as before).
 */
export const googleGenAIHook: LibraryHook = {
  library: "google-genai",
  packageName: "@google/genai",
  versions: [">=1"],
  onLoad(exports) {
    const Models = exports.Models as { prototype?: unknown } | undefined;
    if (typeof Models !== "function") return;
    onFieldsAssigned(Models.prototype, ["generateContent", "generateContentStream"], (models) => {
      netUnderGenAIModels(models);
      if (!isOn("google-genai") || callingFramework()) return;
      wrapGoogleGenAI({ models });
    });
  },
};

import { wrapGoogleGenAI } from "../../integrations/google-genai/index.js";
import { callingFramework } from "../frameworks.js";
import { onFieldsAssigned } from "../first-use.js";
import { netUnderGenAIModels } from "../net-claim.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

/**
 * `@google/genai`: each `models` object is seen as its `Models` constructor assigns
 * `generateContent` and `generateContentStream` (a setter on the class's prototype stores each
 * as the plain field it would have been), so that the net goes under its `ApiClient` and, unless a
 * traced framework builds it, `wrapGoogleGenAI` instruments it (hooks on the `Models` class; the
 * object itself is left as the SDK made it).
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

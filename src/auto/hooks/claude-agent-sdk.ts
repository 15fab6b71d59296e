import { wrapQueryWhen } from "../../integrations/claude-agent-sdk/wrap.js";
import type { LibraryHook } from "../instrumentation.js";
import { isOn } from "../state.js";

type Query = (params: never) => unknown;

/**
 * The module's `query` replaced by one traced as `wrapQuery` does (while `claude-agent-sdk` is
 * on): set on the ESM namespace (import-in-the-middle lets a hook assign its exports), or, where
 * the export cannot be assigned, served through a proxy of the exports.
 */
function onEntry(exports: Record<string, unknown>): unknown {
  const original = exports.query;
  if (typeof original !== "function") return undefined;
  const wrapped = wrapQueryWhen(original as Query, () => isOn("claude-agent-sdk"));
  if (wrapped === original) return undefined;
  try {
    exports.query = wrapped;
  } catch {
    // A read-only export: served through the proxy below.
  }
  if (exports.query === wrapped) return exports;
  return new Proxy(exports, { get: (target, key, receiver) => (key === "query" ? wrapped : Reflect.get(target, key, receiver)) });
}

/**
 * `@anthropic-ai/claude-agent-sdk` (an ESM package): its `query` (from the main entry and from
 * `/core`) traced as `wrapQuery` does — an agent span per query, llm spans per model turn, tool
 * spans per tool call, subagents nested under the call that started them.
 */
export const claudeAgentSdkHook: LibraryHook = {
  library: "claude-agent-sdk",
  packageName: "@anthropic-ai/claude-agent-sdk",
  versions: [">=0.1"],
  onLoad: onEntry,
  replaces: ["query"],
  files: [{ path: "@anthropic-ai/claude-agent-sdk/core.mjs", onLoad: onEntry, replaces: ["query"] }],
};

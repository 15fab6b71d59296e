import { processWide } from "../process-wide.js";
import type { JsonValue } from "./json-value.js";

/** What `updateCurrentTrace` has let through for one trace so far. */
interface TraceBudget {
  tags: Set<string>;
  metadataKeys: Set<string>;
}

// Keyed by the SDK's record of the trace: gone with it once the trace was delivered. One map per
// process: the ESM and CommonJS copies update the same traces.
const budgets = processWide("traceBudgets", () => new WeakMap<object, TraceBudget>());

function budgetOf(trace: object): TraceBudget {
  let budget = budgets.get(trace);
  if (!budget) {
    budget = { tags: new Set(), metadataKeys: new Set() };
    budgets.set(trace, budget);
  }
  return budget;
}

/**
 * The tags of `tags` that are new to `trace`, as long as the trace holds at most `max` distinct
 * tags; `dropped` counts the new ones beyond that. Repeated tags are left out (already sent).
 */
export function admitTags(trace: object, tags: readonly string[], max: number): { kept: string[]; dropped: number } {
  const seen = budgetOf(trace).tags;
  const kept: string[] = [];
  let dropped = 0;
  for (const tag of tags) {
    if (seen.has(tag)) continue;
    if (seen.size >= max) {
      dropped++;
      continue;
    }
    seen.add(tag);
    kept.push(tag);
  }
  return { kept, dropped };
}

/**
 * The entries of `metadata` that fit into `trace`'s metadata of at most `maxKeys` distinct keys
 * (keys it already has are always let through: they overwrite); `dropped` counts the others.
 */
export function admitMetadata(
  trace: object,
  metadata: { [key: string]: JsonValue },
  maxKeys: number,
): { kept: { [key: string]: JsonValue }; dropped: number } {
  const seen = budgetOf(trace).metadataKeys;
  return mergeBounded(seen, {}, metadata, maxKeys);
}

/**
 * Merges `added` into a copy of `target`, letting in new keys only while `keys` (the distinct
 * keys so far, updated) has fewer than `maxKeys`. Used for span metadata and trace metadata.
 */
export function mergeBounded(
  keys: Set<string>,
  target: { [key: string]: JsonValue },
  added: { [key: string]: JsonValue },
  maxKeys: number,
): { kept: { [key: string]: JsonValue }; dropped: number } {
  const kept = { ...target };
  let dropped = 0;
  for (const [key, value] of Object.entries(added)) {
    if (!keys.has(key)) {
      if (keys.size >= maxKeys) {
        dropped++;
        continue;
      }
      keys.add(key);
    }
    kept[key] = value;
  }
  return { kept, dropped };
}

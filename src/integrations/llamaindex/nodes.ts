import { isObject } from "../kit/model-call.js";
import { field } from "./messages.js";

/**
 * LlamaIndex retrieval as our retriever spans carry it: the nodes (`NodeWithScore`: `{node,
 * score}`, a `TextNode` has `id_`, `text` and `metadata`), the retriever's name and its
 * embedding model, found on the engine or retriever that dispatched the event.
 */

/** A retrieved node as a retriever span's output lists it. */
export interface ReadNode {
  id?: string;
  text: string;
  score?: number;
  metadata?: Record<string, unknown>;
}

/** Nodes read at most per retrieval. */
const MAX_NODES = 200;

/** `retrieve-end`'s `nodes` as plain objects. */
export function readNodes(nodes: unknown): ReadNode[] {
  if (!Array.isArray(nodes)) return [];
  return nodes.slice(0, MAX_NODES).map((n) => {
    const node = field(n, "node") ?? n;
    const text = field(node, "text");
    const id = field(node, "id_");
    const score = field(n, "score");
    const metadata = field(node, "metadata");
    return {
      ...(typeof id === "string" ? { id } : {}),
      text: typeof text === "string" ? text : "",
      ...(typeof score === "number" && Number.isFinite(score) ? { score } : {}),
      ...(isObject(metadata) && Object.keys(metadata).length > 0 ? { metadata } : {}),
    };
  });
}

/** The retriever behind an engine (`RetrieverQueryEngine`, `ContextChatEngine`) or the retriever itself. */
function retrieverOf(caller: unknown): unknown {
  return field(caller, "retriever") ?? field(field(caller, "contextGenerator"), "retriever") ?? caller;
}

const className = (v: unknown): string | undefined => {
  const name = field(field(v, "constructor"), "name");
  return typeof name === "string" && name && name !== "Object" ? name : undefined;
};

/** The retriever span's name: the retriever's class (`VectorIndexRetriever`), else `retriever`. */
export function retrieverName(caller: unknown): string {
  const name = className(retrieverOf(caller));
  return name && /retriever/i.test(name) ? name : "retriever";
}

/** The embedding model the retriever embeds queries with (a vector index's `embedModel`), if named. */
export function embedderOf(caller: unknown): string | undefined {
  const retriever = retrieverOf(caller);
  const index = field(retriever, "index");
  const candidates = [field(retriever, "embedModel"), field(index, "embedModel"), field(field(index, "vectorStores"), "TEXT")];
  for (const candidate of candidates) {
    const model = field(candidate, "model") ?? field(field(candidate, "embedModel"), "model");
    if (typeof model === "string" && model) return model;
  }
  return undefined;
}

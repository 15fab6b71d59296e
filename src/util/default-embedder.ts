import { processWide } from "../process-wide.js";

/**
 * The embedder an integration's retriever span gets when its embedding model cannot be read (a
 * retriever of no vector store, an embedder with no model name): the placeholder the service's
 * schema asks for, set silently (the app did nothing wrong) and counted for the process
 * (`stats().retrieverEmbeddersDefaulted`).
 */
export const DEFAULT_EMBEDDER = "default-embedder";

const counter = (): { count: number } => processWide("retrieverEmbeddersDefaulted", () => ({ count: 0 }));

/** Counts one retriever span given {@link DEFAULT_EMBEDDER} and returns it. */
export function defaultEmbedder(): string {
  counter().count++;
  return DEFAULT_EMBEDDER;
}

/** How many integration retriever spans got {@link DEFAULT_EMBEDDER} so far, for the process. */
export function defaultEmbedderCount(): number {
  return counter().count;
}

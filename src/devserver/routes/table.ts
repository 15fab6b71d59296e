import type { Handler } from "../context.js";
import { HttpError } from "../http-error.js";
import { rotateKey, updateKey } from "./api-keys.js";
import { createCollection, listCollections, updateCollection } from "./collections.js";
import { pullDataset, pushDataset } from "./datasets.js";
import { evaluate } from "./evaluate.js";
import { batchCreateMetrics, createMetric, listMetrics, updateMetric } from "./metrics.js";
import { evaluateSpan, evaluateThread, evaluateTrace } from "./offline.js";
import { readPromptCommit, readPromptLabel, readPromptVersion, releasePromptVersion, setPromptLabel } from "./prompt-reads.js";
import { pushPrompt } from "./prompts.js";
import { ingestTraces, updateTrace } from "./traces.js";

/** An endpoint of the API: method, path (`:name` segments become named groups), key scope, handler. */
export interface Route {
  method: string;
  pattern: RegExp;
  scope: "org" | "project";
  handler: Handler;
}

const route = (method: string, path: string, scope: Route["scope"], handler: Handler): Route => ({
  method,
  pattern: new RegExp(`^${path.replace(/:(\w+)/g, "(?<$1>[^/]+)")}$`),
  scope,
  handler,
});

const routes: Route[] = [
  route("POST", "/v1/organization/api-keys/:apiKeyId/rotate", "org", rotateKey),
  route("PUT", "/v2/organization/api-keys/:apiKeyId", "org", updateKey),
  route("POST", "/v1/metrics", "project", createMetric),
  route("GET", "/v1/metrics", "project", listMetrics),
  route("POST", "/v1/batch-metrics", "project", batchCreateMetrics),
  route("PUT", "/v1/metrics/:id", "project", updateMetric),
  // `/v1/metrics-collections` is the spec's noted misspelling: an alias.
  ...["metric-collections", "metrics-collections"].flatMap((p) => [
    route("POST", `/v1/${p}`, "project", createCollection),
    route("GET", `/v1/${p}`, "project", listCollections),
    route("PUT", `/v1/${p}/:id`, "project", updateCollection),
  ]),
  route("POST", "/v1/evaluate", "project", evaluate),
  route("POST", "/v1/evalate", "project", evaluate),
  route("POST", "/v1/traces", "project", ingestTraces),
  route("PUT", "/v1/traces/:uuid", "project", updateTrace),
  route("POST", "/v1/evaluate/threads/:id", "project", evaluateThread),
  route("POST", "/v1/evaluate/traces/:uuid", "project", evaluateTrace),
  route("POST", "/v1/evaluate/spans/:uuid", "project", evaluateSpan),
  // Prompt reads: the vendor SDKs' paths (routes/prompt-reads.ts).
  route("GET", "/v1/prompts/:alias/commits/:hash", "project", readPromptCommit),
  route("GET", "/v1/prompts/:alias/versions/:version", "project", readPromptVersion),
  route("POST", "/v1/prompts/:alias/versions", "project", releasePromptVersion),
  route("GET", "/v1/prompts/:alias/labels/:label", "project", readPromptLabel),
  route("PUT", "/v1/prompts/:alias/labels/:label", "project", setPromptLabel),
  route("POST", "/v2/prompts", "project", pushPrompt),
  route("POST", "/v2/datasets", "project", pushDataset),
  // Not in the spec: the read the vendor SDKs use (protocol/dataset-pull.ts).
  route("GET", "/v1/datasets/:alias", "project", pullDataset),
];

/** The route of a method and path; 404 for an unknown path, 405 (with `Allow`) for a wrong method. */
export function findRoute(method: string, path: string): Route {
  const matches = routes.filter((r) => r.pattern.test(path));
  if (matches.length === 0) throw new HttpError(404, `no endpoint ${path}`);
  const r = matches.find((m) => m.method === method);
  if (!r) throw new HttpError(405, `${method} is not allowed on ${path}; use ${matches.map((m) => m.method).join(" or ")}`, { allow: matches.map((m) => m.method).join(", ") });
  return r;
}

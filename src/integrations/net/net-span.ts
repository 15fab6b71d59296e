import type { Context } from "@opentelemetry/api";
import { currentRuntime } from "../../runtime/configure.js";
import { type ManualSpan, openSpan } from "../../tracing/manual-span.js";
import { processWide } from "../../process-wide.js";
import { countNetSpan } from "../../util/net-spans.js";
import { type Message, setMetadata } from "../kit/model-call.js";
import type { Endpoint } from "./endpoints.js";
import { requestInput, requestModel } from "./read-body.js";

/** The metadata key that says an llm span was recorded by the net, not by a method-level wrapper. */
export const RECORDED_BY_KEY = "evaltrace.recordedBy";
/** The metadata key naming the SDK and endpoint the net saw (`openai /chat/completions`). */
export const NET_ENDPOINT_KEY = "evaltrace.netEndpoint";

/** An llm span the net opened for one request, with the input it recorded. */
export interface NetSpan {
  span: ManualSpan;
  endpoint: Endpoint;
  input: Message[];
}

// SDK + endpoint pairs already named in the debug log, for the process.
const logged = (): Set<string> => processWide("netLogged", () => new Set<string>());

/**
 * Opens the llm span of a request that no method-level wrapper owned, under `parent` (the
 * context the request started in): its input and model from the request body, its metadata
 * saying the net recorded it. Counted in `stats().netSpans`; the first one per endpoint logs a
 * debug line naming SDK and endpoint. Undefined when tracing is off.
 */
export function openNetSpan(endpoint: Endpoint, body: unknown, path: string, parent: Context): NetSpan | undefined {
  const input = requestInput(endpoint.request, body);
  const label = `${endpoint.sdk} ${endpoint.name}`;
  const span = openSpan(label, "llm", { model: requestModel(endpoint, body, path), provider: endpoint.provider }, input, parent);
  if (!span) return undefined;
  span.setIntegration(endpoint.integration);
  setMetadata(span, { [RECORDED_BY_KEY]: "net", [NET_ENDPOINT_KEY]: label });
  countNetSpan();
  const seen = logged();
  if (!seen.has(label)) {
    seen.add(label);
    currentRuntime()?.logger.debug(`the net recorded a ${label} request that no method-level wrapper saw (stats().netSpans counts them)`);
  }
  return { span, endpoint, input };
}

import { modelCallOwned } from "../integrations/kit/model-call.js";
import { currentRuntime } from "../runtime/configure.js";
import { nodeBuiltinNow } from "../util/node-builtin.js";
import type { LibraryName } from "./libraries.js";
import { autoState, isOn } from "./state.js";

/**
 * How a model SDK's HTTP request names the SDK that sent it: a header, and how its value starts.
 * The Stainless SDKs send `User-Agent: OpenAI/JS 6.49.0`; `@google/genai` sends
 * `x-goog-api-client: google-genai-sdk/1.30.0 gl-node/...`.
 */
const SIGNATURES: readonly { library: LibraryName; pkg: string; header: string; prefix: string; wrap: string }[] = [
  { library: "openai", pkg: "openai", header: "user-agent", prefix: "OpenAI/JS ", wrap: "wrapOpenAI" },
  { library: "anthropic", pkg: "@anthropic-ai/sdk", header: "user-agent", prefix: "Anthropic/JS ", wrap: "wrapAnthropic" },
  { library: "google-genai", pkg: "@google/genai", header: "x-goog-api-client", prefix: "google-genai-sdk/", wrap: "wrapGoogleGenAI" },
];

/** The fix for a bundled `pkg`, in the log line and in the doctor's report. */
export function bundledFix(pkg: string, wrap: string): string {
  return `in Next.js add serverExternalPackages: ["${pkg}"] to next.config (docs/nextjs.md); with another bundler, mark ${pkg} external; or wrap the client yourself (${wrap})`;
}

/** The package and the fix of each library zero-code saw bundled, for the doctor. */
export function bundledLibraries(): { library: LibraryName; pkg: string; fix: string }[] {
  const bundled = autoState().bundled;
  return SIGNATURES.filter((s) => bundled?.has(s.library)).map((s) => ({ library: s.library, pkg: s.pkg, fix: bundledFix(s.pkg, s.wrap) }));
}

/** A header's value from undici's request (`[name, value, ...]`, or older `"name: value\r\n..."`). */
function headerValue(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === name) return String(headers[i + 1]);
    }
    return undefined;
  }
  if (typeof headers !== "string") return undefined;
  const line = headers.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

function onRequest(message: unknown): void {
  try {
    const state = autoState();
    const headers = (message as { request?: { headers?: unknown } } | null)?.request?.headers;
    for (const sig of SIGNATURES) {
      if (!isOn(sig.library) || state.loaded.has(sig.library) || state.bundled.has(sig.library)) continue;
      if (!headerValue(headers, sig.header)?.startsWith(sig.prefix)) continue;
      // A client the app wrapped itself is recorded by its wrapper: not a miss.
      if (modelCallOwned()) return;
      state.bundled.add(sig.library);
      currentRuntime()?.logger.warn(
        `zero-code: a request of ${sig.pkg} came from a copy the module hooks never saw load: a bundler put it into the app's own files (Next.js bundles server code), and zero-code cannot patch a bundled copy, so its calls are not recorded. Fix: ${bundledFix(sig.pkg, sig.wrap)}.`,
      );
      return;
    }
  } catch {
    // A look at a request: it never fails one.
  }
}

/**
 * Zero-code patches the model SDKs as Node loads them from `node_modules`. A bundler (Next.js for
 * its server code, issue 49) copies an SDK into the app's own files, where no module hook sees it,
 * and its calls would go unrecorded without a word. This watch looks at each `fetch` request
 * (undici's `undici:request:create` diagnostics channel: a header read, nothing changed) and,
 * the first time an SDK whose package never loaded sends one, says so once, in the log and in
 * `doctor()`. Installed once per process; where the runtime has no `diagnostics_channel`, nothing.
 */
export function watchBundledSdks(): void {
  const state = autoState();
  if (state.bundledWatch) return;
  state.bundledWatch = true;
  try {
    nodeBuiltinNow<typeof import("node:diagnostics_channel")>("diagnostics_channel")?.subscribe("undici:request:create", onRequest);
  } catch {
    // No channel here: no watch.
  }
}

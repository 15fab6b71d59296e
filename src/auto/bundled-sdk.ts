import { modelCallOwned } from "../integrations/kit/model-call.js";
import { currentRuntime } from "../runtime/configure.js";
import { nodeBuiltinNow } from "../util/node-builtin.js";
import { BUNDLED_CHECK_KEY } from "./bundled-constants.js";
import type { LibraryName } from "./libraries.js";
import { autoState, isOn } from "./state.js";

/**
 * How a model SDK's HTTP request names the SDK that sent it, by headers that survive bundling and
 * minifying (the Stainless SDKs' `User-Agent` is `${constructor.name}/JS ...`, and a minifier renames
 * the class): `has` maps a header to `true` (present) or to how its value starts; `lacks` lists
 * headers that must be absent. Both Stainless SDKs send `x-stainless-lang`; only Anthropic's sends
 * `anthropic-version`. `@google/genai` sends `x-goog-api-client: google-genai-sdk/1.30.0 ...`.
 */
const SIGNATURES: readonly { library: LibraryName; pkg: string; wrap: string; has: Readonly<Record<string, true | string>>; lacks: readonly string[] }[] = [
  { library: "openai", pkg: "openai", wrap: "wrapOpenAI", has: { "x-stainless-lang": true }, lacks: ["anthropic-version"] },
  { library: "anthropic", pkg: "@anthropic-ai/sdk", wrap: "wrapAnthropic", has: { "x-stainless-lang": true, "anthropic-version": true }, lacks: [] },
  { library: "google-genai", pkg: "@google/genai", wrap: "wrapGoogleGenAI", has: { "x-goog-api-client": "google-genai-sdk/" }, lacks: [] },
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

/** The headers of undici's request (`[name, value, ...]`, or older `"name: value\r\n..."`), by lower-case name. */
function headerMap(headers: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) map.set(String(headers[i]).toLowerCase(), String(headers[i + 1]));
  } else if (typeof headers === "string") {
    for (const line of headers.split("\r\n")) {
      const colon = line.indexOf(":");
      if (colon > 0) map.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
  }
  return map;
}

function matches(sig: (typeof SIGNATURES)[number], headers: Map<string, string>): boolean {
  for (const [name, want] of Object.entries(sig.has)) {
    const value = headers.get(name);
    if (value === undefined || (want !== true && !value.startsWith(want))) return false;
  }
  return sig.lacks.every((name) => !headers.has(name));
}

function onRequest(message: unknown): void {
  try {
    const state = autoState();
    let headers: Map<string, string> | undefined;
    for (const sig of SIGNATURES) {
      if (!isOn(sig.library) || state.loaded.has(sig.library) || state.bundled.has(sig.library)) continue;
      headers ??= headerMap((message as { request?: { headers?: unknown } } | null)?.request?.headers);
      if (!matches(sig, headers)) continue;
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
  // The request that set zero-code up (on-first-import.ts) is looked at through this.
  Object.defineProperty(globalThis, Symbol.for(BUNDLED_CHECK_KEY), { value: onRequest, configurable: true, enumerable: false, writable: false });
  try {
    nodeBuiltinNow<typeof import("node:diagnostics_channel")>("diagnostics_channel")?.subscribe("undici:request:create", onRequest);
  } catch {
    // No channel here: no watch.
  }
}

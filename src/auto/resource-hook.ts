import { callingFramework } from "./frameworks.js";
import type { LibraryHook } from "./instrumentation.js";
import type { LibraryName } from "./libraries.js";
import { isOn } from "./state.js";

/** How a model SDK whose resources keep their client in `_client` (openai, @anthropic-ai/sdk) is hooked. */
export interface ResourceClientHook {
  library: LibraryName;
  packageName: string;
  versions: string[];
  /** Files of the package that are its entry under another name (`openai/index.mjs`): hooked as the entry is. */
  entryFiles?: string[];
  /** The client class's export (`OpenAI`, `Anthropic`); `default` is tried after it. */
  clientExport: string;
  /**
   * The integration's class-level instrumentation (`traceOpenAIClasses`): patches the package's
   * classes once, and traces the calls of every client `rule` accepts (asked per call, with the
   * kind of resource called: `Chat`, `Embeddings`). Idempotent.
   */
  trace: (exports: Record<string, unknown>, clientExport: string, rule: (client: object, kind: string) => object | undefined) => void;
  /** Puts the net below the wrappers under the client class (issue 42), when the package loads. */
  net?: (clientClass: unknown) => void;
}

const TRACED = Object.freeze({});

/**
 * A hook that patches the package's classes when it loads (no client object is changed) and
 * traces the calls of every client while the library is on, unless a traced framework (LangChain,
 * the Agents SDK) made the client's first call: that client is then left to the framework's span.
 * Which way a client goes is decided at its first call (the framework is read from the call stack
 * once per client).
 */
export function resourceClientHook(spec: ResourceClientHook): LibraryHook {
  const decided = new WeakMap<object, boolean>();
  const rule = (client: object, kind: string): object | undefined => {
    if (!isOn(spec.library)) return undefined;
    let traced = decided.get(client);
    if (traced === undefined) {
      traced = callingFramework(kind) === undefined;
      decided.set(client, traced);
    }
    return traced ? TRACED : undefined;
  };
  // The same module loaded under two names (by its package name and by its file) is patched
  // once: the integration leaves a class it already patched alone.
  const onLoad = (exports: Record<string, unknown>): void => {
    spec.net?.(exports[spec.clientExport] ?? exports.default);
    spec.trace(exports, spec.clientExport, rule);
  };
  return {
    library: spec.library,
    packageName: spec.packageName,
    versions: spec.versions,
    onLoad,
    ...(spec.entryFiles ? { files: spec.entryFiles.map((path) => ({ path, onLoad })) } : {}),
  };
}

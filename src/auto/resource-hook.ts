import { callingFramework } from "./frameworks.js";
import { wrapOnFirstUse } from "./first-use.js";
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
  /** The resource classes whose methods reach a model, as paths of static members from the client class. */
  resources: readonly (readonly string[])[];
  /** The methods of those resources that instrument the client on their first call. */
  methods: readonly string[];
  /** The instance-level wrapper (`wrapOpenAI`, `wrapAnthropic`): idempotent, patches the client in place. */
  wrap: (client: object) => unknown;
  /** Puts the net below the wrappers under the client class (issue 42), when the package loads. */
  net?: (clientClass: unknown) => void;
}

/**
 * A hook that instruments each client on its first call through one of its resources (the
 * resource's `_client` is handed to the instance-level wrapper), unless a traced framework
 * (LangChain, the Agents SDK) is the caller: that client is then left to the framework's span.
 */
export function resourceClientHook(spec: ResourceClientHook): LibraryHook {
  const leftAlone = new WeakSet<object>();
  /** `kind`: the resource's first name on the client class (`Chat`, `Embeddings`), for frameworks that record only some kinds. */
  const ensure = (resource: object, kind: string | undefined): void => {
    const client = (resource as { _client?: object })._client;
    if (!client || !isOn(spec.library) || leftAlone.has(client)) return;
    if (callingFramework(kind)) {
      leftAlone.add(client);
      return;
    }
    spec.wrap(client);
  };
  // The same module loaded under two names (by its package name and by its file) is patched
  // once: wrapOnFirstUse leaves a method it already wraps alone.
  const onLoad = (exports: Record<string, unknown>): void => {
    const client = (exports[spec.clientExport] ?? exports.default) as Record<string, unknown> | undefined;
    spec.net?.(client);
    for (const path of spec.resources) {
      let cls: unknown = client;
      for (const key of path) cls = (cls as Record<string, unknown> | undefined)?.[key];
      if (typeof cls === "function") wrapOnFirstUse(cls.prototype, spec.methods, (resource) => ensure(resource, path[0]));
    }
  };
  return {
    library: spec.library,
    packageName: spec.packageName,
    versions: spec.versions,
    onLoad,
    ...(spec.entryFiles ? { files: spec.entryFiles.map((path) => ({ path, onLoad })) } : {}),
  };
}

/**
 * The module loader `evaltrace/auto` registers with `module.register` where Node has no
 * synchronous hooks that import-in-the-middle runs on (Node 20): it runs on Node's module-hooks
 * thread, where every module the app imports crosses. Until a module resolves into a claimed
 * package it passes each one on and loads nothing; then it loads import-in-the-middle's hook and
 * hands it the modules of the claimed libraries' packages from there on (a module outside them is
 * resolved by Node alone: `esm-scope.ts`), with one statement put first in each wrapper module it
 * makes: the call that sets zero-code up on the app's thread (`on-first-import.ts`) before the
 * wrapper hands the module to the hooks.
 */
import { packageOfUrl } from "./claims.js";
import { esmScope, isWrapperUrl } from "./esm-scope.js";
import type { LoaderData } from "./on-first-import.js";

type Resolved = { url: string; format?: string | null };
type Loaded = { format?: string | null; source?: string | ArrayBuffer | ArrayBufferView | null };
type NextResolve = (specifier: string, context?: object) => Promise<Resolved>;
type NextLoad = (url: string, context?: object) => Promise<Loaded>;

/** import-in-the-middle's asynchronous hook module (`hook.mjs`). */
interface Hook {
  initialize(data: { include: (string | RegExp)[] }): Promise<void>;
  resolve(specifier: string, context: object, next: NextResolve): Promise<Resolved>;
  load(url: string, context: object, next: NextLoad): Promise<Loaded>;
}

let data: LoaderData | undefined;
let claimed = new Set<string>();
let inScope: (url: string, specifier: string) => boolean = () => true;
let loading: Promise<Hook> | undefined;
let hook: Hook | undefined;
let failed = false;

export async function initialize(given: LoaderData): Promise<void> {
  data = given;
  claimed = new Set(given.packages);
  if (Array.isArray(given.scope)) inScope = esmScope(given.scope);
}

export async function resolve(specifier: string, context: object, next: NextResolve): Promise<Resolved> {
  if (hook) return hooked(hook, specifier, context, next);
  const resolved = await next(specifier, context);
  if (!data || failed || !claimed.has(packageOfUrl(resolved.url) ?? "")) return resolved;
  const { include, hook: url } = data;
  loading ??= (import(url) as Promise<Hook>).then(async (loaded) => {
    await loaded.initialize({ include });
    hook = loaded;
    return loaded;
  });
  try {
    return (await loading).resolve(specifier, context, next);
  } catch {
    // import-in-the-middle could not be loaded here: the app's modules load as they are, unhooked.
    failed = true;
    return resolved;
  }
}

/** import-in-the-middle's resolve step for a module in scope (or one of its wrappers); Node's alone for any other. */
async function hooked(hook: Hook, specifier: string, context: object, next: NextResolve): Promise<Resolved> {
  if (isWrapperUrl(specifier)) return hook.resolve(specifier, context, next);
  const resolved = await next(specifier, context);
  if (!inScope(resolved.url, specifier)) return resolved;
  // Node's answer, not asked twice; import-in-the-middle keeps this step to resolve other specifiers later.
  const again: NextResolve = async (s, c) => (s === specifier && (c === undefined || c === context) ? resolved : next(s, c));
  return hook.resolve(specifier, context, again);
}

export async function load(url: string, context: object, next: NextLoad): Promise<Loaded> {
  if (!hook || !data) return next(url, context);
  const loaded = await hook.load(url, context, next);
  if (!/[?&]iitm=true(?:&|#|$)/.test(url) || loaded.source == null) return loaded;
  const source = typeof loaded.source === "string" ? loaded.source : new TextDecoder().decode(loaded.source as ArrayBuffer);
  return { ...loaded, source: data.prelude + source };
}

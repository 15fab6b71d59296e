/**
 * Node's own modules (`node:http`, `node:fs`), loaded when first needed. Where the runtime has
 * `process.getBuiltinModule` (Node >= 20.16, Bun) they are taken from there: an `import` of a
 * builtin, static or dynamic, builds its ESM facade, which reads every export, and `node:http`'s
 * lazy ones then load undici (Node 22: some 35 ms of a process's start, measured by
 * `node bench/run.mjs startup`). The specifier is built at run time, so bundlers of edge apps
 * never try to resolve it.
 */

type GetBuiltinModule = (id: string) => unknown;

/** A builtin now, from `process.getBuiltinModule`; undefined where the runtime has none. */
export function nodeBuiltinNow<T>(module: string): T | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: GetBuiltinModule } }).process;
  return proc?.getBuiltinModule?.(`node:${module}`) as T | undefined;
}

/** A builtin, from `process.getBuiltinModule` where there is one, else by `import()` (edge runtimes with Node compatibility). */
export async function nodeBuiltin<T>(module: string): Promise<T> {
  const now = nodeBuiltinNow<T>(module);
  if (now !== undefined) return now;
  return (await import(/* @vite-ignore */ /* webpackIgnore: true */ `node:${module}`)) as T;
}

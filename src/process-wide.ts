import { VERSION } from "./version.js";

/**
 * One value per process for `name`, made by `make` on first use: module-level state that every
 * copy of the package (ESM, CommonJS) must share, such as the clock anchor or per-trace budgets.
 */
export function processWide<T>(name: string, make: () => T): T {
  const key = Symbol.for(`evaltrace.${name}@${VERSION}`);
  const global = globalThis as { [key: symbol]: T | undefined };
  let value = global[key];
  if (value === undefined) {
    value = make();
    Object.defineProperty(global, key, { value, enumerable: false, configurable: true, writable: false });
  }
  return value;
}

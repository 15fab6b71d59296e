import { processWide } from "../../process-wide.js";

/**
 * Which clients of one SDK are traced, asked at each call by the SDK's resource classes (whose
 * methods are patched once, on their prototypes): a client the app wrapped (`wrapOpenAI(client)`,
 * with its options), or, under zero-code instrumentation, any client its `every` rule accepts. The
 * client object itself carries nothing: the app's objects keep exactly their own properties.
 * Shared by every copy of the package (ESM, CommonJS) in the process.
 */
export interface TracedClients<O> {
  /** Traces `client`'s calls with `options`; a client already added keeps its options unless `replace`. */
  add(client: object, options: O, replace?: boolean): void;
  /** The options `client` was wrapped with (undefined: not wrapped by the app). */
  wrapped(client: unknown): O | undefined;
  /**
   * The options a call of `client` through a resource of `kind` (`Chat`, `Messages`) is traced
   * with, or undefined: not traced. Never throws.
   */
  optionsFor(client: unknown, kind: string): O | undefined;
  /** Zero-code: every client not wrapped by the app is traced when `rule(client, kind)` gives options. */
  every(rule: (client: object, kind: string) => O | undefined): void;
}

interface Slot<O> {
  clients: WeakMap<object, O>;
  rule?: (client: object, kind: string) => O | undefined;
}

/** The traced clients of `sdk` (`openai`, `anthropic`). */
export function tracedClients<O>(sdk: string): TracedClients<O> {
  const slot = processWide<Slot<O>>(`tracedClients.${sdk}`, () => ({ clients: new WeakMap() }));
  const isObject = (v: unknown): v is object => v !== null && (typeof v === "object" || typeof v === "function");
  return {
    add(client, options, replace = false) {
      if (replace || !slot.clients.has(client)) slot.clients.set(client, options);
    },
    wrapped: (client) => (isObject(client) ? slot.clients.get(client) : undefined),
    optionsFor(client, kind) {
      try {
        if (!isObject(client)) return undefined;
        return slot.clients.get(client) ?? slot.rule?.(client, kind);
      } catch {
        return undefined;
      }
    },
    every(rule) {
      slot.rule = rule;
    },
  };
}

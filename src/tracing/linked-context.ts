import type { Context } from "@opentelemetry/api";
import { keptShapes } from "../spans/kept-shapes.js";

/** Links a lookup may walk before a context is flattened into a copy of its own. */
const MAX_LINKS = 8;

// Symbol.for: the ESM and CommonJS copies of the package link to each other's contexts, and
// must see each other's links to keep every chain short.
const LINKS = Symbol.for("evaltrace.linkedContext.links");
const FLAT = Symbol.for("evaltrace.linkedContext.flat");

/**
 * An OpenTelemetry context that is its parent plus one value, without copying the parent.
 * OpenTelemetry's own context copies its parent's map and makes three closures on every
 * `setValue`: for the context of each observed span that is most of what the span allocates.
 * Reads walk the links (at most {@link MAX_LINKS}: a longer chain starts over from a flat copy);
 * `deleteValue` is rare and answered by a flat copy.
 */
export class LinkedContext implements Context {
  private readonly parent: Context;
  readonly [LINKS]: number;
  private flat: Context | undefined;

  constructor(
    parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {
    const links = linksOf(parent);
    if (links !== undefined && links >= MAX_LINKS) {
      this.parent = flatten(parent);
      this[LINKS] = 0;
    } else {
      this.parent = parent;
      this[LINKS] = links === undefined ? 0 : links + 1;
    }
    keptShapes.context = this;
  }

  getValue(key: symbol): unknown {
    return key === this.key ? this.value : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new LinkedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return this[FLAT]().deleteValue(key);
  }

  /** The same values in a context of the parent's kind (made once). */
  [FLAT](): Context {
    this.flat ??= flatten(this.parent).setValue(this.key, this.value);
    return this.flat;
  }
}

/** How many links a linked context (of either copy of the package) stands on; undefined for any other context. */
function linksOf(ctx: Context): number | undefined {
  const links = (ctx as { [LINKS]?: unknown })[LINKS];
  return typeof links === "number" ? links : undefined;
}

/** A context with no links: a linked one flattened, any other as it is. */
function flatten(ctx: Context): Context {
  const flat = (ctx as { [FLAT]?: unknown })[FLAT];
  return typeof flat === "function" ? (flat as () => Context).call(ctx) : ctx;
}

import type { Context } from "@opentelemetry/api";

/** Links a lookup may walk before a context is flattened into a copy of its own. */
const MAX_LINKS = 8;

/**
 * An OpenTelemetry context that is its parent plus one value, without copying the parent.
 * OpenTelemetry's own context copies its parent's map and makes three closures on every
 * `setValue`: for the context of each observed span that is most of what the span allocates.
 * Reads walk the links (at most {@link MAX_LINKS}: a longer chain starts over from a flat copy);
 * `deleteValue` is rare and answered by a flat copy.
 */
export class LinkedContext implements Context {
  private readonly parent: Context;
  private readonly links: number;
  private flat: Context | undefined;

  constructor(
    parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {
    if (parent instanceof LinkedContext && parent.links >= MAX_LINKS) {
      this.parent = parent.flatten();
      this.links = 0;
    } else {
      this.parent = parent;
      this.links = parent instanceof LinkedContext ? parent.links + 1 : 0;
    }
  }

  getValue(key: symbol): unknown {
    return key === this.key ? this.value : this.parent.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new LinkedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return this.flatten().deleteValue(key);
  }

  /** The same values in a context of the parent's kind (made once). */
  private flatten(): Context {
    if (this.flat === undefined) {
      const parent = this.parent instanceof LinkedContext ? this.parent.flatten() : this.parent;
      this.flat = parent.setValue(this.key, this.value);
    }
    return this.flat;
  }
}

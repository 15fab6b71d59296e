import type { SpoolInspector } from "./types.js";

/**
 * The inspector `doctor()` uses when it is given none: the disk spool's own `inspectSpool`, once
 * the spool ships in this package; until then none, and a configured spool is reported as not
 * inspectable.
 */
export const defaultSpoolInspector: SpoolInspector | undefined = undefined;

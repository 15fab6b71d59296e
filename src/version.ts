/**
 * This package's version. Copies of evaltrace loaded in one process (ESM and CommonJS, or
 * several bundles) share one runtime only when their versions are equal.
 */
export const VERSION = "0.2.0";

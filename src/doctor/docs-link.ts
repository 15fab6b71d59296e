/**
 * Where the doctor's fixes point: the docs pages in the repository (the published package
 * carries the README, not `docs/`).
 */
export const REPOSITORY_DOCS = "https://github.com/evaltrace/evaltrace/blob/main/docs/";

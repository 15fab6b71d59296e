/**
 * The source rewrite that hands an ES module's namespace to zero-code's hooks without a wrapper
 * module (and so without import-in-the-middle's export lexers): the load hook appends to a
 * claimed module a self-import and one call,
 *
 *     import * as __evaltrace_ns from "<its own URL>";
 *     globalThis[Symbol.for("evaltrace.esm")]?.(import.meta.url, __evaltrace_ns, { ... });
 *
 * which runs when the module's body has run, before any importer sees it. An ES module's exports
 * cannot be replaced from outside, so for the few hooks that replace an export (`replaces`: the AI
 * SDK's `generateText`, ...) the module's final `export { a as b }` clause (what bundlers write)
 * is rewritten to export a binding of ours for each of them (`export { __evaltrace_x_b as b }`;
 * a name exported where it is declared, `export function b`, is declared without `export`),
 * set after the call to what the hook put in its place, or the original: the module's own code
 * keeps calling its own functions, as with import-in-the-middle, whose wrapper replaced the
 * export for importers only. A name not found in such a clause is not replaceable here: the
 * hook's assignment then fails, as on a frozen object, and the module is left as it is.
 */

/** The global the appended call reaches (`esm-targets.ts` sets it). */
export const HANDOFF_KEY = "evaltrace.esm";

const PREFIX = "__evaltrace_x_";
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The last `export { ... }` clause (no `from`: a re-export has no local binding) and where it is. */
function finalExportClause(source: string): { start: number; end: number; body: string } | undefined {
  const clause = /export\s*\{([^{}]*)\}(?!\s*from\b)/g;
  let last: RegExpExecArray | null = null;
  for (let m = clause.exec(source); m; m = clause.exec(source)) last = m;
  if (!last) return undefined;
  return { start: last.index, end: last.index + last[0].length, body: last[1] ?? "" };
}

/** The module's source with the namespace hand-off appended (and the `replaces` exports made replaceable where its final export clause names them). */
export function withNamespaceHandoff(source: string, url: string, replaces: readonly string[]): string {
  let body = source;
  const replaceable: [local: string, exported: string][] = [];
  if (replaces.length > 0) {
    const clause = finalExportClause(source);
    if (clause) {
      let changed = false;
      const entries = clause.body.split(",").map((entry) => {
        const parts = entry.trim().split(/\s+as\s+/);
        const local = parts[0] ?? "";
        const exported = parts[1] ?? local;
        if (parts.length > 2 || !IDENTIFIER.test(local) || !IDENTIFIER.test(exported) || !replaces.includes(exported)) return entry;
        changed = true;
        replaceable.push([local, exported]);
        return entry.replace(entry.trim(), `${PREFIX}${exported} as ${exported}`);
      });
      if (changed) body = `${source.slice(0, clause.start)}export {${entries.join(",")}}${source.slice(clause.end)}`;
    }
  }
  // A name exported where it is declared (`export async function generateText`): declared
  // without `export` and exported below, as the clause's names are.
  let exportsBelow = "";
  for (const name of replaces) {
    if (!IDENTIFIER.test(name) || replaceable.some(([, exported]) => exported === name)) continue;
    const declared = new RegExp(`\\bexport\\s+((?:async\\s+)?function\\s*\\*?|class|const|let|var)\\s+(${name.replace(/\$/g, "\\$")})(?![\\w$])`, "g");
    const found = [...body.matchAll(declared)];
    if (found.length !== 1 || found[0]?.index === undefined) continue;
    const at = found[0].index;
    body = `${body.slice(0, at)}${body.slice(at).replace(/^export\s+/, "")}`;
    replaceable.push([name, name]);
    exportsBelow += `export { ${PREFIX}${name} as ${name} };\n`;
  }
  const originals = replaceable.map(([local, exported]) => `${exported}: ${local}`).join(", ");
  const set = replaceable.map(([local, exported]) => `var ${PREFIX}${exported} = __evaltrace_r && Object.hasOwn(__evaltrace_r, "${exported}") ? __evaltrace_r.${exported} : ${local};\n`).join("");
  return (
    `${body}\n;import * as __evaltrace_ns from ${JSON.stringify(url)};\n` +
    `var __evaltrace_r = globalThis[Symbol.for(${JSON.stringify(HANDOFF_KEY)})]?.(import.meta.url, __evaltrace_ns, {${originals}});\n` +
    set +
    exportsBelow
  );
}

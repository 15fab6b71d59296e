/**
 * The public surface of the built packages (`evaltrace` and the dev kit `@evaltrace/dev`), checked
 * against test/build/public-api.json, so that nothing public moves, appears or disappears by
 * accident (in a refactor of src/, say).
 *
 * For every subpath of each package.json "exports" (but ./package.json), as the exports map
 * resolves it, by its import specifier (`evaltrace/openai`, `@evaltrace/dev/fakes`):
 * - runtime: the names the ESM entry exports (`import()`) and the CommonJS one (`require()`), each
 *   with its `typeof`; each loaded in a child process of its own;
 * - types: every name the "types" file exports (.d.ts for import, .d.cts for require), with its
 *   kind and its declared type as the TypeScript checker prints it: a function's signatures, a
 *   const's type, a type alias's aliased type, an interface's or a class's members (inherited ones
 *   included, private ones not). Names, never files: tsup splits declarations into chunks
 *   (types-<hash>.d.ts, ...) that may be cut differently tomorrow, and the snapshot names none.
 *
 * Commands (from the repo root):
 *   npx vitest run test/build/public-api.test.ts
 *       checks packages/evaltrace/dist and packages/dev/dist (build them first: npm test does) against test/build/public-api.json;
 *   PUBLIC_API_DIST=.builds/base npx vitest run test/build/public-api.test.ts
 *       checks another build of `evaltrace` with its dist/'s layout instead (a path relative to the
 *       repo root, or absolute);
 *   PUBLIC_API_PACKAGE_JSON=/tmp/base-package.json PUBLIC_API_DIST=.builds/base npx vitest run ...
 *       takes `evaltrace`'s exports map from another package.json (default:
 *       packages/evaltrace/package.json), for a build of another commit;
 *   UPDATE_PUBLIC_API=1 npx vitest run test/build/public-api.test.ts
 *       rewrites test/build/public-api.json from the build instead of comparing: for a change of
 *       the public API that is meant; review the diff of the JSON before committing it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { type Format, packageRoot, runChild } from "../helpers/child.js";

const snapshotFile = join(packageRoot, "test", "build", "public-api.json");
const fromRoot = (path: string) => resolve(isAbsolute(path) ? path : join(packageRoot, path));
/** The packages checked: each one's manifest and build. */
const builds = [
  { packageJson: fromRoot(process.env.PUBLIC_API_PACKAGE_JSON ?? "packages/evaltrace/package.json"), dist: fromRoot(process.env.PUBLIC_API_DIST ?? "packages/evaltrace/dist") },
  { packageJson: fromRoot("packages/dev/package.json"), dist: fromRoot("packages/dev/dist") },
];
const update = process.env.UPDATE_PUBLIC_API === "1";
/** How a path reads in a test title: from the repo root when it is inside it. */
const shown = (path: string) => (path.startsWith(packageRoot) ? relative(packageRoot, path) : path);

// --- the entries, from package.json "exports" --------------------------------------------------

interface Conditions {
  types: string;
  default: string;
}
/** One subpath's files, as paths inside `dist` (the exports map's ./dist/... paths, re-rooted). */
interface Entry {
  esm: string;
  cjs: string;
  esmTypes: string;
  cjsTypes: string;
}

/** Every entry of every package, by import specifier. */
function entries(): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const build of builds) for (const [specifier, entry] of packageEntries(build.packageJson, build.dist)) out.set(specifier, entry);
  return out;
}

function packageEntries(packageJson: string, dist: string): Map<string, Entry> {
  const pkg = JSON.parse(readFileSync(packageJson, "utf8")) as { name: string; exports: Record<string, unknown> };
  const inDist = (subpath: string, path: string | undefined): string => {
    if (typeof path !== "string" || !path.startsWith("./dist/")) throw new Error(`${packageJson}: exports["${subpath}"]: expected a ./dist/... path, got ${JSON.stringify(path)}`);
    return join(dist, path.slice("./dist/".length));
  };
  const out = new Map<string, Entry>();
  for (const subpath of Object.keys(pkg.exports).sort()) {
    if (subpath === "./package.json") continue;
    const target = pkg.exports[subpath] as { import?: Partial<Conditions>; require?: Partial<Conditions> };
    out.set(subpath === "." ? pkg.name : `${pkg.name}${subpath.slice(1)}`, {
      esm: inDist(subpath, target.import?.default),
      cjs: inDist(subpath, target.require?.default),
      esmTypes: inDist(subpath, target.import?.types),
      cjsTypes: inDist(subpath, target.require?.types),
    });
  }
  return out;
}

// --- runtime: export names and typeof, from a child process per entry and format ---------------

/** Export name -> typeof its value, sorted by name. */
type Runtime = Record<string, string>;

async function runtimeExports(format: Format, file: string): Promise<Runtime> {
  const load = format === "esm" ? `const m = await import(${JSON.stringify(pathToFileURL(file).href)});` : `const m = require(${JSON.stringify(file)});`;
  const child = runChild(format, `${load}\nconsole.log("PUBLIC_API " + JSON.stringify(Object.keys(m).map((k) => [k, typeof m[k]])));`);
  const { code, stdout, stderr } = await child.finished;
  const line = stdout.split("\n").find((l) => l.startsWith("PUBLIC_API "));
  if (code !== 0 || !line) throw new Error(`loading ${file} (${format}) failed (exit ${code}): ${stderr}`);
  return sorted(Object.fromEntries(JSON.parse(line.slice("PUBLIC_API ".length)) as [string, string][]));
}

// --- types: exported names, kinds and declared types, from the TypeScript checker ---------------

/** One exported name of a declaration file. Fields that do not apply to its kind are absent. */
interface Declared {
  /** class, interface, type, enum, namespace, function, const, let or var; merged ones joined with " + ". */
  kind: string;
  /** Of a generic class, interface or type alias: `<T extends X = Y>`. */
  typeParameters?: string;
  /** Of a type alias: the aliased type. */
  type?: string;
  /** Of a const, let or var: its type. */
  value?: string;
  /** Of a function: its call signatures, overloads in declaration order. */
  signatures?: string[];
  /** Of a class or interface: the base types declared outside the build (lib, dependencies), whose members are not listed. */
  extends?: string[];
  /** Of an interface or a class's instances: call, construct and index signatures, then members by name. For an enum: its members; for a namespace: its exported names. */
  members?: string[];
  /** Of a class: its construct signatures, then static members by name. */
  static?: string[];
}

type Types = Record<string, Declared>;

/** What one declaration file exports, and the types those refer to that it does not export. */
interface DeclaredModule {
  /** Every exported name. */
  types: Types;
  /**
   * The types declared in the build that exported declarations refer to (directly or through
   * another such type) but that the entry does not export: a user meets them in a signature
   * without being able to name them, so a change in one is a change of the API. By declared name
   * (`Name`, then `Name (2)`, ... when names clash).
   */
  referenced: Types;
}

const format = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType;

/**
 * Text that names no file: a type that cannot be named from where it is printed may come out as
 * import("./types-<hash>.js").Name, and a bundler may rename a clashing declaration to Name$1.
 */
function normalize(text: string): string {
  return text.replace(/import\("[^"]*"\)\./g, "").replace(/\b([A-Za-z_][\w]*)\$\d+\b/g, "$1");
}

/** For each declaration file given: its exported names and the unexported types they refer to, sorted. Every module they import must resolve (or its types would turn into any). */
function declaredTypes(files: string[]): Map<string, DeclaredModule> {
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], types: ["node"], strict: true, noEmit: true, skipLibCheck: true },
    packageRoot,
  );
  if (errors.length > 0) throw new Error(ts.formatDiagnostics(errors, ts.createCompilerHost(options)));
  const program = ts.createProgram({ rootNames: files, options });
  const checker = program.getTypeChecker();
  const inBuild = (sf: ts.SourceFile) => builds.some((b) => resolve(sf.fileName).startsWith(b.dist + sep));
  const declaredInBuild = (symbol: ts.Symbol | undefined) => (symbol?.declarations ?? []).some((d) => inBuild(d.getSourceFile()));

  const unresolved: string[] = [];
  for (const sf of program.getSourceFiles()) {
    if (!inBuild(sf)) continue;
    for (const statement of sf.statements) {
      if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && !checker.getSymbolAtLocation(statement.moduleSpecifier)) {
        unresolved.push(`${sf.fileName}: ${statement.moduleSpecifier.getText(sf)}`);
      }
    }
  }
  if (unresolved.length > 0) throw new Error(`modules the declarations import do not resolve:\n${unresolved.join("\n")}`);

  const typeText = (type: ts.Type, flags = 0) => normalize(checker.typeToString(type, undefined, format | flags));
  const signatureText = (sig: ts.Signature, kind?: ts.SignatureKind) => normalize(checker.signatureToString(sig, undefined, format, kind));

  const typeParameters = (decls: readonly ts.TypeParameterDeclaration[] | undefined) => {
    if (!decls || decls.length === 0) return undefined;
    const params = decls.map((d) => {
      const param = checker.getTypeAtLocation(d);
      const constraint = param.getConstraint();
      const fallback = param.getDefault();
      return `${d.name.text}${constraint ? ` extends ${typeText(constraint)}` : ""}${fallback ? ` = ${typeText(fallback)}` : ""}`;
    });
    return `<${params.join(", ")}>`;
  };

  /** A member's name as written: a computed one (`[Symbol.iterator]`) from its declaration; undefined for a #private one. */
  const memberName = (prop: ts.Symbol): string | undefined => {
    const decl = prop.valueDeclaration ?? prop.declarations?.[0];
    const name = decl && (decl as ts.NamedDeclaration).name;
    if (name && ts.isPrivateIdentifier(name)) return undefined;
    if (name && ts.isComputedPropertyName(name)) return name.getText();
    const text = prop.getName();
    return /^[A-Za-z_$][\w$]*$/.test(text) ? text : JSON.stringify(text);
  };

  /** The signatures and members of an object type, but those declared outside the build and those in `skip`. */
  const memberLines = (type: ts.Type, skip: string[] = []): string[] => {
    // [what it sorts by, the line]: signatures first, then members by name (modifiers aside).
    const lines: [string, string][] = [];
    for (const sig of checker.getSignaturesOfType(type, ts.SignatureKind.Call)) lines.push(["", signatureText(sig)]);
    for (const sig of checker.getSignaturesOfType(type, ts.SignatureKind.Construct)) lines.push(["", signatureText(sig, ts.SignatureKind.Construct)]);
    for (const info of checker.getIndexInfosOfType(type)) {
      const key = info.declaration?.parameters[0]?.name.getText() ?? "key";
      lines.push(["", `${info.isReadonly ? "readonly " : ""}[${key}: ${typeText(info.keyType)}]: ${typeText(info.type)}`]);
    }
    for (const prop of checker.getPropertiesOfType(type)) {
      if (skip.includes(prop.getName()) || !declaredInBuild(prop)) continue;
      const name = memberName(prop);
      const decl = prop.valueDeclaration ?? prop.declarations?.[0];
      const modifiers = decl ? ts.getCombinedModifierFlags(decl) : ts.ModifierFlags.None;
      if (name === undefined || modifiers & ts.ModifierFlags.Private) continue;
      const optional = prop.flags & ts.SymbolFlags.Optional ? "?" : "";
      const prefix = `${modifiers & ts.ModifierFlags.Protected ? "protected " : ""}${modifiers & ts.ModifierFlags.Abstract ? "abstract " : ""}`;
      const propType = checker.getTypeOfSymbol(prop);
      if (prop.flags & ts.SymbolFlags.Method) {
        for (const sig of checker.getSignaturesOfType(checker.getNonNullableType(propType), ts.SignatureKind.Call)) lines.push([name, `${prefix}${name}${optional}${signatureText(sig)}`]);
        continue;
      }
      const getterOnly = prop.flags & ts.SymbolFlags.GetAccessor && !(prop.flags & ts.SymbolFlags.SetAccessor);
      const readonly = getterOnly || modifiers & ts.ModifierFlags.Readonly ? "readonly " : "";
      lines.push([name, `${prefix}${readonly}${name}${optional}: ${typeText(propType)}`]);
    }
    return lines.sort(([a, x], [b, y]) => byCodeUnits(a, b) || byCodeUnits(x, y)).map(([, line]) => line);
  };

  /** The bases of a class or interface that are declared outside the build, through those declared in it. */
  const externalBases = (type: ts.Type, out: Set<string>): Set<string> => {
    const target = (type as ts.TypeReference).target ?? type;
    if (!(target.flags & ts.TypeFlags.Object) || !((target as ts.ObjectType).objectFlags & ts.ObjectFlags.ClassOrInterface)) return out;
    for (const base of checker.getBaseTypes(target as ts.InterfaceType)) {
      if (declaredInBuild(base.getSymbol())) externalBases(base, out);
      else out.add(typeText(base));
    }
    return out;
  };

  const describeSymbol = (symbol: ts.Symbol): Declared => {
    const f = symbol.flags;
    const decls = symbol.declarations ?? [];
    const kinds: string[] = [];
    const d: Omit<Declared, "kind"> = {};
    if (f & ts.SymbolFlags.Class) kinds.push("class");
    if (f & ts.SymbolFlags.Interface) kinds.push("interface");
    if (f & ts.SymbolFlags.TypeAlias) kinds.push("type");
    if (f & ts.SymbolFlags.Enum) kinds.push("enum");
    if (f & ts.SymbolFlags.Module) kinds.push("namespace");
    if (f & ts.SymbolFlags.Function) kinds.push("function");
    if (f & ts.SymbolFlags.Variable) {
      const list = decls.find(ts.isVariableDeclaration)?.parent;
      kinds.push(list && ts.isVariableDeclarationList(list) ? (list.flags & ts.NodeFlags.Const ? "const" : list.flags & ts.NodeFlags.Let ? "let" : "var") : "var");
    }
    if (f & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) {
      const declared = checker.getDeclaredTypeOfSymbol(symbol);
      const withParams = decls.find((n) => ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n)) as ts.ClassDeclaration | ts.InterfaceDeclaration | undefined;
      d.typeParameters = typeParameters(withParams?.typeParameters);
      const bases = [...externalBases(declared, new Set())].sort(byCodeUnits);
      if (bases.length > 0) d.extends = bases;
      d.members = memberLines(declared);
      if (f & ts.SymbolFlags.Class) {
        const statics = checker.getTypeOfSymbol(symbol);
        const abstract = decls.some((n) => ts.getCombinedModifierFlags(n) & ts.ModifierFlags.Abstract) ? "abstract " : "";
        const ctors = checker.getSignaturesOfType(statics, ts.SignatureKind.Construct).map((sig) => `${abstract}${signatureText(sig, ts.SignatureKind.Construct)}`);
        d.static = [...ctors, ...memberLines(statics, ["prototype"]).filter((l) => !l.startsWith("new "))];
      }
    }
    if (f & ts.SymbolFlags.TypeAlias) {
      const alias = decls.find(ts.isTypeAliasDeclaration);
      d.typeParameters ??= typeParameters(alias?.typeParameters);
      d.type = typeText(checker.getDeclaredTypeOfSymbol(symbol), ts.TypeFormatFlags.InTypeAlias);
    }
    if (f & ts.SymbolFlags.Enum) {
      d.members = checker
        .getExportsOfModule(symbol)
        .map((m) => `${m.getName()} = ${JSON.stringify(m.valueDeclaration && ts.isEnumMember(m.valueDeclaration) ? checker.getConstantValue(m.valueDeclaration) : undefined) ?? "?"}`)
        .sort(byCodeUnits);
    }
    if (f & ts.SymbolFlags.Module && !(f & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface | ts.SymbolFlags.Enum))) {
      d.members = checker
        .getExportsOfModule(symbol)
        .map((m) => m.getName())
        .sort(byCodeUnits);
    }
    if (f & ts.SymbolFlags.Function) d.signatures = checker.getSignaturesOfType(checker.getTypeOfSymbol(symbol), ts.SignatureKind.Call).map((sig) => signatureText(sig));
    if (f & ts.SymbolFlags.Variable) d.value = typeText(checker.getTypeOfSymbol(symbol));
    if (d.typeParameters === undefined) delete d.typeParameters;
    return { kind: kinds.join(" + ") || `unknown (symbol flags ${f})`, ...d };
  };

  const resolveAlias = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

  /**
   * The symbols declared in the build that the declarations of `symbol` name in a type position or
   * in `typeof`; `base` tells a class's or interface's base (`extends X`, `implements X`), whose
   * members are listed with the type's own (so that the base itself is no part of the API).
   */
  const namedIn = (symbol: ts.Symbol): { target: ts.Symbol; base: boolean }[] => {
    const found: { target: ts.Symbol; base: boolean }[] = [];
    const visit = (node: ts.Node) => {
      const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : ts.isTypeQueryNode(node) ? node.exprName : undefined;
      const named = name && checker.getSymbolAtLocation(name);
      if (named) {
        const target = resolveAlias(named);
        if (!(target.flags & ts.SymbolFlags.TypeParameter) && declaredInBuild(target)) found.push({ target, base: ts.isHeritageClause(node.parent) });
      }
      ts.forEachChild(node, visit);
    };
    for (const decl of symbol.declarations ?? []) if (inBuild(decl.getSourceFile())) visit(decl);
    return found;
  };

  const out = new Map<string, DeclaredModule>();
  for (const file of files) {
    const sf = program.getSourceFile(file);
    const moduleSymbol = sf && checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) throw new Error(`${file}: not a module the TypeScript compiler can read`);
    const types: Types = {};
    const exported = new Set<ts.Symbol>();
    for (const symbol of [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => byCodeUnits(a.getName(), b.getName()))) {
      const target = resolveAlias(symbol);
      exported.add(target);
      types[symbol.getName()] = describeSymbol(target);
    }
    // From the exported symbols through every declaration they name, bases included (their
    // members can name types too); the set, and so the snapshot, does not depend on the order.
    const walked = new Set<ts.Symbol>(exported);
    const unexported = new Set<ts.Symbol>();
    for (const queue = [...exported]; queue.length > 0; ) {
      for (const { target, base } of namedIn(queue.pop()!)) {
        if (!base && !exported.has(target)) unexported.add(target);
        if (!walked.has(target)) {
          walked.add(target);
          queue.push(target);
        }
      }
    }
    const described = [...unexported]
      .map((symbol) => [symbol.getName(), describeSymbol(symbol)] as const)
      .sort(([a, x], [b, y]) => byCodeUnits(a, b) || byCodeUnits(JSON.stringify(x), JSON.stringify(y)));
    const referenced: Types = {};
    for (const [name, d] of described) {
      let key = name;
      for (let n = 2; key in referenced; n++) key = `${name} (${n})`;
      referenced[key] = d;
    }
    out.set(file, { types, referenced });
  }
  return out;
}

// --- the snapshot ------------------------------------------------------------------------------

interface Surface extends DeclaredModule {
  runtime: Runtime;
}
type Snapshot = Record<string, Surface>;

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => byCodeUnits(a, b)));
}

/** How one name changed: per field, the lines that went (-) and came (+), or the old and the new value. */
function changes(was: unknown, now: unknown): string[] {
  const show = (v: unknown) => JSON.stringify(v);
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isRecord(was) || !isRecord(now)) return [`was ${show(was)}, now ${show(now)}`];
  const out: string[] = [];
  for (const field of [...new Set([...Object.keys(was), ...Object.keys(now)])]) {
    const a = was[field];
    const b = now[field];
    if (show(a) === show(b)) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      const gone = a.filter((x) => !b.includes(x));
      const come = b.filter((x) => !a.includes(x));
      out.push(...gone.map((x) => `${field}: - ${x}`), ...come.map((x) => `${field}: + ${x}`));
      // The same lines in another order (overloads, say).
      if (gone.length + come.length === 0) out.push(`${field}: was ${show(a)}, now ${show(b)}`);
    } else out.push(`${field}: was ${show(a)}, now ${show(b)}`);
  }
  return out;
}

/** Per subpath and part: the names added, removed and changed (with how). Empty when equal. */
function differences(was: Snapshot, now: Snapshot): string {
  const lines: string[] = [];
  const show = (v: unknown) => JSON.stringify(v);
  for (const subpath of [...new Set([...Object.keys(was), ...Object.keys(now)])].sort(byCodeUnits)) {
    if (!(subpath in now)) {
      lines.push(`${subpath}: subpath removed`);
      continue;
    }
    if (!(subpath in was)) lines.push(`${subpath}: subpath added`);
    for (const part of ["runtime", "types", "referenced"] as const) {
      const a: Record<string, unknown> = was[subpath]?.[part] ?? {};
      const b: Record<string, unknown> = now[subpath]?.[part] ?? {};
      const added = Object.keys(b).filter((k) => !(k in a));
      const removed = Object.keys(a).filter((k) => !(k in b));
      const changed = Object.keys(b).filter((k) => k in a && show(a[k]) !== show(b[k]));
      if (added.length + removed.length + changed.length === 0) continue;
      lines.push(`${subpath} ${part}:`);
      if (added.length > 0) lines.push(`  added: ${added.join(", ")}`);
      if (removed.length > 0) lines.push(`  removed: ${removed.join(", ")}`);
      if (changed.length > 0) lines.push(`  changed: ${changed.join(", ")}`);
      for (const k of changed) lines.push(`    ${k}`, ...changes(a[k], b[k]).map((l) => `      ${l}`));
    }
  }
  return lines.join("\n");
}

// --- the tests ---------------------------------------------------------------------------------

describe(`the public API of the builds in ${builds.map((b) => shown(b.dist)).join(", ")} (PUBLIC_API_DIST for another build of evaltrace)`, () => {
  const esm: Record<string, Runtime> = {};
  const cjs: Record<string, Runtime> = {};
  const dts: Record<string, DeclaredModule> = {};
  const dcts: Record<string, DeclaredModule> = {};

  /** The files the exports map names that the build does not have. */
  const missing: string[] = [];

  beforeAll(async () => {
    for (const b of builds) if (!existsSync(b.dist)) throw new Error(`${b.dist} does not exist: build the packages first (npm run build), or point PUBLIC_API_DIST at a build`);
    // A subpath with a file missing is left out of what follows (the first test names the file).
    const all = new Map(
      [...entries()].filter(([, e]) => {
        const absent = Object.values(e).filter((file) => !existsSync(file));
        missing.push(...absent);
        return absent.length === 0;
      }),
    );
    await Promise.all(
      [...all].map(async ([subpath, e]) => {
        [esm[subpath], cjs[subpath]] = await Promise.all([runtimeExports("esm", e.esm), runtimeExports("cjs", e.cjs)]);
      }),
    );
    const types = declaredTypes([...all.values()].flatMap((e) => [e.esmTypes, e.cjsTypes]));
    for (const [subpath, e] of all) {
      dts[subpath] = types.get(e.esmTypes)!;
      dcts[subpath] = types.get(e.cjsTypes)!;
    }
  }, 120_000);

  it(`every file the exports maps of ${builds.map((b) => shown(b.packageJson)).join(", ")} name (import and require, code and types) is in the build`, () => {
    expect(missing).toEqual([]);
  });

  it("import() and require() of each entry give the same export names, each with the same typeof", () => {
    expect(cjs).toEqual(esm);
  });

  it("each entry's .d.ts and .d.cts export the same names, with the same kinds and declared types", () => {
    expect(dcts).toEqual(dts);
  });

  it(`the runtime exports and the declared types of each entry (import side) equal test/build/public-api.json${update ? " (UPDATE_PUBLIC_API=1: rewritten from this build instead)" : ""}`, () => {
    const now: Snapshot = Object.fromEntries(Object.keys(esm).sort(byCodeUnits).map((subpath) => [subpath, { runtime: esm[subpath]!, types: dts[subpath]!.types, referenced: dts[subpath]!.referenced }]));
    if (update) {
      // Not from a build that lacks an entry: that entry would go from the snapshot unseen.
      if (missing.length > 0) expect.fail(`not rewriting test/build/public-api.json: the build lacks ${missing.join(", ")}`);
      writeFileSync(snapshotFile, `${JSON.stringify(now, null, 2)}\n`);
      return;
    }
    if (!existsSync(snapshotFile)) expect.fail(`${snapshotFile} is missing: write it with UPDATE_PUBLIC_API=1`);
    const was = JSON.parse(readFileSync(snapshotFile, "utf8")) as Snapshot;
    const report = differences(was, now);
    if (report) expect.fail(`the public API differs from test/build/public-api.json (if that is meant, rewrite it with UPDATE_PUBLIC_API=1):\n${report}`);
  });
});

// The layering of src/, enforced by `npm run lint` (docs/architecture.md explains it).
//
// FLOORS lists the SDK's rooms bottom to top: a file may import its own floor and the floors
// below it, never one above. Rooms on one floor do not import each other unless SIDEWAYS says
// so. The emulator (devserver/) and the fake model servers (fakes/) stand apart: the SDK never
// imports them, the emulator reads only the ground, and the fakes import nothing of ours.
// Import cycles between files are forbidden too, type-only imports included.

/** Each floor: a name and the paths (regular expressions, from the repo root) of its rooms. */
const FLOORS = [
  ["ground", ["^src/(clock|logger|version|process-wide)\\.ts$", "^src/util/", "^src/protocol/"]],
  ["spans", ["^src/spans/"]],
  ["conventions, options, transport", ["^src/semconv/", "^src/config/", "^src/http/"]],
  ["traces", ["^src/traces/"]],
  ["encode", ["^src/encode/"]],
  ["export", ["^src/export/"]],
  ["runtime", ["^src/runtime/"]],
  ["tracing (the front door)", ["^src/tracing/"]],
  ["bridge", ["^src/bridge/"]],
  ["prompts", ["^src/prompts/"]],
  ["public edges", ["^src/lifecycle/", "^src/client/", "^src/evaluate\\.ts$", "^src/testing/"]],
  ["experiments", ["^src/experiments/"]],
  ["integrations", ["^src/integrations/"]],
  ["zero-code", ["^src/auto/"]],
  ["diagnosis", ["^src/doctor/"]],
  ["program", ["^src/cli/"]],
  ["entry", ["^src/index\\.ts$"]],
];

/** Rooms on one floor that may import another room of that floor: [from, to]. */
const SIDEWAYS = [
  // The public flush() names the client's retry waits in its result.
  ["^src/evaluate\\.ts$", "^src/lifecycle/"],
];

/**
 * Rooms that stand apart from the floors: who may import them. They are the dev kit
 * (`@evaltrace/dev`, built from its own entries in tsup.config.ts): no file of the `evaltrace`
 * package imports them, so none of their code reaches its build.
 */
const APART = [
  { name: "devserver", path: "^src/devserver/", mayImport: ["^src/devserver/", "^src/(clock|logger|version)\\.ts$", "^src/util/", "^src/protocol/"], importedBy: ["^src/cli/dev\\.ts$"] },
  { name: "fakes", path: "^src/fakes/", mayImport: ["^src/fakes/"], importedBy: [] },
  // The `dev` command: the dev kit's `./cli` entry; `evaltrace dev` loads it by package name.
  { name: "dev-command", path: "^src/cli/dev\\.ts$", mayImport: ["^src/devserver/index\\.ts$", "^src/cli/(args|exit-codes|dev-usage)\\.ts$", "^src/config/env-vars\\.ts$"], importedBy: [] },
];

/**
 * Modules only their own room may import: a room's private state. The trace record (its ~30
 * mutable fields and phase) belongs to `traces/`: every other room reads a `TraceView` and moves
 * a trace on through the room's intents (docs/architecture.md).
 */
const PRIVATE = [{ name: "trace-record", path: "^src/traces/trace-record\\.ts$", room: "^src/traces/" }];

const any = (paths) => `(${paths.join("|")})`;

const upward = FLOORS.map(([name, paths], i) => {
  const above = FLOORS.slice(i + 1).flatMap(([, p]) => p);
  return above.length === 0
    ? undefined
    : { name: `no-upward-from-${name.replace(/\W+/g, "-")}`, comment: `${name} may not import a floor above it`, severity: "error", from: { path: any(paths) }, to: { path: any(above) } };
}).filter(Boolean);

const sideways = FLOORS.flatMap(([name, paths]) =>
  paths.length < 2
    ? []
    : paths.map((from) => ({
        name: `no-sideways-on-${name.replace(/\W+/g, "-")}`,
        comment: `rooms of the ${name} floor import each other only as SIDEWAYS allows`,
        severity: "error",
        from: { path: from },
        to: {
          path: any(paths.filter((p) => p !== from && !SIDEWAYS.some(([f, t]) => f === from && t === p))),
          // The ground's rooms (utilities, the protocol, the clock) are one floor of leaves.
          ...(name === "ground" ? { pathNot: "^src/(clock|logger|version|process-wide)\\.ts$" } : {}),
        },
      })),
);

const apart = APART.flatMap(({ name, path, mayImport, importedBy }) => [
  { name: `${name}-imports-only-its-own`, comment: `${name}/ imports only ${mayImport.join(", ")}`, severity: "error", from: { path }, to: { path: "^src/", pathNot: any(mayImport) } },
  { name: `${name}-stands-apart`, comment: importedBy.length ? `only ${importedBy.join(", ")} import ${name}` : `nothing imports ${name} (an entry of the dev kit)`, severity: "error", from: { path: "^src/", pathNot: any([path, ...importedBy]) }, to: { path } },
]);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: "no-circular", comment: "no import cycle between files (type-only imports count)", severity: "error", from: {}, to: { circular: true } },
    ...upward,
    ...sideways,
    ...apart,
    ...PRIVATE.map(({ name, path, room }) => ({
      name: `${name}-stays-in-its-room`,
      comment: `only ${room} imports ${path}: others read its views and call its intents`,
      severity: "error",
      from: { pathNot: room },
      to: { path },
    })),
  ],
  options: {
    includeOnly: "^src/",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};

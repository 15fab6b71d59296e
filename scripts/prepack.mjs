// `npm pack` / `npm publish` of a package in packages/ runs this first (its "prepack" script,
// from the package's folder): the repository's LICENSE into the package, and for `evaltrace` the
// repository's README, whose links to docs/ and bench/ become links to the repository (npm
// would read them as paths inside the package, where docs/ is not).
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const REPOSITORY = "https://github.com/evaltrace/evaltrace/blob/main/";
const root = new URL("..", import.meta.url).pathname;
const here = process.cwd();
const { name } = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));

copyFileSync(join(root, "LICENSE"), join(here, "LICENSE"));
if (name === "evaltrace") {
  const readme = readFileSync(join(root, "README.md"), "utf8").replace(/\]\(((?:docs|bench|examples)\/[^)]*)\)/g, `](${REPOSITORY}$1)`);
  writeFileSync(join(here, "README.md"), readme);
} else if (!existsSync(join(here, "README.md"))) {
  throw new Error(`${name}: no README.md in ${here}`);
}

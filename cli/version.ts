/** The toolchain's own version (for `--version` and SARIF; never written into the lock). */
import * as fs from "node:fs";
import { packagePath } from "../common/package-root.js";

/** `version` of this package's package.json. */
export function toolVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  return manifest.version;
}

/** `engines.node` of this package's package.json (the Node.js versions it supports, e.g. `>=20.19`); `undefined` when it names none. */
export function supportedNode(): string | undefined {
  const manifest = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { engines?: { node?: unknown } };
  return typeof manifest.engines?.node === "string" ? manifest.engines.node : undefined;
}

/**
 * Why this Node.js cannot run the toolchain, or `undefined` when it can (or when `engines.node`
 * names no range this function understands). The rule is the package's own `engines.node`
 * ({@link supportedNode}), read here only: ranges of `>=MAJOR[.MINOR[.PATCH]]` joined by `||`,
 * which `test/cli/node-version.test.ts` checks the package's range is. The package's bin asks
 * this before it loads anything else (scripts/build-cli-bundle.mjs, `writeBin`), so an old Node
 * gets one line naming both versions instead of a syntax or module error from deep in a command
 * (npm only warns about `engines` at install, and not at all under `npx` from a cache).
 */
export function nodeVersionProblem(version: string = process.versions.node, range: string | undefined = supportedNode()): string | undefined {
  if (range === undefined) return undefined;
  const minimums = range.split("||").map((alternative) => /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(alternative.trim()));
  if (minimums.length === 0 || minimums.some((minimum) => minimum === null)) return undefined;
  const current = version.replace(/^v/, "").split(/[.-]/).slice(0, 3).map(Number);
  const atLeast = (minimum: RegExpExecArray): boolean => {
    for (let part = 0; part < 3; part++) {
      const have = current[part] ?? 0;
      const need = Number(minimum[part + 1] ?? 0);
      if (have !== need) return have > need;
    }
    return true;
  };
  if (minimums.some((minimum) => atLeast(minimum as RegExpExecArray))) return undefined;
  return `this toolchain needs Node.js ${range} (its package.json "engines"), and this is Node.js ${version.replace(/^v/, "")}: run it with a supported Node.js (e.g. \`nvm install 22\`, or your system's package); nothing was done.`;
}

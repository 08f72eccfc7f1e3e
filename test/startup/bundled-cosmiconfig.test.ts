/**
 * cosmiconfig inside the CLI bundle (scripts/build-cli-bundle.mjs, docs/performance.md
 * "Seventeenth round"): the dependencies it loads only when asked (`import-fresh`, for the
 * fallback when `import()` of a JavaScript configuration fails) are resolved from cosmiconfig's
 * own folder, as they were before it joined the bundle. Here `import-fresh` is installed only
 * under cosmiconfig (as npm nests a conflicting version, or pnpm without hoisting installs it),
 * and the configuration throws: the user must see their own error, not "Cannot find module".
 * Runs the real CLI from a copy of `dist/` (built by `pretest`) over a node_modules/ of links.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

let pkg: string;

beforeAll(() => {
  pkg = tempDir("al-nested-");
  fs.cpSync(path.join(repoRoot, "dist"), path.join(pkg, "dist"), { recursive: true });
  fs.copyFileSync(path.join(repoRoot, "package.json"), path.join(pkg, "package.json"));
  fs.symlinkSync(path.join(repoRoot, "schemas"), path.join(pkg, "schemas"));
  // Every installed package as a link, but import-fresh only inside a copy of cosmiconfig.
  const modules = path.join(pkg, "node_modules");
  fs.mkdirSync(modules);
  for (const name of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
    if (name === "import-fresh" || name === "cosmiconfig" || name === ".bin") continue;
    fs.symlinkSync(path.join(repoRoot, "node_modules", name), path.join(modules, name));
  }
  const cosmiconfig = path.join(modules, "cosmiconfig");
  fs.cpSync(path.join(repoRoot, "node_modules", "cosmiconfig"), cosmiconfig, { recursive: true });
  fs.mkdirSync(path.join(cosmiconfig, "node_modules"), { recursive: true });
  fs.symlinkSync(path.join(repoRoot, "node_modules", "import-fresh"), path.join(cosmiconfig, "node_modules", "import-fresh"));
}, 60_000);

describe("cosmiconfig in the CLI bundle", () => {
  it("finds its own dependencies where it is installed: a throwing JavaScript configuration reports its own error", () => {
    const root = path.join(tempDir("al-nested-agent-"), "agent");
    const init = spawnSync(process.execPath, [path.join(pkg, "dist", "bin", "assembly-line.cjs"), "init", root], { encoding: "utf8" });
    expect(init.status, init.stderr).toBe(0);
    // A CommonJS file: `import()` fails on the name, and so does the fallback through import-fresh.
    fs.writeFileSync(path.join(root, "assembly-line.config.cjs"), "module.exports = { outDir: notDefinedAnywhere };\n");
    const run = spawnSync(process.execPath, [path.join(pkg, "dist", "bin", "assembly-line.cjs"), "compile", "--no-package"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    const output = run.stdout + run.stderr;
    expect(run.status).not.toBe(0);
    expect(output).toContain("AL9112");
    expect(output).toContain("notDefinedAnywhere is not defined");
    expect(output).not.toContain("Cannot find module");
  }, 60_000);

  it("parses a JSON file with JSON.parse, and loads parse-json only for its error: a package.json in the working directory costs no parse-json, a broken one reports parse-json's error", () => {
    const root = path.join(tempDir("al-nested-agent-"), "agent");
    const cli = path.join(pkg, "dist", "bin", "assembly-line.cjs");
    expect(spawnSync(process.execPath, [cli, "init", root], { encoding: "utf8" }).status).toBe(0);
    // cosmiconfig's search for its own meta configuration reads the working directory's package.json.
    fs.writeFileSync(path.join(root, "package.json"), '{ "name": "agent", "private": true }\n');
    const loaded = path.join(path.dirname(root), "loaded.txt");
    const preload = path.join(path.dirname(root), "preload.cjs");
    fs.writeFileSync(preload, `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(loaded)}, Object.keys(require.cache).join("\\n")));\n`);
    const env = { ...process.env, NO_COLOR: "1", NODE_OPTIONS: `--require ${preload}` };
    const run = spawnSync(process.execPath, [cli, "compile", "--no-package"], { cwd: root, encoding: "utf8", env });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const modules = fs.readFileSync(loaded, "utf8").split("\n");
    expect(modules.some((file) => file.includes(`${path.sep}cosmiconfig${path.sep}`) || file.endsWith("assembly-line.cjs"))).toBe(true);
    expect(modules.filter((file) => /[\\/](?:parse-json|@babel[\\/]code-frame)[\\/]/.test(file))).toEqual([]);
    // A package.json JSON.parse rejects: parse-json's own error, with its code frame.
    fs.writeFileSync(path.join(root, "package.json"), '{ "name": "agent", }\n');
    const broken = spawnSync(process.execPath, [cli, "compile", "--no-package"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    const output = broken.stdout + broken.stderr;
    expect(broken.status).not.toBe(0);
    expect(output).toContain("AL9112");
    expect(output).toContain(`JSON Error in ${path.join(root, "package.json")}`);
    expect(output).toContain("> 1 | { \"name\": \"agent\", }");
  }, 60_000);
});

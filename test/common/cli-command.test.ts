/**
 * `common/cli-command.ts`: the command prefix of every printed next step and fix command, for
 * each way the CLI can be started (helper-67, helper-69: a bare `npx assembly-line` where the
 * toolchain is not installed sends npx to the registry). The trees are real folders: the rule
 * reads the file system as npx and a shell would.
 */
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliCommand, cliCommandPrefix, commandPrefixFor, rememberCliStart, NPX_COMMAND_PREFIX } from "../../common/cli-command.js";
import { fillTemplate } from "../../diagnostics/diagnostic.js";
import { compileRecordKey } from "../../cli/compile-record.js";
import { writeTree } from "../helpers/temp-tree.js";

/** A toolchain package as npm installs it: package.json and the bin script. */
const PACKAGE = {
  "package.json": '{"name":"@assemblyline-agents/assembly-line","version":"0.1.0"}',
  "dist/bin/assembly-line.cjs": "#!/usr/bin/env node\n",
};

/** `PACKAGE` under `prefix` (a folder path ending in `/`). */
function packageAt(prefix: string): Record<string, string> {
  return Object.fromEntries(Object.entries(PACKAGE).map(([file, text]) => [`${prefix}${file}`, text]));
}

const linux = (script: string, cwd: string, pathVariable = "/usr/bin:/bin") => ({ script, cwd, pathVariable, platform: "linux" as const });

describe("commandPrefixFor", () => {
  it("is `npx assembly-line` in a project with the package in node_modules/.bin (from any folder below it)", () => {
    const project = writeTree({
      "package.json": "{}",
      ...packageAt("node_modules/@assemblyline-agents/assembly-line/"),
      "node_modules/.bin/assembly-line": { link: "../@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs" },
      "agents/support/agent.md": "---\n---\n",
    });
    const script = path.join(project, "node_modules/.bin/assembly-line");
    expect(commandPrefixFor(linux(script, project))).toBe("npx assembly-line");
    expect(commandPrefixFor(linux(script, path.join(project, "agents/support")))).toBe("npx assembly-line");
  });

  it("is `npx assembly-line` for a pnpm-style .bin shim (a script, not a link)", () => {
    const project = writeTree({ ...packageAt("node_modules/@assemblyline-agents/assembly-line/"), "node_modules/.bin/assembly-line": "#!/bin/sh\nexec node ...\n" });
    expect(commandPrefixFor(linux(path.join(project, "node_modules/@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs"), project))).toBe("npx assembly-line");
  });

  it("is not npx when node_modules/.bin/assembly-line belongs to another package (npx would run that one)", () => {
    const tree = writeTree({ "project/node_modules/.bin/assembly-line": "#!/bin/sh\n", "project/node_modules/other/package.json": "{}", ...packageAt("toolchain/") });
    const script = path.join(tree, "toolchain/dist/bin/assembly-line.cjs");
    expect(commandPrefixFor(linux(script, path.join(tree, "project")))).toBe(`node ${script}`);
  });

  it("is the bin name alone when a folder on PATH links to the running script (a global install)", () => {
    const prefix = writeTree({ ...packageAt("lib/node_modules/@assemblyline-agents/assembly-line/"), "bin/assembly-line": { link: "../lib/node_modules/@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs" } });
    const cwd = writeTree({ "agent.md": "---\n---\n" });
    const bin = path.join(prefix, "bin");
    // Node keeps the link's path in argv[1]; the real file is what it resolves to.
    expect(commandPrefixFor(linux(path.join(bin, "assembly-line"), cwd, `/usr/bin:${bin}`))).toBe("assembly-line");
  });

  it("is the bin name alone for a Windows global shim (.cmd) beside the global node_modules of the running package", () => {
    const prefix = writeTree({ ...packageAt("node_modules/@assemblyline-agents/assembly-line/"), "assembly-line.cmd": "@node ...\r\n" });
    const cwd = writeTree({ "agent.md": "---\n---\n" });
    const script = path.join(prefix, "node_modules/@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs");
    expect(commandPrefixFor({ script, cwd, pathVariable: `C:\\Windows;${prefix}`, platform: "win32" })).toBe("assembly-line");
  });

  it("ignores a node_modules/.bin on PATH (npx and npm run add it; the user's shell does not have it)", () => {
    const project = writeTree({ ...packageAt("node_modules/@assemblyline-agents/assembly-line/"), "node_modules/.bin/assembly-line": { link: "../@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs" } });
    const elsewhere = writeTree({ "agent.md": "---\n---\n" });
    const bin = path.join(project, "node_modules/.bin");
    const script = path.join(bin, "assembly-line");
    // Run through `npm --prefix <project> exec` from a folder outside the project.
    expect(commandPrefixFor(linux(script, elsewhere, `${bin}:/usr/bin`))).toBe(`node ${script}`);
  });

  it("is `node <script>` otherwise: relative inside the working directory, absolute outside it, quoted for the shell", () => {
    const tree = writeTree({ ...packageAt("assembly line/"), "agent/agent.md": "---\n---\n" });
    const script = path.join(tree, "assembly line/dist/bin/assembly-line.cjs");
    expect(commandPrefixFor(linux(script, path.join(tree, "assembly line")))).toBe("node dist/bin/assembly-line.cjs");
    expect(commandPrefixFor(linux(script, path.join(tree, "agent")))).toBe(`node '${script}'`);
    // A script that does not exist (deleted since it started) still gets the path form.
    expect(commandPrefixFor(linux(path.join(tree, "gone.cjs"), path.join(tree, "agent")))).toBe(`node ${path.join(tree, "gone.cjs")}`);
  });
});

// README trial of 6 December: `npx assembly-line` in the checkout ran the toolchain from npm's
// npx cache, and every printed command began `node /root/.npm/_npx/<hash>/node_modules/.bin/…`.
describe("commandPrefixFor under npx (npm exec), the package in npm's npx cache", () => {
  /** An npx cache folder `_npx/<hash>/` for the package specs `packages`, its package linked to (or copied from) `source`. */
  function npxCache(packages: readonly string[], source?: string): { cache: string; script: string } {
    const cache = writeTree({
      "_npx/0a1b2c3d4e5f6a7b/package.json": JSON.stringify({ dependencies: {}, _npx: { packages } }),
      ...(source === undefined ? packageAt("_npx/0a1b2c3d4e5f6a7b/node_modules/@assemblyline-agents/assembly-line/") : { "_npx/0a1b2c3d4e5f6a7b/node_modules/@assemblyline-agents/assembly-line": { link: source } }),
      "_npx/0a1b2c3d4e5f6a7b/node_modules/.bin/assembly-line": { link: "../@assemblyline-agents/assembly-line/dist/bin/assembly-line.cjs" },
    });
    return { cache, script: path.join(cache, "_npx/0a1b2c3d4e5f6a7b/node_modules/.bin/assembly-line") };
  }
  const npx = (script: string, cwd: string, npmExec: { localPrefix?: string; packageSpec?: string }) => ({ ...linux(script, cwd, `${path.dirname(script)}:/usr/bin`), npmExec });

  it("is `npx assembly-line` in the toolchain's own checkout (npx runs the project's own bin there), from a folder below it too", () => {
    const checkout = writeTree({ ...PACKAGE, "examples/agent/agent.md": "---\n---\n" });
    const { script } = npxCache([checkout], checkout);
    expect(commandPrefixFor(npx(script, checkout, { localPrefix: checkout }))).toBe("npx assembly-line");
    expect(commandPrefixFor(npx(script, path.join(checkout, "examples/agent"), { localPrefix: checkout }))).toBe("npx assembly-line");
  });

  it("is `npx <spec>` for the one package spec npx was given (a tarball, a registry name): a bare `npx assembly-line` there would ask the registry", () => {
    const elsewhere = writeTree({ "agent.md": "---\n---\n" });
    const tarball = npxCache(["/home/ada/my tools/assemblyline-agents-assembly-line-0.1.0.tgz"]);
    expect(commandPrefixFor(npx(tarball.script, elsewhere, { localPrefix: elsewhere }))).toBe("npx '/home/ada/my tools/assemblyline-agents-assembly-line-0.1.0.tgz'");
    const registry = npxCache(["@assemblyline-agents/assembly-line@0.1.0"]);
    expect(commandPrefixFor(npx(registry.script, elsewhere, { localPrefix: elsewhere }))).toBe("npx @assemblyline-agents/assembly-line@0.1.0");
  });

  it("is `npx --package=<spec> assembly-line` when npx was given --package", () => {
    const elsewhere = writeTree({ "agent.md": "---\n---\n" });
    const { script } = npxCache(["./tools/assemblyline-agents-assembly-line-0.1.0.tgz"]);
    expect(commandPrefixFor(npx(script, elsewhere, { localPrefix: elsewhere, packageSpec: "./tools/assemblyline-agents-assembly-line-0.1.0.tgz" }))).toBe("npx --package=./tools/assemblyline-agents-assembly-line-0.1.0.tgz assembly-line");
  });

  it("keeps `node <script>` when it cannot tell what npx was given (several specs), or when npm exec did not start it", () => {
    const elsewhere = writeTree({ "agent.md": "---\n---\n" });
    const several = npxCache(["a-package", "/tmp/x.tgz"]);
    expect(commandPrefixFor(npx(several.script, elsewhere, { localPrefix: elsewhere }))).toBe(`node ${several.script}`);
    const single = npxCache(["@assemblyline-agents/assembly-line"]);
    expect(commandPrefixFor(linux(single.script, elsewhere))).toBe(`node ${single.script}`);
  });
});

describe("the process's prefix", () => {
  afterEach(() => rememberCliStart(undefined));

  it("is `npx assembly-line` when the binary did not start the process (the editor plugin, the JS API, in-process tests)", () => {
    rememberCliStart(undefined);
    expect(cliCommandPrefix()).toBe(NPX_COMMAND_PREFIX);
    expect(cliCommand("compile", "my agent")).toBe("npx assembly-line compile 'my agent'");
  });

  it("follows the start the binary recorded, and fills the catalogue's {cli} placeholder, never one an argument brings", () => {
    const tree = writeTree(packageAt("toolchain/"));
    const script = path.join(tree, "toolchain/dist/bin/assembly-line.cjs");
    rememberCliStart(script);
    expect(cliCommandPrefix()).toBe(`node ${path.relative(process.cwd(), script).startsWith("..") ? script : path.relative(process.cwd(), script)}`);
    expect(fillTemplate("Run `{cli} add {0}`.", ["{cli}"])).toBe(`Run \`${cliCommandPrefix()} add {cli}\`.`);
  });

  it("keys the compile record: a compile started another way prints other fix commands, so it is not replayed", () => {
    const options = { root: "/agent" };
    const viaNpx = compileRecordKey(options);
    rememberCliStart(path.join(writeTree(packageAt("toolchain/")), "toolchain/dist/bin/assembly-line.cjs"));
    expect(compileRecordKey(options)).not.toBe(viaNpx);
  });
});

/**
 * `compile`'s up-to-date check (issue 14 item 4, `cli/compile-record.ts`), with the real CLI: a
 * compile with nothing changed replays the last compile's report without compiling (it writes
 * nothing, not even a cache), and prints exactly what a full compile prints (pretty and
 * `--format json`, same exit code). After each kind of change — an entry, a definition, an
 * imported asset, an imported module, plugin.json, agent.md, a new plugin folder, a new file that
 * changes how an import resolves, the project configuration, the lock, the artifact, other flags,
 * another working directory — the compile runs in full, and its lock, artifact and output are
 * those of a cold compile of a fresh copy, while the untouched plugins' front-end results are
 * reused (test/build/plugin-reuse.test.ts proves they are). (A toolchain change:
 * test/startup/compile-record.test.ts.)
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { COMPILE_RECORD_FILE } from "../../cli/compile-record.js";
import { RACY_MARGIN_MS } from "../../common/probes.js";
import { runCli, type CliRun } from "../helpers/run-cli.js";
import { outputsOf, pluginJson, TWO_TOOL_ENTRY } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";


/** Two selected plugins (alpha/greet imports a module without extension and a text asset); gamma not selected (an info, AL1017, replayed). */
function writeAgent(root: string): void {
  writeFiles(root, {
    "agent.md": "---\nname: replayed\ncapabilities:\n  alpha: {}\n  beta: {}\n---\n\nAn agent for the up-to-date check.\n",
    "plugins/alpha/plugin.json": pluginJson("alpha"),
    "plugins/alpha/ai.assemblyline/index.ts": TWO_TOOL_ENTRY,
    "plugins/alpha/ai.assemblyline/greet.ts":
      'import { defineTool } from "@assemblyline-agents/core";\nimport { shout } from "./util";\nimport banner from "./banner.txt";\n\n' +
      "export default defineTool({\n  async execute() {\n    return shout(banner);\n  }\n});\n",
    "plugins/alpha/ai.assemblyline/util.ts": "export function shout(text: string): string {\n  return text.toUpperCase();\n}\n",
    "plugins/alpha/ai.assemblyline/banner.txt": "hello\n",
    "plugins/alpha/ai.assemblyline/count.ts": "export default { async execute() { return 1; } };\n",
    "plugins/beta/plugin.json": pluginJson("beta"),
    "plugins/beta/ai.assemblyline/index.ts":
      'export default { tools: { ping: { definition: "./ai.assemblyline/ping.ts", description: "Ping.", inputSchema: { type: "object" } } } };\n',
    "plugins/beta/ai.assemblyline/ping.ts": 'export default { async execute() { return "pong"; } };\n',
    "plugins/gamma/plugin.json": pluginJson("gamma"),
    "plugins/gamma/ai.assemblyline/index.ts":
      'export default { tools: { wave: { definition: "./ai.assemblyline/wave.ts", description: "Wave.", inputSchema: { type: "object" } } } };\n',
    "plugins/gamma/ai.assemblyline/wave.ts": 'export default { async execute() { return "o/"; } };\n',
  });
}

/** `compile agent …` run from the folder holding the agent (so paths print the same for every copy). */
function compile(root: string, args: readonly string[] = [], cwd = path.dirname(root)): CliRun {
  return runCli(["compile", path.relative(cwd, root) || ".", ...args], { cwd });
}

/** What the compile wrote under `.assemblyline/cache/` (a full compile rewrites the record and the inputs record; a replay writes nothing). */
function cacheState(root: string): string {
  const folder = path.join(root, ".assemblyline", "cache");
  if (!fs.existsSync(folder)) return "none";
  return fs
    .readdirSync(folder)
    .sort()
    .map((name) => {
      const stat = fs.statSync(path.join(folder, name), { bigint: true });
      return `${name}:${stat.ino}:${stat.mtimeNs}`;
    })
    .join("\n");
}

/** A fresh copy of the agent as it is now (lock included, no `.assemblyline/`); `compile` compiles it cold and gives its output and files. */
function coldCopy(root: string): { compile(args: readonly string[]): { run: CliRun; outputs: Record<string, string> } } {
  const copy = path.join(tempDir("al-cold-"), path.basename(root));
  fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
  return {
    compile(args) {
      const run = compile(copy, ["--no-cache", ...args]);
      return { run, outputs: args.includes("--no-package") ? {} : outputsOf(copy) };
    },
  };
}

/** Compiles when there is no record yet (the first compile of a fresh agent writes the lock), then checks the replay against a full compile, pretty and JSON. */
function expectReplayMatchesFullCompile(root: string, args: readonly string[] = [], formats: readonly (readonly string[])[] = [[], ["--format", "json"]]): void {
  if (!fs.existsSync(path.join(root, COMPILE_RECORD_FILE))) expect(compile(root, args).status).toBe(0);
  expect(fs.existsSync(path.join(root, COMPILE_RECORD_FILE))).toBe(true);
  for (const format of formats) {
    const full = compile(root, [...args, ...format, "--no-cache"]);
    const before = cacheState(root);
    const replay = compile(root, [...args, ...format]);
    expect(cacheState(root), "a replay writes nothing").toBe(before);
    expect(replay).toEqual(full);
  }
}

/** Applies `change`, then expects a full compile whose output and files are a cold compile's, then a replay again. */
function expectRecompiled(root: string, change: () => void, args: readonly string[] = []): void {
  change();
  const copy = coldCopy(root);
  const before = cacheState(root);
  const run = compile(root, [...args, "--format", "json"]);
  expect(cacheState(root), "the change was seen: the compile ran").not.toBe(before);
  // Every change here leaves a readable lock behind: even a compile that wrote new lock bytes records.
  expect(fs.existsSync(path.join(root, COMPILE_RECORD_FILE))).toBe(true);
  const cold = copy.compile([...args, "--format", "json"]);
  expect(run).toEqual(cold.run);
  if (!args.includes("--no-package")) expect(outputsOf(root)).toEqual(cold.outputs);
  // The next compile replays what a full compile would print now: that compile's report, with
  // the lock it wrote now unchanged. It writes nothing. (Pretty output is compared once, in the
  // first test's replay of the unchanged agent.)
  const after = cacheState(root);
  const replay = compile(root, [...args, "--format", "json"]);
  expect(cacheState(root), "a replay writes nothing").toBe(after);
  const report = JSON.parse(run.stdout) as { lockChanged?: boolean };
  expect(replay).toEqual({ ...run, stdout: JSON.stringify({ ...report, lockChanged: false }, null, 2) + "\n" });
}

const edit = (root: string, file: string, change: (text: string) => string): void => {
  const target = path.join(root, file);
  const text = fs.readFileSync(target, "utf8");
  const changed = change(text);
  expect(changed).not.toBe(text);
  fs.writeFileSync(target, changed);
};

describe("compile's up-to-date check", () => {
  it("replays a compile with nothing changed, and compiles after every kind of change with a cold compile's results", async () => {
    const root = path.join(tempDir("al-uptodate-"), "agent");
    writeAgent(root);
    // Files older than the racy margin when the first compile starts: the compiles after a
    // change then reuse the untouched plugins' front-end results (compiler/plugin-reuse.ts),
    // whose probes must reach the record for the next replay to be right.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const first = compile(root, ["--format", "json"]);
    expect(first.status).toBe(0);
    expect(JSON.parse(first.stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(["AL1017"]);
    expectReplayMatchesFullCompile(root);

    // A touch changes no content: still a replay.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(path.join(root, "plugins/alpha/ai.assemblyline/util.ts"), later, later);
    const before = cacheState(root);
    expect(compile(root).status).toBe(0);
    expect(cacheState(root)).toBe(before);

    const changes: [string, () => void][] = [
      ["an entry", () => edit(root, "plugins/alpha/ai.assemblyline/index.ts", (t) => t.replace("Count things.", "Count things twice."))],
      ["a definition", () => edit(root, "plugins/alpha/ai.assemblyline/count.ts", (t) => t.replace("return 1", "return 2"))],
      ["an imported asset", () => edit(root, "plugins/alpha/ai.assemblyline/banner.txt", () => "hello there\n")],
      ["an imported module", () => edit(root, "plugins/alpha/ai.assemblyline/util.ts", (t) => t.replace("toUpperCase", "toLowerCase"))],
      ["plugin.json", () => fs.writeFileSync(path.join(root, "plugins/beta/plugin.json"), pluginJson("beta", "The beta plugin, described again."))],
      ["agent.md", () => edit(root, "agent.md", (t) => t.replace("  beta: {}\n", "  beta: {}\n  gamma: {}\n"))],
      ["a new plugin folder", () => writeFiles(root, { "plugins/delta/plugin.json": pluginJson("delta") })],
      // `./util` now resolves to util.tsx (esbuild tries .tsx before .ts).
      ["a file that changes how an import resolves", () => writeFiles(root, { "plugins/alpha/ai.assemblyline/util.tsx": "export function shout(text: string): string {\n  return `${text}!`;\n}\n" })],
      ["the project configuration", () => writeFiles(root, { "assembly-line.config.json": '{ "rules": { "AL1017": "warn" } }\n' })],
      ["the lock", () => edit(root, "plugins.lock", (t) => t.replace(/\n$/, "\n\n"))],
      ["a bundle of the artifact", () => fs.appendFileSync(path.join(root, ".assemblyline/build/bundles/root/alpha/ai.assemblyline/count.mjs"), "// edited\n")],
      ["a bundle of the artifact removed", () => fs.rmSync(path.join(root, ".assemblyline/build/bundles/root/beta/ai.assemblyline/ping.mjs"))],
    ];
    for (const [what, change] of changes) {
      try {
        expectRecompiled(root, change);
      } catch (error) {
        throw new Error(`after a change of ${what}: ${(error as Error).message}\n${JSON.stringify((error as { actual?: unknown }).actual)}\n${JSON.stringify((error as { expected?: unknown }).expected)}`);
      }
    }
  }, 600_000);

  it("compiles when the flags or the working directory differ from the recorded compile's", () => {
    const root = path.join(tempDir("al-uptodate-flags-"), "agent");
    writeAgent(root);
    expect(compile(root).status).toBe(0); // writes the lock (no record: there was no lock to read alike)
    expectReplayMatchesFullCompile(root);
    expectRecompiled(root, () => {}, ["--no-package"]);
    expectRecompiled(root, () => {}, ["--target", "openai"]);
    expectRecompiled(root, () => {}, ["--max-warnings", "0"]);
    // Another working directory: hints name the root as typed from there.
    const before = cacheState(root);
    const inside = runCli(["compile", "."], { cwd: root });
    expect(inside.status).toBe(0);
    expect(cacheState(root)).not.toBe(before);
  }, 600_000);
});

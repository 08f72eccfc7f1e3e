/**
 * A compile after a change links the artifact files the last compile left, without reading
 * them, when the compile record says what it wrote there and the file's stat signature (size,
 * mtime, ctime, inode, taken when settled) is unchanged (`CompileOptions.knownArtifactFiles`,
 * `build/emit-artifact.ts`). The rule must never keep a file whose bytes changed: an old bundle
 * rewritten with the same size and its modification time restored (only its change time moves)
 * is compared by its bytes and written again, so the artifact is the one a cold compile writes.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { statSignature } from "../../common/file-stats-hash.js";
import { bundleIntegrity } from "../../packaging/integrity.js";
import { COMPILE_RECORD_FILE } from "../../cli/compile-record.js";
import { runCli } from "../helpers/run-cli.js";
import { outputsOf, pluginJson, TWO_TOOL_ENTRY } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";
import { rewriteSameSize } from "../helpers/same-size-rewrite.js";


function writeAgent(root: string): void {
  writeFiles(root, {
    "agent.md": "---\nname: linked\ncapabilities:\n  alpha: {}\n---\n\nAn agent whose artifact is updated.\n",
    "plugins/alpha/plugin.json": pluginJson("alpha"),
    "plugins/alpha/ai.assemblyline/index.ts": TWO_TOOL_ENTRY,
    "plugins/alpha/ai.assemblyline/greet.ts": 'export default { async execute() { return "hello"; } };\n',
    "plugins/alpha/ai.assemblyline/count.ts": "export default { async execute() { return 1; } };\n",
  });
}

const COUNT_BUNDLE = ".assemblyline/build/bundles/root/alpha/ai.assemblyline/count.mjs";
const GREET = "plugins/alpha/ai.assemblyline/greet.ts";

/** The agent compiled until the compile record holds, its files older than the racy window. */
function compiledAgent(): string {
  const root = tempDir("al-known-artifact-");
  writeAgent(root);
  const past = new Date(Date.now() - 60_000);
  for (const file of fs.readdirSync(root, { recursive: true })) fs.utimesSync(path.join(root, String(file)), past, past);
  expect(runCli(["compile", root]).status).toBe(0);
  // Whole-second modification times (restorable exactly by utimes), then a full compile that
  // links them into its artifact and records their signatures.
  const round = new Date(Math.floor(Date.now() / 1000) * 1000 - 30_000);
  const artifact = path.join(root, ".assemblyline", "build");
  for (const entry of fs.readdirSync(artifact, { recursive: true })) fs.utimesSync(path.join(artifact, String(entry)), round, round);
  fs.appendFileSync(path.join(root, GREET), "// first\n");
  expect(runCli(["compile", root]).status).toBe(0);
  expect(fs.existsSync(path.join(root, COMPILE_RECORD_FILE))).toBe(true);
  expect(fs.statSync(path.join(root, COUNT_BUNDLE)).mtimeMs).toBe(round.getTime());
  return root;
}

/** A cold compile of a copy of `root` (no `.assemblyline/`). */
function coldOutputs(root: string): Record<string, string> {
  const copy = path.join(tempDir("al-known-cold-"), "agent");
  fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) });
  expect(runCli(["compile", copy, "--no-cache"]).status).toBe(0);
  return outputsOf(copy);
}

describe("compile links the artifact files the compile record vouches for", () => {
  it("rewrites an old bundle changed with the same size and modification time (its change time moved)", () => {
    const root = compiledAgent();
    const bundle = path.join(root, COUNT_BUNDLE);
    const before = fs.statSync(bundle);
    // Same length, other bytes, mtime restored: only ctime says the file changed.
    const original = rewriteSameSize(bundle);
    expect(fs.statSync(bundle).size).toBe(before.size);
    expect(fs.statSync(bundle).mtimeMs).toBe(before.mtimeMs);
    // Another tool changes: the compile runs in full and updates the artifact.
    fs.writeFileSync(path.join(root, GREET), fs.readFileSync(path.join(root, GREET), "utf8").replace('"hello"', '"hello again"'));
    expect(runCli(["compile", root]).status).toBe(0);
    expect(fs.readFileSync(bundle).equals(original)).toBe(true);
    expect(outputsOf(root)).toEqual(coldOutputs(root));
  });

  it("links a file whose recorded integrity and stat signature hold, without reading it", async () => {
    const root = compiledAgent();
    const bundle = path.join(root, COUNT_BUNDLE);
    const original = fs.readFileSync(bundle);
    const integrity = bundleIntegrity(original);
    // The disk is made to disagree with what the caller vouches for (same size, other bytes),
    // and the caller vouches for the file as it now is: only a compile that trusts the
    // signature (and does not read the file) keeps these bytes.
    rewriteSameSize(bundle, { keepMtime: false });
    const tampered = fs.readFileSync(bundle);
    fs.writeFileSync(path.join(root, GREET), fs.readFileSync(path.join(root, GREET), "utf8").replace('"hello"', '"hello again"'));
    const known = new Map([[bundle, [integrity, statSignature(bundle)] as const]]);
    const result = await compileAgent({ root, knownArtifactFiles: known });
    expect(result.ok).toBe(true);
    expect(result.artifactChanged).toBe(true);
    expect(fs.readFileSync(bundle).equals(tampered)).toBe(true);
    // Without the caller's word, the same compile compares the bytes and writes the bundle again.
    fs.writeFileSync(path.join(root, GREET), fs.readFileSync(path.join(root, GREET), "utf8").replace('"hello again"', '"hello once more"'));
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(fs.readFileSync(bundle).equals(original)).toBe(true);
  });
});

/**
 * A compile that knows the artifact the last compile left (`knownArtifactFiles`, as `compile`
 * passes from its record) and has no spare makes the new artifact's folders ahead, while it
 * analyses (`packaging/artifact-staging.ts`, issue 14 item 4). What must not change: the lock and
 * artifact are a cold compile's; no `.build.tmp-*` is left when the compile returns, whether it
 * wrote the artifact, found it current or failed; the old artifact is untouched by a failure.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent, type KnownArtifactFiles } from "../../build/compile.js";
import { statSignature } from "../../common/file-stats-hash.js";
import { bundleIntegrity } from "../../packaging/integrity.js";
import { outputsOf, returningDefinition, writeOneToolPluginsAgent } from "../helpers/agent-outputs.js";
import { tempDir } from "../helpers/temp-tree.js";
import { coldCompiledCopy, treeOf } from "../helpers/artifact-tree.js";

/** The agent of these tests: a plugin of one tool for each capability it selects. */
function writeAgent(root: string, capabilities: readonly string[]): void {
  writeOneToolPluginsAgent(root, "staging", capabilities);
}

const artifactDir = (root: string): string => path.join(root, ".assemblyline", "build");

/** What the compile record would pass: every artifact file with its SRI and stat signature. */
function knownArtifact(root: string): KnownArtifactFiles {
  const known = new Map<string, readonly [string, string]>();
  for (const entry of fs.readdirSync(artifactDir(root), { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    known.set(file, [bundleIntegrity(fs.readFileSync(file)), statSignature(file)]);
  }
  return known;
}

/** The names beside the artifact folder (the state folder's own entries). */
const besideArtifact = (root: string): string[] => fs.readdirSync(path.dirname(artifactDir(root))).sort();

async function coldOutputs(root: string): Promise<Record<string, string>> {
  const copy = await coldCompiledCopy(root, "al-staging-cold-");
  return { ...outputsOf(copy), tree: treeOf(artifactDir(copy)).join("\n") };
}

describe("a compile that makes its artifact's folders ahead", () => {
  it("writes a cold compile's artifact, with a removed plugin's folders gone, and leaves no temporary", async () => {
    const root = path.join(tempDir("al-staging-"), "agent");
    writeAgent(root, ["alpha", "beta", "gamma"]);
    expect((await compileAgent({ root })).ok).toBe(true);
    // gamma's folders are among the known files' folders, but the new artifact has none.
    writeAgent(root, ["alpha", "beta"]);
    fs.rmSync(path.join(root, "plugins", "gamma"), { recursive: true });
    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), returningDefinition("alpha, changed"));
    const result = await compileAgent({ root, knownArtifactFiles: knownArtifact(root) });
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    expect(result.artifactChanged).toBe(true);
    expect(besideArtifact(root)).toEqual([".build.spare", ".gitignore", "build", "cache"]);
    expect({ ...outputsOf(root), tree: treeOf(artifactDir(root)).join("\n") }).toEqual(await coldOutputs(root));
  });

  it("removes the folders it made when the artifact is current", async () => {
    const root = path.join(tempDir("al-staging-"), "agent");
    writeAgent(root, ["alpha", "beta"]);
    expect((await compileAgent({ root })).ok).toBe(true);
    const before = treeOf(artifactDir(root));
    const result = await compileAgent({ root, knownArtifactFiles: knownArtifact(root) });
    expect(result.ok).toBe(true);
    expect(result.artifactChanged).toBe(false);
    expect(besideArtifact(root)).toEqual([".gitignore", "build", "cache"]);
    expect(treeOf(artifactDir(root))).toEqual(before);
  });

  it("removes the folders it made when the compile fails, and leaves the old artifact as it was", async () => {
    const root = path.join(tempDir("al-staging-"), "agent");
    writeAgent(root, ["alpha", "beta"]);
    expect((await compileAgent({ root })).ok).toBe(true);
    const before = outputsOf(root);
    const known = knownArtifact(root);
    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/index.ts"), "export default { tools: { alpha: { definition: 42 } } };\n");
    const result = await compileAgent({ root, knownArtifactFiles: known });
    expect(result.ok).toBe(false);
    expect(besideArtifact(root)).toEqual([".gitignore", "build", "cache"]);
    expect(outputsOf(root)).toEqual(before);
  });
});

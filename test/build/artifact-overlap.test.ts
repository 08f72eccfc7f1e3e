/**
 * The compile overlaps its caches' saves with the artifact's links, and the lock's write with the
 * removal of the old artifact (issue 14 item 4, sixth round: `build/compile.ts`'s pending saves,
 * `packaging/write-artifact.ts`'s `ArtifactWriteOverlap`). What must not change:
 * - when `compileAgent` returns, the old artifact is the spare (`.build.spare`, no `.build.old-*`
 *   or `.build.tmp-*`), the unchanged bundles were linked (same inode, the spare holding the other
 *   link), the next replacement keeps them in the spare it fits, and the lock and artifact are a
 *   cold compile's each time;
 * - both caches are saved (the next compile reuses them), also by a compile that fails;
 * - a refused cache save is still reported, on a failing compile as on a succeeding one.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { outputsOf, returningDefinition, writeOneToolPluginsAgent } from "../helpers/agent-outputs.js";
import { tempDir } from "../helpers/temp-tree.js";
import { coldCompiledCopy, treeOf } from "../helpers/artifact-tree.js";

/** The agent of these tests: the plugins alpha and beta, of one tool each, whatever it selects. */
function writeAgent(root: string, capabilities: readonly string[] = ["alpha", "beta"]): void {
  writeOneToolPluginsAgent(root, "overlap", capabilities, ["alpha", "beta"]);
}

/** The folder of the last {@link coldOutputs} copy. */
let tempCold = "";

async function coldOutputs(root: string): Promise<Record<string, string>> {
  const copy = await coldCompiledCopy(root, "al-overlap-cold-");
  tempCold = path.dirname(copy);
  return outputsOf(copy);
}

describe("a compile whose artifact lost its manifest", () => {
  it("writes the artifact anew in the toolchain's own folder (security re-check 132: AL7050 until the folder was removed by hand)", async () => {
    const root = path.join(tempDir("al-no-manifest-"), "agent");
    writeAgent(root);
    expect((await compileAgent({ root })).ok).toBe(true);
    fs.rmSync(path.join(root, ".assemblyline", "build", "manifest.json"));
    const again = await compileAgent({ root });
    expect(again.ok, JSON.stringify(again.diagnostics)).toBe(true);
    expect(fs.existsSync(path.join(root, ".assemblyline", "build", "manifest.json"))).toBe(true);
  });
});

describe("a compile that replaces its artifact", () => {
  it("keeps the old artifact as the spare, linked the unchanged bundle and saved both caches when it returns", async () => {
    const root = path.join(tempDir("al-overlap-"), "agent");
    writeAgent(root);
    expect((await compileAgent({ root })).ok).toBe(true);
    const state = path.join(root, ".assemblyline");
    const cache = path.join(state, "cache");
    const bundle = (name: string): string => path.join("bundles", "root", name, "ai.assemblyline", `${name}.mjs`);
    const beta = path.join(state, "build", bundle("beta"));
    const before = { beta: fs.statSync(beta).ino, analysis: fs.readFileSync(path.join(cache, "analysis.bin")), bundles: fs.readFileSync(path.join(cache, "bundles.bin")) };

    fs.writeFileSync(path.join(root, "plugins", "alpha", "ai.assemblyline", "alpha.ts"), returningDefinition("alpha, changed"));
    const result = await compileAgent({ root });
    expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
    expect(result.artifactChanged).toBe(true);
    expect(fs.readdirSync(state).sort()).toEqual([".build.spare", ".gitignore", "build", "cache"]);
    // Linked from the old artifact, which is now the spare.
    const after = fs.statSync(beta);
    expect([after.ino, after.nlink]).toEqual([before.beta, 2]);
    expect(fs.statSync(path.join(state, ".build.spare", bundle("beta"))).ino).toBe(before.beta);
    // Both caches hold the changed definition now.
    expect(fs.readFileSync(path.join(cache, "analysis.bin")).equals(before.analysis)).toBe(false);
    expect(fs.readFileSync(path.join(cache, "bundles.bin")).equals(before.bundles)).toBe(false);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));

    // The next change fits the spare: the unchanged bundle stays the same file, the changed one is new.
    const alphaBefore = fs.statSync(path.join(state, "build", bundle("alpha"))).ino;
    fs.writeFileSync(path.join(root, "plugins", "alpha", "ai.assemblyline", "alpha.ts"), returningDefinition("alpha, changed again"));
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(fs.readdirSync(state).sort()).toEqual([".build.spare", ".gitignore", "build", "cache"]);
    expect(fs.statSync(beta).ino).toBe(before.beta);
    expect(fs.statSync(path.join(state, "build", bundle("alpha"))).ino).not.toBe(alphaBefore);
    expect(fs.statSync(path.join(state, ".build.spare", bundle("alpha"))).ino).toBe(alphaBefore);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(treeOf(path.join(state, "build"))).toEqual(treeOf(path.join(tempCold, "agent", ".assemblyline", "build")));
  });

  it("removes the old artifact when it is not in the state folder (--out)", async () => {
    const root = path.join(tempDir("al-overlap-"), "agent");
    writeAgent(root);
    const outDir = path.join(root, "dist", "artifact");
    expect((await compileAgent({ root, outDir })).ok).toBe(true);
    fs.writeFileSync(path.join(root, "plugins", "alpha", "ai.assemblyline", "alpha.ts"), returningDefinition("alpha, changed"));
    expect((await compileAgent({ root, outDir })).ok).toBe(true);
    expect(fs.readdirSync(path.join(root, "dist"))).toEqual(["artifact"]);
    expect(fs.readdirSync(path.join(root, ".assemblyline")).sort()).toEqual([".gitignore", "cache"]);
  });

  it("saves the caches when it fails, and reports a refused save when it fails as when it succeeds", async () => {
    const root = path.join(tempDir("al-overlap-"), "agent");
    writeAgent(root, ["alpha", "beta", "missing"]);
    const failed = await compileAgent({ root });
    expect(failed.ok).toBe(false);
    expect(fs.existsSync(path.join(root, ".assemblyline", "cache", "analysis.bin"))).toBe(true);

    // A file where the caches' folder should be: each save is refused, with a warning.
    fs.rmSync(path.join(root, ".assemblyline"), { recursive: true });
    fs.mkdirSync(path.join(root, ".assemblyline"));
    fs.writeFileSync(path.join(root, ".assemblyline", "cache"), "not a folder");
    const refusedCodes = (diagnostics: readonly { code: string; severity: string; file?: string }[]): string[] =>
      diagnostics.filter((d) => d.severity === "warning" && d.file?.includes(".assemblyline/cache")).map((d) => d.code);
    const failing = await compileAgent({ root });
    expect(failing.ok).toBe(false);
    expect(refusedCodes(failing.diagnostics)).toHaveLength(1);

    writeAgent(root);
    const succeeding = await compileAgent({ root });
    expect(succeeding.ok, JSON.stringify(succeeding.diagnostics)).toBe(true);
    expect(refusedCodes(succeeding.diagnostics)).toEqual(refusedCodes(failing.diagnostics));
    expect(fs.readdirSync(path.join(root, ".assemblyline")).sort()).toEqual([".gitignore", "build", "cache"]);
  });
});

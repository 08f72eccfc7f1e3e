/**
 * The bundles' bytes in a file of their own (issue 14 item 4: `packaging/bundle-bytes.ts`,
 * `packaging/bundle-cache.ts`; docs/caches.md, "The bundles' bytes"): `bundles.bin` names each
 * stored bundle's bytes in `bundles-bytes.bin` by offset and length beside its recorded SRI; the
 * bytes are read only when a bundle file must be written or compared, and used only when their
 * SHA-512 is that SRI. Damaged bytes are never copied into the artifact (the bundle is built
 * again and the cache repaired), a missing bytes file is a miss, and no read or write of the
 * file goes through a link.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { compileAgent, type KnownArtifactFiles } from "../../build/compile.js";
import { statSignature } from "../../common/file-stats-hash.js";
import { readSealedLog } from "../../common/sealed-file.js";
import { BUNDLE_BYTES_FILE, BUNDLE_BYTES_MAGIC, isBytesRef } from "../../packaging/bundle-bytes.js";
import { BUNDLE_CACHE_FILE, BUNDLE_CACHE_MAGIC } from "../../packaging/bundle-cache.js";
import { bundleIntegrity } from "../../packaging/integrity.js";
import { outputsOf, pluginJson } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const NAMES = ["alpha", "beta", "gamma", "delta"];
const definition = (text: string): string =>
  `import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({\n  async execute() {\n    return "${text}";\n  }\n});\n`;

function writeAgent(root: string): void {
  const files: Record<string, string> = { "agent.md": `---\nname: bytes\ncapabilities:\n${NAMES.map((n) => `  ${n}: {}\n`).join("")}---\n\nAn agent.\n` };
  for (const name of NAMES) {
    files[`plugins/${name}/plugin.json`] = pluginJson(name);
    files[`plugins/${name}/ai.assemblyline/index.ts`] = `export default { tools: { ${name}: { definition: "./ai.assemblyline/${name}.ts", description: "The ${name} tool.", inputSchema: { type: "object" } } } };\n`;
    files[`plugins/${name}/ai.assemblyline/${name}.ts`] = definition(name);
  }
  writeFiles(root, files);
}

/** A compiled agent (in a folder of its own, so a file beside it is outside the agent). */
async function compiledAgent(): Promise<string> {
  const root = path.join(tempDir("al-bundle-bytes-"), "agent");
  writeAgent(root);
  expect((await compileAgent({ root })).ok).toBe(true);
  return root;
}

/** The stored bundles as `bundles.bin` names them (segments applied): name → where its bytes are and their SRI. */
function storedBundles(root: string): Map<string, { bytes: unknown; integrity: string }> {
  const log = readSealedLog(path.join(root, BUNDLE_CACHE_FILE), BUNDLE_CACHE_MAGIC);
  expect(log).toBeDefined();
  const bundles = new Map<string, { bytes: unknown; integrity: string }>();
  for (const segment of log!.segments as { bundles: [string, { bytes: unknown; integrity: string }][]; removed?: string[] }[]) {
    for (const [name, bundle] of segment.bundles) bundles.set(name, bundle);
    for (const name of segment.removed ?? []) bundles.delete(name);
  }
  return bundles;
}

/** Names of the stored bundles whose bytes in the bytes file have their recorded SRI. */
function verified(root: string): string[] {
  const file = fs.readFileSync(path.join(root, BUNDLE_BYTES_FILE));
  return [...storedBundles(root)]
    .filter(([, { bytes, integrity }]) => isBytesRef(bytes) && bytes.at + bytes.length <= file.length && bundleIntegrity(file.subarray(bytes.at, bytes.at + bytes.length)) === integrity)
    .map(([name]) => name.split("/").at(-1)!)
    .sort();
}

/** Flips one byte in the middle of each named bundle's bytes in the bytes file (same length). */
function damage(root: string, names: readonly string[]): void {
  const file = path.join(root, BUNDLE_BYTES_FILE);
  const bytes = fs.readFileSync(file);
  for (const [name, { bytes: ref }] of storedBundles(root)) {
    if (!names.includes(name.split("/").at(-1)!) || !isBytesRef(ref)) continue;
    const at = ref.at + (ref.length >> 1);
    bytes[at] = bytes[at]! ^ 0x20;
  }
  fs.writeFileSync(file, bytes);
}

/** What a compile of a copy without any cache writes (lock and artifact). */
async function coldOutputs(root: string): Promise<Record<string, string>> {
  const copy = path.join(tempDir("al-bundle-bytes-cold-"), "agent");
  fs.cpSync(root, copy, { recursive: true, filter: (from) => !from.includes(`${path.sep}.assemblyline`) && !from.endsWith("plugins.lock") });
  expect((await compileAgent({ root: copy, cache: false })).ok).toBe(true);
  return outputsOf(copy);
}

/** The artifact's bundles with their SRI and stat signature now (as the compile record gives them). */
function knownArtifact(root: string): KnownArtifactFiles {
  const artifact = path.join(root, ".assemblyline", "build");
  const known = new Map<string, readonly [string, string]>();
  for (const entry of fs.readdirSync(artifact, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".mjs")) continue;
    const file = path.join(entry.parentPath, entry.name);
    known.set(file, [bundleIntegrity(fs.readFileSync(file)), statSignature(file)]);
  }
  return known;
}

const artifactDir = (root: string): string => path.join(root, ".assemblyline", "build");

/** esbuild's `build`, recording the bundles each batch is given (a rebuild of damaged bytes is not a batch). */
function countingBundler(): { built: string[]; bundler: (options: esbuild.BuildOptions & { write: false }) => Promise<esbuild.BuildResult<{ write: false }>> } {
  const built: string[] = [];
  return {
    built,
    bundler: (options) => {
      built.push(...Object.keys(options.entryPoints as Record<string, string>));
      return esbuild.build(options);
    },
  };
}

describe("the bundles' bytes in bundles-bytes.bin", () => {
  it("keeps the bytes out of bundles.bin, and appends a rebuilt bundle's bytes to the same file", async () => {
    const root = await compiledAgent();
    const index = fs.readFileSync(path.join(root, BUNDLE_CACHE_FILE));
    const bytesFile = path.join(root, BUNDLE_BYTES_FILE);
    expect(fs.readFileSync(bytesFile).subarray(0, BUNDLE_BYTES_MAGIC.length).equals(BUNDLE_BYTES_MAGIC)).toBe(true);
    expect(verified(root)).toEqual([...NAMES].sort());
    const alphaBundle = fs.readFileSync(path.join(artifactDir(root), "bundles/root/alpha/ai.assemblyline/alpha.mjs"));
    expect(index.includes(alphaBundle)).toBe(false);
    expect(fs.readFileSync(bytesFile).includes(alphaBundle)).toBe(true);
    const inode = fs.statSync(bytesFile).ino;

    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), definition("alpha 2"));
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(fs.statSync(bytesFile).ino).toBe(inode);
    expect(verified(root)).toEqual([...NAMES].sort());
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
  });

  it("never copies damaged bytes into the artifact: the bundle is built again, and the cache repaired", async () => {
    const root = await compiledAgent();
    damage(root, ["beta", "gamma"]);
    expect(verified(root)).toEqual(["alpha", "delta"]);
    // No artifact: every bundle file must be written, so every reused bundle's bytes are used.
    fs.rmSync(artifactDir(root), { recursive: true });
    const result = await compileAgent({ root });
    expect(result.ok).toBe(true);
    expect(result.diagnostics).toEqual([]);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(verified(root)).toEqual([...NAMES].sort());
  });

  it("does not read the bytes of a bundle whose artifact file is known unchanged, and verifies them where it compares", async () => {
    const root = await compiledAgent();
    damage(root, ["beta", "gamma", "delta"]);
    // One file changed; the others' artifact files are vouched for by their stat signatures.
    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), definition("alpha 2"));
    expect((await compileAgent({ root, knownArtifactFiles: knownArtifact(root) })).ok).toBe(true);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    // Not read, so not found damaged: still as they were.
    expect(verified(root)).toEqual(["alpha"]);

    // Without that knowledge each old artifact file is compared with the bundle's bytes: read,
    // found damaged, built again, and the cache repaired; the artifact is a cold compile's.
    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), definition("alpha 3"));
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(verified(root)).toEqual([...NAMES].sort());
  });

  it("reads a missing or foreign bytes file as a miss, and writes it again", async () => {
    const root = await compiledAgent();
    const bytesFile = path.join(root, BUNDLE_BYTES_FILE);
    fs.rmSync(bytesFile);
    fs.rmSync(artifactDir(root), { recursive: true });
    // A miss: every bundle goes to esbuild in the compile's batch (none is found and then rebuilt alone).
    const { built, bundler } = countingBundler();
    expect((await compileAgent({ root, bundler })).ok).toBe(true);
    expect(built.length).toBe(NAMES.length);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(verified(root)).toEqual([...NAMES].sort());

    // Another format (same length): a miss too, never its bytes.
    const before = fs.readFileSync(bytesFile);
    fs.writeFileSync(bytesFile, Buffer.concat([Buffer.from("x"), before.subarray(1)]));
    fs.rmSync(artifactDir(root), { recursive: true });
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(verified(root)).toEqual([...NAMES].sort());
  });

  it("reads a bundle whose bytes a torn append cut short as a miss, built in the batch", async () => {
    const root = await compiledAgent();
    const bytesFile = path.join(root, BUNDLE_BYTES_FILE);
    // The last bundle's bytes lose their end, as after a crash during an append.
    fs.truncateSync(bytesFile, fs.statSync(bytesFile).size - 5);
    fs.rmSync(artifactDir(root), { recursive: true });
    const { built, bundler } = countingBundler();
    expect((await compileAgent({ root, bundler })).ok).toBe(true);
    // Only the bundle cut short goes to esbuild; the others' bytes verify and are used.
    expect(built.length).toBe(1);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(verified(root)).toEqual([...NAMES].sort());
  });

  it("never reads or writes through a link: an outside file stays as it was", async () => {
    const root = await compiledAgent();
    const bytesFile = path.join(root, BUNDLE_BYTES_FILE);
    const outside = path.join(path.dirname(root), "outside.bin");
    // The outside file holds exactly the bytes the link replaces: read through the link, they would verify.
    fs.copyFileSync(bytesFile, outside);
    const kept = fs.readFileSync(outside);
    fs.rmSync(bytesFile);
    fs.symlinkSync(outside, bytesFile);
    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), definition("alpha 2"));
    fs.rmSync(artifactDir(root), { recursive: true });
    // The bundles esbuild is given: all four when the link is not read (a miss), one if it were.
    const { built, bundler } = countingBundler();
    const result = await compileAgent({ root, bundler });
    expect(result.ok).toBe(true);
    expect(built.length).toBe(NAMES.length);
    expect(outputsOf(root)).toEqual(await coldOutputs(root));
    expect(fs.readFileSync(outside).equals(kept)).toBe(true);
    expect(fs.lstatSync(bytesFile).isSymbolicLink()).toBe(true);
  });
});

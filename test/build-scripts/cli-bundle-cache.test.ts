/**
 * scripts/cli-bundle-cache.mjs: the CLI bundle's build is kept per user, by the SHA-256 of its
 * stamp and the files its script reads, with every file esbuild read and its SHA-256 and the
 * listing of their folders; a build of the same inputs in another clone writes the kept files
 * instead of bundling (the test suite's budget, docs/performance.md). An entry is used only when
 * every recorded input and folder is unchanged, only from a file of this user's that nobody else
 * can write, and only to write files the build script accepts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir, writeFiles } from "../helpers/temp-tree.js";

interface Restored {
  readonly written: readonly string[];
  readonly inputs: readonly string[];
}
interface Cache {
  restore(accept: (file: string) => boolean): Restored | undefined;
  store(inputs: readonly string[], outputs: readonly string[]): void;
}
interface CacheModule {
  cliBundleKey(repo: string, stamp: unknown, cwd: string, scriptInputs: readonly string[]): string | undefined;
  openCliBundleCache(repo: string, key: string | undefined, folder?: string, distCommon?: string): Promise<Cache | undefined>;
}
const { cliBundleKey, openCliBundleCache } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "cli-bundle-cache.mjs")).href)) as CacheModule;
const distCommon = path.join(repoRoot, "dist", "common");
const stamp = { esbuild: "0.28.2", node: "v20.19.0" };

/** A clone: a build script, one source, one package file under node_modules. */
function clone(): string {
  const repo = tempDir("al-bundle-clone-");
  writeFiles(repo, {
    "scripts/build.mjs": "// the script\n",
    "cli/a.ts": "export const a = 1;\n",
    "node_modules/x/index.js": "module.exports = 2;\n",
  });
  return repo;
}

const keyOf = (repo: string, changes: { stamp?: unknown; cwd?: string } = {}): string => cliBundleKey(repo, changes.stamp ?? stamp, changes.cwd ?? repo, [path.join(repo, "scripts/build.mjs")])!;

/** What a build of `repo` read and wrote (absolute), after writing its outputs. */
function built(repo: string, extra: Readonly<Record<string, string>> = {}): { inputs: string[]; outputs: string[] } {
  writeFiles(repo, { "dist/cli-bundle/assembly-line.cjs": "bundle\u0000\u00ff\n", "dist/bin/assembly-line.cjs": "#!/usr/bin/env node\n", ...extra });
  fs.chmodSync(path.join(repo, "dist/bin/assembly-line.cjs"), 0o755);
  return {
    inputs: [path.join(repo, "cli/a.ts"), path.join(repo, "node_modules/x/index.js")],
    outputs: ["dist/cli-bundle/assembly-line.cjs", "dist/bin/assembly-line.cjs", ...Object.keys(extra)].map((file) => path.join(repo, file)),
  };
}

/** The build script's rule, for a clone: files of `dist/cli-bundle/` and the bin. */
const acceptIn = (repo: string) => (file: string) => path.dirname(file) === path.join(repo, "dist", "cli-bundle") || file === path.join(repo, "dist", "bin", "assembly-line.cjs");

/** A user's folder holding the entry of a build in one clone; the entry's path. */
async function kept(): Promise<{ user: string; entry: string; key: string; bytes: Buffer }> {
  const user = path.join(tempDir("al-bundle-user-"), "private");
  const first = clone();
  const key = keyOf(first);
  const cache = await openCliBundleCache(first, key, user, distCommon);
  expect(cache).toBeDefined();
  expect(cache!.restore(acceptIn(first))).toBeUndefined();
  const { inputs, outputs } = built(first);
  cache!.store(inputs, outputs);
  return { user, entry: path.join(user, `cli-bundle-${key}.bin`), key, bytes: fs.readFileSync(path.join(first, "dist/cli-bundle/assembly-line.cjs")) };
}

/** Restores the entry `key` of `user` into a new clone (`prepare` changes it first). */
async function restoreIn(user: string, key: string, prepare: (repo: string) => void = () => {}): Promise<{ restored: Restored | undefined; repo: string }> {
  const repo = clone();
  prepare(repo);
  return { restored: (await openCliBundleCache(repo, key, user, distCommon))!.restore(acceptIn(repo)), repo };
}

describe("the per-user CLI bundle builds", () => {
  it("have a key of the files' contents and paths in the repository, the stamp and the working folder, not of where the clone is", () => {
    const [a, b] = [clone(), clone()];
    expect(keyOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(keyOf(a)).toBe(keyOf(b));
    expect(keyOf(a, { stamp: { ...stamp, esbuild: "0.28.3" } })).not.toBe(keyOf(a));
    expect(keyOf(a, { cwd: path.join(a, "cli") })).not.toBe(keyOf(a));
    fs.appendFileSync(path.join(b, "scripts/build.mjs"), "// changed\n");
    expect(keyOf(b)).not.toBe(keyOf(a));
    // A script input that cannot be read: no key, so nothing kept or used.
    expect(cliBundleKey(a, stamp, a, [path.join(a, "scripts/missing.mjs")])).toBeUndefined();
  });

  it("written in one clone, are written byte for byte in another of the same inputs, with their modes", async () => {
    const { user, entry, key, bytes } = await kept();
    expect(fs.readdirSync(user).filter((name) => name.startsWith("cli-bundle-"))).toEqual([path.basename(entry)]);
    expect(fs.statSync(entry).mode & 0o777).toBe(0o600);
    const { restored, repo } = await restoreIn(user, key);
    expect(restored).toBeDefined();
    expect([...restored!.written].sort()).toEqual([path.join(repo, "dist/bin/assembly-line.cjs"), path.join(repo, "dist/cli-bundle/assembly-line.cjs")]);
    expect([...restored!.inputs].sort()).toEqual([path.join(repo, "cli/a.ts"), path.join(repo, "node_modules/x/index.js")]);
    expect(fs.readFileSync(path.join(repo, "dist/cli-bundle/assembly-line.cjs")).equals(bytes)).toBe(true);
    expect(fs.statSync(path.join(repo, "dist/bin/assembly-line.cjs")).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(repo, "dist/cli-bundle/assembly-line.cjs")).mode & 0o777).toBe(0o644);
    // Another key: nothing.
    const other = clone();
    expect((await openCliBundleCache(other, keyOf(other, { stamp: { ...stamp, node: "v20.20.0" } }), user, distCommon))!.restore(acceptIn(other))).toBeUndefined();
    expect(fs.existsSync(path.join(other, "dist"))).toBe(false);
  });

  it("are not used when a recorded input changed or a file was added beside one, from a file not this user's alone, or altered", async () => {
    const { user, entry, key } = await kept();
    const misses: [string, (repo: string) => void][] = [
      ["a source changed", (repo) => fs.appendFileSync(path.join(repo, "cli/a.ts"), "export const b = 2;\n")],
      ["a package file changed", (repo) => fs.writeFileSync(path.join(repo, "node_modules/x/index.js"), "module.exports = 3;\n")],
      ["a source gone", (repo) => fs.rmSync(path.join(repo, "cli/a.ts"))],
      ["a file added beside a source", (repo) => fs.writeFileSync(path.join(repo, "cli/a.js"), "export const a = 3;\n")],
    ];
    for (const [what, prepare] of misses) {
      const { restored, repo } = await restoreIn(user, key, prepare);
      expect(restored, what).toBeUndefined();
      expect(fs.existsSync(path.join(repo, "dist")), what).toBe(false);
    }
    for (const mode of [0o620, 0o602]) {
      fs.chmodSync(entry, mode);
      expect((await restoreIn(user, key)).restored, mode.toString(8)).toBeUndefined();
    }
    fs.chmodSync(entry, 0o600);
    expect((await restoreIn(user, key)).restored).toBeDefined();
    if (process.getuid?.() === 0) {
      fs.chownSync(entry, 4321, 4321);
      expect((await restoreIn(user, key)).restored).toBeUndefined();
      fs.chownSync(entry, 0, 0);
    }
    const bytes = fs.readFileSync(entry);
    fs.writeFileSync(entry, Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes.readUInt8(bytes.length - 1) ^ 1])]), { mode: 0o600 });
    const { restored, repo } = await restoreIn(user, key);
    expect(restored).toBeUndefined();
    expect(fs.existsSync(path.join(repo, "dist"))).toBe(false);
  });

  it("write nothing when one of the kept files is not the build's to write, and keep nothing that names the clone's own path or read outside it", async () => {
    const user = path.join(tempDir("al-bundle-user-"), "private");
    const writer = clone();
    const key = keyOf(writer);
    // Kept with a file the build script does not write (only the user could have made such an entry).
    const { inputs, outputs } = built(writer, { "scripts/evil.mjs": "evil\n" });
    (await openCliBundleCache(writer, key, user, distCommon))!.store(inputs, outputs);
    expect(fs.existsSync(path.join(user, `cli-bundle-${key}.bin`))).toBe(true);
    const { restored, repo } = await restoreIn(user, key);
    expect(restored).toBeUndefined();
    expect(fs.existsSync(path.join(repo, "dist"))).toBe(false);
    expect(fs.readFileSync(path.join(repo, "cli/a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(fs.existsSync(path.join(repo, "scripts/evil.mjs"))).toBe(false);
    // A build whose output holds the repository's absolute path is not kept.
    const other = path.join(tempDir("al-bundle-user-"), "private");
    const pathful = clone();
    const own = built(pathful, { "dist/cli-bundle/map.json": JSON.stringify({ file: path.join(pathful, "dist/cli-bundle/assembly-line.cjs") }) });
    (await openCliBundleCache(pathful, keyOf(pathful), other, distCommon))!.store(own.inputs, own.outputs);
    expect(fs.readdirSync(other).filter((name) => name.startsWith("cli-bundle-"))).toEqual([]);
    // Nor one that read a file outside the repository (a package installed above it).
    const above = tempDir("al-bundle-above-");
    writeFiles(above, { "node_modules/y/index.js": "module.exports = 4;\n" });
    const outside = clone();
    const read = built(outside);
    (await openCliBundleCache(outside, keyOf(outside), other, distCommon))!.store([...read.inputs, path.join(above, "node_modules/y/index.js")], read.outputs);
    expect(fs.readdirSync(other).filter((name) => name.startsWith("cli-bundle-"))).toEqual([]);
  });
});

/**
 * scripts/typescript-copy.mjs: the CLI bundle's trimmed TypeScript is kept per user, keyed by
 * content (the test suite's budget, docs/performance.md), so a fresh clone copies it instead of
 * trimming and minifying again. The bytes shipped stay the same: a copy made from the same
 * installed file at another path (another clone) is byte for byte `dist/`'s, and the per-user
 * copy gives exactly those bytes; a per-user file that is not this user's alone, or altered, is
 * not used; another installed file, trim script input or name list is another key.
 */
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

interface CopyModule {
  typescriptCopyKey(installed: Uint8Array, names: readonly string[], esbuildVersion: string): string;
  writeTypeScriptCopy(options: { installedTypeScript: string; names: readonly string[]; outfile: string; build: (options: object) => Promise<unknown>; esbuildVersion: string; loadTypeScript: () => Promise<unknown>; userFolder?: string | null }): Promise<"user" | "made">;
}
const { typescriptCopyKey, writeTypeScriptCopy } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "typescript-copy.mjs")).href)) as CopyModule;
const { typescriptNamesUsed } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "trim-typescript.mjs")).href)) as { typescriptNamesUsed(texts: readonly string[]): string[] };
const esbuild = await import("esbuild");

/** The installed file the build copies, resolved as scripts/build-cli-bundle.mjs resolves it. */
const installedTypeScript = createRequire(createRequire(createRequire(path.join(repoRoot, "scripts", "x.mjs")).resolve("ts-morph")).resolve("@ts-morph/common")).resolve("./typescript.js");
/** The names the build keeps: what the compiler's sources read of `ts`. */
const names = typescriptNamesUsed(
  fs
    .readdirSync(path.join(repoRoot, "compiler"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts"))
    .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name), "utf8")),
);
const shipped = path.join(repoRoot, "dist", "cli-bundle", "typescript.cjs");
/** A `loadTypeScript` that fails the test's call: the copy must come from the per-user folder. */
const noTrim = (): Promise<never> => Promise.reject(new Error("made again"));

describe("the per-user TypeScript copy", () => {
  let user: string;
  let clone: string;
  beforeAll(async () => {
    // Another clone: the same installed bytes at another path.
    clone = path.join(tempDir("al-ts-clone-"), "node_modules", "@ts-morph", "common", "dist");
    fs.mkdirSync(clone, { recursive: true });
    fs.copyFileSync(installedTypeScript, path.join(clone, "typescript.js"));
    user = path.join(tempDir("al-ts-user-"), "private");
  });

  it("made in another clone, is byte for byte the copy dist/ ships, and is kept per user (mode 0600)", async () => {
    const outfile = path.join(tempDir("al-ts-out-"), "typescript.cjs");
    const made = await writeTypeScriptCopy({ installedTypeScript: path.join(clone, "typescript.js"), names, outfile, build: esbuild.build, esbuildVersion: esbuild.version, loadTypeScript: async () => (await import("typescript")).default, userFolder: user });
    expect(made).toBe("made");
    expect(fs.readFileSync(outfile).equals(fs.readFileSync(shipped))).toBe(true);
    const kept = fs.readdirSync(user).filter((name) => /^typescript-[0-9a-f]{64}\.bin$/.test(name));
    expect(kept).toHaveLength(1);
    expect(fs.statSync(path.join(user, kept[0]!)).mode & 0o777).toBe(0o600);
  }, 120_000);

  it("is copied from the per-user folder in the next clone, without a trim, with the same bytes", async () => {
    const outfile = path.join(tempDir("al-ts-out-"), "cli-bundle", "typescript.cjs");
    expect(await writeTypeScriptCopy({ installedTypeScript, names, outfile, build: esbuild.build, esbuildVersion: esbuild.version, loadTypeScript: noTrim, userFolder: user })).toBe("user");
    expect(fs.readFileSync(outfile).equals(fs.readFileSync(shipped))).toBe(true);
  });

  it("is not taken from a file group or others can write, another user's, an altered one, or a folder that is not private", async () => {
    const [name] = fs.readdirSync(user).filter((entry) => entry.startsWith("typescript-"));
    const file = path.join(user, name!);
    const outfile = path.join(tempDir("al-ts-out-"), "typescript.cjs");
    const attempt = (folder = user) => writeTypeScriptCopy({ installedTypeScript, names, outfile, build: esbuild.build, esbuildVersion: esbuild.version, loadTypeScript: noTrim, userFolder: folder });
    for (const mode of [0o620, 0o602]) {
      fs.chmodSync(file, mode);
      await expect(attempt(), mode.toString(8)).rejects.toThrow("made again");
    }
    fs.chmodSync(file, 0o600);
    expect(await attempt()).toBe("user");
    if (process.getuid?.() === 0) {
      // As root (the suite here), another user's file by chown; the rule itself is `isPrivateStat` (test/startup/isolation-cache.test.ts).
      fs.chownSync(file, 4321, 4321);
      await expect(attempt()).rejects.toThrow("made again");
      fs.chownSync(file, 0, 0);
    }
    fs.chmodSync(user, 0o770);
    await expect(attempt()).rejects.toThrow("made again");
    fs.chmodSync(user, 0o700);
    const bytes = fs.readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 10) ^ 1, bytes.length - 10);
    fs.writeFileSync(file, bytes, { mode: 0o600 });
    await expect(attempt()).rejects.toThrow("made again");
  });

  it("is keyed by what decides its bytes: the installed file's content, the names kept, esbuild's version", () => {
    const installed = fs.readFileSync(installedTypeScript);
    const key = typescriptCopyKey(installed, names, esbuild.version);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(typescriptCopyKey(Buffer.from(installed), [...names], esbuild.version)).toBe(key);
    expect(typescriptCopyKey(Buffer.concat([installed, Buffer.from("\n")]), names, esbuild.version)).not.toBe(key);
    expect(typescriptCopyKey(installed, names.slice(1), esbuild.version)).not.toBe(key);
    expect(typescriptCopyKey(installed, names, `${esbuild.version}-other`)).not.toBe(key);
  });
});

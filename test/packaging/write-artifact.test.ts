/**
 * `writeArtifact` replaces the artifact directory atomically: on any failure the previous
 * artifact stays byte-identical and no temporary directory is left beside it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { MANIFEST_FILE, type ArtifactManifest } from "../../contract/manifest.js";
import { bundleIntegrity, serializeManifest, writeArtifact, type PackagingResult } from "../../packaging/index.js";
import { DeferredBundle, type BundleBytes } from "../../packaging/bundle-bytes.js";
import { tempDir } from "../helpers/temp-tree.js";
import { echoManifest, packageAssetsEcho } from "./helpers.js";

let packaged: PackagingResult;

beforeAll(async () => {
  packaged = await packageAssetsEcho();
});
function manifestFor(result: PackagingResult, lockText = "lock v1\n"): ArtifactManifest {
  return echoManifest(result, lockText);
}

/** Every file under `dir` as path → base64 (a byte-exact picture of a directory). */
function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file).split(path.sep).join("/")] = fs.readFileSync(file).toString("base64");
  }
  return out;
}

function siblingsOf(dir: string): string[] {
  return fs.readdirSync(path.dirname(dir)).sort();
}

describe("writeArtifact", () => {
  test("writes the manifest, the bundles and extra files", async () => {
    const out = path.join(tempDir(), ".assemblyline", "build");
    const manifest = manifestFor(packaged);
    await writeArtifact(out, packaged.bundles, manifest, new Map([["skills/demo/SKILL.md", "# Demo\n"]]));
    const tree = readTree(out);
    expect(Object.keys(tree).sort()).toEqual([
      "bundles/root/assets/ai.assemblyline/echo.mjs",
      MANIFEST_FILE,
      "skills/demo/SKILL.md",
    ].sort());
    expect(Buffer.from(tree[MANIFEST_FILE]!, "base64")).toEqual(Buffer.from(serializeManifest(manifest)));
    const written = JSON.parse(fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8")) as ArtifactManifest;
    expect(written).toEqual(manifest);
    const bundle = fs.readFileSync(path.join(out, "bundles/root/assets/ai.assemblyline/echo.mjs"));
    expect(bundleIntegrity(bundle)).toBe(written.surfaces["."]!.tools["echo"]!.integrity);
    expect(siblingsOf(out)).toEqual(["build"]);
  });

  test("the manifest is canonical JSON: manifestVersion first, then keys in code-unit order, LF, trailing newline", () => {
    const text = Buffer.from(serializeManifest(manifestFor(packaged))).toString("utf8");
    expect(text.startsWith('{\n  "manifestVersion": 1,\n  "lockIntegrity": "sha512-')).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text).not.toContain("\r");
    expect(text.indexOf('"aliases"')).toBeLessThan(text.indexOf('"bundle"'));
  });

  test("replaces a previous artifact completely (stale files disappear)", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([["stale.txt", "old"]]));
    await writeArtifact(out, packaged.bundles, manifestFor(packaged, "lock v2\n"));
    expect(fs.existsSync(path.join(out, "stale.txt"))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8")).lockIntegrity).toBe(bundleIntegrity(Buffer.from("lock v2\n")));
    expect(siblingsOf(out)).toEqual(["build"]);
  });

  test("a failure mid-way leaves the old artifact byte-identical and no temporary directory behind", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([["notes/readme.txt", "first\n"]]));
    const before = readTree(out);
    // "conflict" must be both a file and a directory: the write fails after other files were written.
    const conflicting = new Map([["conflict", "a file"], ["conflict/inner.txt", "a file inside it"]]);
    await expect(writeArtifact(out, packaged.bundles, manifestFor(packaged, "lock v2\n"), conflicting)).rejects.toThrow(/EISDIR|ENOTDIR|EEXIST/);
    expect(readTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual(["build"]);
  });

  test("a manifest that disagrees with the bundles is refused before the disk is touched", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor(packaged));
    const before = readTree(out);
    const manifest = manifestFor(packaged);
    const tampered: ArtifactManifest = {
      ...manifest,
      surfaces: { ".": { ...manifest.surfaces["."]!, tools: { echo: { ...manifest.surfaces["."]!.tools["echo"]!, integrity: bundleIntegrity(Buffer.from("x")) } } } },
    };
    await expect(writeArtifact(out, packaged.bundles, tampered)).rejects.toThrow(/hashes differently/);
    await expect(writeArtifact(out, new Map(), manifest)).rejects.toThrow(/not among the bundles/);
    expect(readTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual(["build"]);
  });

  test.each([["../escape.txt"], ["/absolute.txt"], ["a//b.txt"], ["a\\b.txt"], ["MANIFEST.JSON"]])(
    "refuses the artifact path %s",
    async (file) => {
      const out = path.join(tempDir(), "build");
      await expect(writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([[file, "x"]]))).rejects.toThrow(/artifact path/);
      expect(fs.existsSync(out)).toBe(false);
    },
  );

  test("never replaces a directory that is not an artifact", async () => {
    const out = path.join(tempDir(), "src");
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, "precious.ts"), "keep me");
    await expect(writeArtifact(out, packaged.bundles, manifestFor(packaged))).rejects.toThrow(/not an artifact/);
    expect(fs.readFileSync(path.join(out, "precious.ts"), "utf8")).toBe("keep me");
    expect(siblingsOf(out)).toEqual(["src"]);
  });

  test("replaces its own folder that lost its manifest (owned), never a foreign one (security re-check 132)", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor(packaged));
    fs.rmSync(path.join(out, "manifest.json"));
    await expect(writeArtifact(out, packaged.bundles, manifestFor(packaged))).rejects.toThrow(/not an artifact/);
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map(), undefined, new Map(), { owned: true });
    expect(fs.existsSync(path.join(out, "manifest.json"))).toBe(true);
  });

  test("links unchanged files while `meanwhile` runs, and leaves the old artifact's removal to the caller when asked", async () => {
    const out = path.join(tempDir(), "build");
    const bundle = "bundles/root/assets/ai.assemblyline/echo.mjs";
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([["skills/a/b/SKILL.md", "# Old\n"], ["stale.txt", "old"]]));
    const inode = fs.statSync(path.join(out, bundle)).ino;
    const seen: { manifest: string; siblings: string[] }[] = [];
    const meanwhile = (): void => void seen.push({ manifest: fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8"), siblings: siblingsOf(out) });
    const before = fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8");
    const written = await writeArtifact(out, packaged.bundles, manifestFor(packaged, "lock v2\n"), new Map([["skills/a/b/SKILL.md", "# New\n"]]), undefined, new Map([[bundle, undefined]]), { meanwhile, deferRemoval: true });
    // Run once, while the old artifact was intact and the new one being written beside it.
    expect(seen).toHaveLength(1);
    expect(seen[0]!.manifest).toBe(before);
    expect(seen[0]!.siblings.filter((name) => name.startsWith(".build.tmp-"))).toHaveLength(1);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8")).lockIntegrity).toBe(bundleIntegrity(Buffer.from("lock v2\n")));
    await written.removal;
    expect(siblingsOf(out)).toEqual(["build"]);
    expect(Object.keys(readTree(out)).sort()).toEqual([bundle, MANIFEST_FILE, "skills/a/b/SKILL.md"].sort());
    expect(fs.readFileSync(path.join(out, "skills/a/b/SKILL.md"), "utf8")).toBe("# New\n");
    const linked = fs.statSync(path.join(out, bundle));
    expect([linked.ino, linked.nlink]).toEqual([inode, 1]);
  });

  test("an unchanged bundle that cannot be linked is loaded before `meanwhile` runs, so a repair of its damaged stored bytes is in the caches' save", async () => {
    const out = path.join(tempDir(), "build");
    const bundle = "bundles/root/assets/ai.assemblyline/echo.mjs";
    await writeArtifact(out, packaged.bundles, manifestFor(packaged));
    // Named unchanged, but gone from the old artifact: the link fails and the file is written instead.
    fs.rmSync(path.join(out, bundle));
    const good = packaged.bundles.get(bundle);
    if (!(good instanceof Uint8Array)) throw new Error("bundleTools without a cache gives bytes");
    const events: string[] = [];
    const deferred = new DeferredBundle({
      bundle,
      integrity: bundleIntegrity(good),
      size: good.length,
      read: () => Buffer.from("damaged"),
      rebuild: async () => good,
      repaired: () => void events.push("repaired"),
    });
    const bundles = new Map<string, BundleBytes>(packaged.bundles);
    bundles.set(bundle, deferred);
    await writeArtifact(out, bundles, manifestFor(packaged, "lock v2\n"), new Map(), undefined, new Map([[bundle, undefined]]), { meanwhile: () => void events.push("meanwhile") });
    expect(events).toEqual(["repaired", "meanwhile"]);
    expect(Buffer.from(readTree(out)[bundle]!, "base64").equals(Buffer.from(good))).toBe(true);
  });

  test("without deferRemoval the old artifact is gone when the write resolves", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([["a/b/c/old.txt", "old"]]));
    const written = await writeArtifact(out, packaged.bundles, manifestFor(packaged, "lock v2\n"));
    expect(siblingsOf(out)).toEqual(["build"]);
    await expect(written.removal).resolves.toBeUndefined();
  });

  test("a `meanwhile` that throws fails the write and leaves the old artifact byte-identical", async () => {
    const out = path.join(tempDir(), "build");
    const bundle = "bundles/root/assets/ai.assemblyline/echo.mjs";
    await writeArtifact(out, packaged.bundles, manifestFor(packaged), new Map([["notes/readme.txt", "first\n"]]));
    const before = readTree(out);
    const meanwhile = (): void => {
      throw new Error("meanwhile failed");
    };
    await expect(writeArtifact(out, packaged.bundles, manifestFor(packaged, "lock v2\n"), new Map(), undefined, new Map([[bundle, undefined]]), { meanwhile })).rejects.toThrow(/meanwhile failed/);
    expect(readTree(out)).toEqual(before);
    expect(siblingsOf(out)).toEqual(["build"]);
  });

  test("an empty existing directory is replaced", async () => {
    const out = path.join(tempDir(), "build");
    fs.mkdirSync(out);
    await writeArtifact(out, packaged.bundles, manifestFor(packaged));
    expect(fs.existsSync(path.join(out, MANIFEST_FILE))).toBe(true);
  });
});

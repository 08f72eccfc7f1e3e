/**
 * The artifact's spare (`packaging/artifact-spare.ts`, issue 14 item 4): `writeArtifact` with
 * `spare` keeps the replaced artifact beside the new one, and the next write starts from it —
 * keeping only the files that are the very files the replaced artifact holds with the new bytes,
 * removing everything else (links as links, never followed), and leaving the live artifact as
 * it was when anything fails.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { MANIFEST_FILE, type ArtifactManifest } from "../../contract/manifest.js";
import { fileIdentity, keepAsSpare, spareOf } from "../../packaging/artifact-spare.js";
import { bundleIntegrity, writeArtifact, type PackagingResult } from "../../packaging/index.js";
import { tempDir } from "../helpers/temp-tree.js";
import { treeOf } from "../helpers/artifact-tree.js";
import { echoManifest, packageAssetsEcho } from "./helpers.js";

const BUNDLE = "bundles/root/assets/ai.assemblyline/echo.mjs";
let packaged: PackagingResult<Uint8Array>;

beforeAll(async () => {
  packaged = await packageAssetsEcho();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function manifestFor(lockText: string): ArtifactManifest {
  return echoManifest(packaged, lockText);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The unchanged map the compile passes: `BUNDLE` with the identity of its file in `out`. */
function bundleUnchanged(out: string): Map<string, ReturnType<typeof fileIdentity>> {
  return new Map([[BUNDLE, fileIdentity(path.join(out, ...BUNDLE.split("/")))]]);
}

/** Puts `stray.txt` into the spare of `out` and makes its unlink fail (EPERM), so the spare cannot be fitted. */
function strayThatCannotBeUnlinked(out: string): void {
  fs.writeFileSync(path.join(spareOf(out), "stray.txt"), "stray\n");
  const unlink = fs.promises.unlink;
  vi.spyOn(fs.promises, "unlink").mockImplementation(async (file) => {
    if (String(file).endsWith("stray.txt")) throw Object.assign(new Error("EPERM: operation not permitted"), { code: "EPERM" });
    return unlink(file);
  });
}

/** Writes the first two artifacts, so that `out` has a spare (the first). */
async function withSpare(out: string): Promise<void> {
  await writeArtifact(out, packaged.bundles, manifestFor("lock v1\n"), new Map([["skills/a/SKILL.md", "# One\n"], ["notes/deep/old.txt", "old\n"]]), undefined, new Map(), { spare: true });
  await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), new Map([["skills/a/SKILL.md", "# Two\n"]]), undefined, bundleUnchanged(out), { spare: true });
}

describe("writeArtifact with a spare", () => {
  test("keeps the replaced artifact as the spare, with the unchanged file linked into both", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor("lock v1\n"), new Map([["notes/deep/old.txt", "old\n"]]), undefined, new Map(), { spare: true });
    // A first write has nothing to keep.
    expect(fs.readdirSync(path.dirname(out))).toEqual(["build"]);
    const inode = fs.statSync(path.join(out, BUNDLE)).ino;
    await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    expect(fs.readdirSync(path.dirname(out)).sort()).toEqual([".build.spare", "build"]);
    expect(treeOf(spareOf(out), { hashes: true })).toContain(`notes/deep/old.txt: ${sha256("old\n")}`);
    expect(treeOf(out, { hashes: true })).not.toContain("notes/");
    const bundle = fs.statSync(path.join(out, BUNDLE));
    expect([bundle.ino, bundle.nlink]).toEqual([inode, 2]);
  });

  test("starts from the spare: keeps the very same files, removes everything else without following links, writes the rest", async () => {
    const base = tempDir();
    const out = path.join(base, "build");
    await withSpare(out);
    const spare = spareOf(out);
    const bundleInode = fs.statSync(path.join(out, BUNDLE)).ino;
    // Someone's files outside, which links in the spare point to.
    const outside = path.join(base, "outside");
    fs.mkdirSync(path.join(outside, "a"), { recursive: true });
    fs.writeFileSync(path.join(outside, "a", "SKILL.md"), "outside\n");
    fs.writeFileSync(path.join(outside, "secret.txt"), "outside\n");
    fs.rmSync(path.join(spare, "skills"), { recursive: true });
    fs.symlinkSync(outside, path.join(spare, "skills"));
    fs.symlinkSync(path.join(outside, "secret.txt"), path.join(spare, "link.txt"));
    fs.mkdirSync(path.join(spare, "extra", "folder"), { recursive: true });
    fs.writeFileSync(path.join(spare, "extra", "folder", "f.txt"), "extra\n");

    const extra = new Map([["skills/a/SKILL.md", "# Three!\n"]]);
    await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), extra, undefined, bundleUnchanged(out), { spare: true });

    const fresh = path.join(tempDir(), "build");
    await writeArtifact(fresh, packaged.bundles, manifestFor("lock v3\n"), extra);
    expect(treeOf(out, { hashes: true })).toEqual(treeOf(fresh, { hashes: true }));
    expect(fs.readFileSync(path.join(out, "skills", "a", "SKILL.md"), "utf8")).toBe("# Three!\n");
    expect(fs.readFileSync(path.join(out, MANIFEST_FILE)).equals(fs.readFileSync(path.join(fresh, MANIFEST_FILE)))).toBe(true);
    // Kept from the spare: the same file as before, in the new artifact and the new spare.
    expect(fs.statSync(path.join(out, BUNDLE)).ino).toBe(bundleInode);
    expect(fs.statSync(path.join(spareOf(out), BUNDLE)).ino).toBe(bundleInode);
    // Nothing outside was followed or removed.
    expect(treeOf(outside, { hashes: true })).toEqual(["a/", `a/SKILL.md: ${sha256("outside\n")}`, `secret.txt: ${sha256("outside\n")}`]);
    expect(fs.readdirSync(base).sort()).toEqual([".build.spare", "build", "outside"]);
  });

  test("a file of the spare with the right bytes that is not the replaced artifact's file is not kept", async () => {
    const out = path.join(tempDir(), "build");
    await withSpare(out);
    const copy = path.join(spareOf(out), ...BUNDLE.split("/"));
    const bytes = fs.readFileSync(copy);
    fs.rmSync(copy);
    fs.writeFileSync(copy, bytes);
    const copyInode = fs.statSync(copy).ino;
    const liveInode = fs.statSync(path.join(out, BUNDLE)).ino;
    await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    // Linked from the replaced artifact instead; the copy was removed.
    expect(fs.statSync(path.join(out, BUNDLE)).ino).toBe(liveInode);
    expect(fs.statSync(path.join(out, BUNDLE)).ino).not.toBe(copyInode);
  });

  test("a spare that is a link is removed as a link, never followed", async () => {
    const base = tempDir();
    const out = path.join(base, "build");
    await writeArtifact(out, packaged.bundles, manifestFor("lock v1\n"), new Map(), undefined, new Map(), { spare: true });
    const outside = path.join(base, "outside");
    fs.mkdirSync(path.join(outside, "bundles"), { recursive: true });
    fs.writeFileSync(path.join(outside, "keep.txt"), "mine\n");
    fs.symlinkSync(outside, spareOf(out));
    await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    expect(treeOf(outside, { hashes: true })).toEqual(["bundles/", `keep.txt: ${sha256("mine\n")}`]);
    // The replaced artifact is the spare now, a folder of its own.
    expect(fs.lstatSync(spareOf(out)).isDirectory()).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(out, MANIFEST_FILE), "utf8")).lockIntegrity).toBe(bundleIntegrity(Buffer.from("lock v2\n")));
  });

  test("a spare that cannot be fitted is dropped, and the artifact written into a fresh folder", async () => {
    const base = tempDir();
    const out = path.join(base, "build");
    await withSpare(out);
    strayThatCannotBeUnlinked(out);
    await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    const fresh = path.join(tempDir(), "build");
    await writeArtifact(fresh, packaged.bundles, manifestFor("lock v3\n"));
    expect(treeOf(out, { hashes: true })).toEqual(treeOf(fresh, { hashes: true }));
    // No temporary left; the replaced artifact is the new spare.
    expect(fs.readdirSync(base).sort()).toEqual([".build.spare", "build"]);
    expect(treeOf(spareOf(out), { hashes: true })).not.toContain(`stray.txt: ${sha256("stray\n")}`);
  });

  test("a file of the spare that is the live file is rewritten when its bytes change", async () => {
    const out = path.join(tempDir(), "build");
    await withSpare(out);
    // The spare's bundle is the live bundle (linked at the last write); the new artifact has other bytes there.
    expect(fs.statSync(path.join(spareOf(out), ...BUNDLE.split("/"))).ino).toBe(fs.statSync(path.join(out, ...BUNDLE.split("/"))).ino);
    const bytes = Buffer.from("export default { changed: true };\n");
    const manifest = manifestFor("lock v3\n");
    const echo = manifest.surfaces["."]!.tools["echo"]!;
    const changed: ArtifactManifest = { ...manifest, surfaces: { ".": { ...manifest.surfaces["."]!, tools: { echo: { ...echo, integrity: bundleIntegrity(bytes) } } } } };
    await writeArtifact(out, new Map([[BUNDLE, bytes]]), changed, new Map(), undefined, new Map(), { spare: true });
    expect(fs.readFileSync(path.join(out, ...BUNDLE.split("/"))).equals(bytes)).toBe(true);
    // The spare (the artifact just replaced) still holds the old bytes: nothing was written through the shared file.
    expect(fs.readFileSync(path.join(spareOf(out), ...BUNDLE.split("/"))).equals(packaged.bundles.get(BUNDLE)!)).toBe(true);
  });

  test("a spare that can be neither fitted nor removed stays in its temporary folder; the artifact is written into another", async () => {
    const base = tempDir();
    const out = path.join(base, "build");
    await withSpare(out);
    strayThatCannotBeUnlinked(out);
    const rm = fs.promises.rm;
    vi.spyOn(fs.promises, "rm").mockImplementation(async (file, options) => {
      if (String(file).endsWith(`${path.sep}spare`)) throw Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" });
      return rm(file, options);
    });
    await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    const fresh = path.join(tempDir(), "build");
    await writeArtifact(fresh, packaged.bundles, manifestFor("lock v3\n"));
    expect(treeOf(out, { hashes: true })).toEqual(treeOf(fresh, { hashes: true }));
    const left = fs.readdirSync(base).filter((name) => name.startsWith(".build.tmp-"));
    expect(left).toHaveLength(1);
    expect(fs.existsSync(path.join(base, left[0]!, "spare", "stray.txt"))).toBe(true);
  });

  test("the artifact folder has a fresh folder's mode, whatever the spare's was", async () => {
    const out = path.join(tempDir(), "build");
    await withSpare(out);
    fs.chmodSync(spareOf(out), 0o755);
    await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    const fresh = path.join(tempDir(), "build");
    await writeArtifact(fresh, packaged.bundles, manifestFor("lock v3\n"));
    expect(fs.statSync(out).mode & 0o777).toBe(fs.statSync(fresh).mode & 0o777);
  });

  test("a write that fails leaves the live artifact byte-identical and no temporary", async () => {
    const base = tempDir();
    const out = path.join(base, "build");
    await withSpare(out);
    const before = treeOf(out, { hashes: true });
    const manifest = fs.readFileSync(path.join(out, MANIFEST_FILE));
    const meanwhile = (): void => {
      throw new Error("meanwhile failed");
    };
    await expect(writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true, meanwhile })).rejects.toThrow(/meanwhile failed/);
    expect(treeOf(out, { hashes: true })).toEqual(before);
    expect(fs.readFileSync(path.join(out, MANIFEST_FILE)).equals(manifest)).toBe(true);
    // The claimed spare went with the temporary folder: the next write starts fresh.
    expect(fs.readdirSync(base)).toEqual(["build"]);
  });
});

describe("writeArtifact's untouched files", () => {
  /** `lstat` signature (size, times in ns, inode) of `file`. */
  const signature = (file: string): string => {
    const stat = fs.lstatSync(file, { bigint: true });
    return `${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`;
  };

  test("are the files kept in the spare, their stat (change time included) as before the write", async () => {
    const out = path.join(tempDir(), "build");
    await withSpare(out);
    const before = signature(path.join(out, ...BUNDLE.split("/")));
    const written = await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    expect([...written.untouched]).toEqual([BUNDLE]);
    expect(signature(path.join(out, ...BUNDLE.split("/")))).toBe(before);
  });

  test("are none when the replaced artifact is removed instead of kept as the spare (each unlink moves the shared file's change time)", async () => {
    const out = path.join(tempDir(), "build");
    await withSpare(out);
    const before = signature(path.join(out, ...BUNDLE.split("/")));
    // Another spare appears meanwhile: the replaced artifact cannot be kept and is removed.
    const meanwhile = (): void => {
      fs.mkdirSync(path.join(spareOf(out), "theirs"), { recursive: true });
    };
    // The clock ticks between the comparison and the removal's unlinks.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const written = await writeArtifact(out, packaged.bundles, manifestFor("lock v3\n"), new Map(), undefined, bundleUnchanged(out), { spare: true, meanwhile });
    expect(fs.readdirSync(spareOf(out))).toEqual(["theirs"]);
    expect(signature(path.join(out, ...BUNDLE.split("/")))).not.toBe(before);
    expect([...written.untouched]).toEqual([]);
  });

  test("are none without a spare (the unchanged files are linked)", async () => {
    const out = path.join(tempDir(), "build");
    await writeArtifact(out, packaged.bundles, manifestFor("lock v1\n"), new Map(), undefined, new Map(), { spare: true });
    const written = await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), new Map(), undefined, bundleUnchanged(out), { spare: true });
    expect([...written.untouched]).toEqual([]);
  });
});

describe("keepAsSpare", () => {
  test("leaves a spare another write kept meanwhile, and says so", async () => {
    const base = tempDir();
    const target = path.join(base, "build");
    fs.mkdirSync(path.join(spareOf(target), "theirs"), { recursive: true });
    const backup = path.join(base, ".build.old-x");
    fs.mkdirSync(path.join(backup, "mine"), { recursive: true });
    expect(await keepAsSpare(backup, target)).toBe(false);
    expect(fs.readdirSync(spareOf(target))).toEqual(["theirs"]);
    fs.rmSync(spareOf(target), { recursive: true });
    expect(await keepAsSpare(backup, target)).toBe(true);
    expect(fs.readdirSync(spareOf(target))).toEqual(["mine"]);
  });
});

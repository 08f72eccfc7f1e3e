/**
 * The artifact's staging folder made ahead (`packaging/artifact-staging.ts`, issue 14 item 4):
 * `writeArtifact` with `staged` writes into it instead of a fresh temporary folder, and what the
 * writer's atomic replacement promises still holds — the new tree is exactly a fresh write's (a
 * folder made ahead for a file the new artifact no longer has is gone), no temporary is left, a
 * failed write leaves the live artifact byte-identical, and nothing is made where the writer
 * would refuse to write.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, test } from "vitest";
import { type ArtifactManifest } from "../../contract/manifest.js";
import { spareOf } from "../../packaging/artifact-spare.js";
import { stageArtifactFolders } from "../../packaging/artifact-staging.js";
import { writeArtifact, type PackagingResult } from "../../packaging/index.js";
import { tempDir } from "../helpers/temp-tree.js";
import { treeOf } from "../helpers/artifact-tree.js";
import { echoManifest, packageAssetsEcho } from "./helpers.js";

const BUNDLE = "bundles/root/assets/ai.assemblyline/echo.mjs";
let packaged: PackagingResult<Uint8Array>;

beforeAll(async () => {
  packaged = await packageAssetsEcho();
});

function manifestFor(lockText: string): ArtifactManifest {
  return echoManifest(packaged, lockText);
}

/** The first artifact in `<agent>/build`, with a file in `notes/deep/` that the second no longer has. */
async function firstArtifact(): Promise<{ root: string; out: string }> {
  const root = tempDir();
  const out = path.join(root, "build");
  await writeArtifact(out, packaged.bundles, manifestFor("lock v1\n"), new Map([["skills/a/SKILL.md", "# One\n"], ["notes/deep/old.txt", "old\n"]]));
  return { root, out };
}

/** The files of the first artifact (what the compile record names), artifact-relative. */
const FIRST_FILES = ["manifest.json", BUNDLE, "skills/a/SKILL.md", "notes/deep/old.txt"];
const SECOND_EXTRA = new Map([["skills/a/SKILL.md", "# Two\n"], ["more/new.txt", "new\n"]]);

/** A fresh write of the second artifact, for comparison. */
async function freshSecond(): Promise<string[]> {
  const out = path.join(tempDir(), "build");
  await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), SECOND_EXTRA);
  return treeOf(out, { hashes: true });
}

describe("writeArtifact into a staging folder made ahead", () => {
  test("writes the new artifact into it: exactly a fresh write's tree, the folders only the old artifact had removed, no temporary left", async () => {
    const { root, out } = await firstArtifact();
    const staged = stageArtifactFolders(root, out, FIRST_FILES);
    expect(staged).toBeDefined();
    // The staging folder is the writer's own kind of temporary, beside the artifact.
    expect(fs.readdirSync(root).filter((name) => /^\.build\.tmp-[A-Za-z0-9]{6}$/.test(name))).toHaveLength(1);
    await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), SECOND_EXTRA, root, new Map(), { staged });
    expect(treeOf(out, { hashes: true })).toEqual(await freshSecond());
    expect(treeOf(out, { hashes: true })).not.toContain("notes/");
    expect(fs.readdirSync(root)).toEqual(["build"]);
    // Taken once: the compile's discard afterwards leaves the new artifact alone.
    await staged!.discard();
    expect(treeOf(out, { hashes: true })).toEqual(await freshSecond());
  });

  test("with a spare wanted, writes into the staging folder and keeps the replaced artifact as the spare", async () => {
    const { root, out } = await firstArtifact();
    const before = treeOf(out, { hashes: true });
    const staged = stageArtifactFolders(root, out, FIRST_FILES);
    await writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), SECOND_EXTRA, root, new Map(), { staged, spare: true });
    expect(treeOf(out, { hashes: true })).toEqual(await freshSecond());
    expect(fs.readdirSync(root).sort()).toEqual([".build.spare", "build"]);
    expect(treeOf(spareOf(out), { hashes: true })).toEqual(before);
  });

  test("a write that fails leaves the live artifact byte-identical and removes the staging folder", async () => {
    const { root, out } = await firstArtifact();
    const before = treeOf(out, { hashes: true });
    const staged = stageArtifactFolders(root, out, FIRST_FILES);
    // "conflict" must be both a file and a folder: the write fails after other files were written.
    const conflicting = new Map([["conflict", "a file"], ["conflict/inner.txt", "a file inside it"]]);
    await expect(writeArtifact(out, packaged.bundles, manifestFor("lock v2\n"), conflicting, root, new Map(), { staged })).rejects.toThrow(/EISDIR|ENOTDIR|EEXIST/);
    expect(treeOf(out, { hashes: true })).toEqual(before);
    expect(fs.readdirSync(root)).toEqual(["build"]);
  });

  test("a staging folder the writer does not take is removed by discard", async () => {
    const { root, out } = await firstArtifact();
    const staged = stageArtifactFolders(root, out, FIRST_FILES);
    expect(fs.readdirSync(root)).toHaveLength(2);
    await staged!.discard();
    expect(fs.readdirSync(root)).toEqual(["build"]);
    expect(await staged!.take()).toBeUndefined();
  });
});

describe("stageArtifactFolders makes nothing", () => {
  test("without an artifact to replace (a first compile)", () => {
    const root = tempDir();
    expect(stageArtifactFolders(root, path.join(root, "build"), FIRST_FILES)).toBeUndefined();
    expect(fs.readdirSync(root)).toEqual([]);
  });

  test("with a spare beside the artifact (the writer fits that instead)", async () => {
    const { root, out } = await firstArtifact();
    fs.mkdirSync(spareOf(out));
    expect(stageArtifactFolders(root, out, FIRST_FILES)).toBeUndefined();
    expect(fs.readdirSync(root).sort()).toEqual([".build.spare", "build"]);
  });

  test("where the way to the artifact leaves the agent through a link", async () => {
    const { root: outside, out } = await firstArtifact();
    const root = tempDir();
    fs.symlinkSync(outside, path.join(root, "state"));
    expect(stageArtifactFolders(root, path.join(root, "state", "build"), FIRST_FILES)).toBeUndefined();
    expect(fs.readdirSync(outside)).toEqual(["build"]);
    expect(fs.existsSync(out)).toBe(true);
  });
});

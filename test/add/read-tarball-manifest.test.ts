/**
 * readTarballManifest: the top-level package.json of a package tarball, gzipped or not, with
 * long (PAX) names, never a nested one; anything else is `undefined`, never a throw.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { expect, it } from "vitest";
import { readTarballManifest } from "../../cli/add/read-tarball-manifest.js";
import { tempDir } from "../helpers/temp-tree.js";

function pack(files: Record<string, string>, options: { gzip: boolean; name?: string }): string {
  const dir = tempDir();
  const src = path.join(dir, "src");
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(src, name)), { recursive: true });
    fs.writeFileSync(path.join(src, name), text);
  }
  const file = path.join(dir, options.name ?? (options.gzip ? "p.tgz" : "p.tar"));
  tar.create({ file, cwd: src, gzip: options.gzip, sync: true, portable: true }, Object.keys(files).sort());
  return file;
}

it("reads package/package.json from a .tgz and from a plain .tar", () => {
  const files = { "package/package.json": '{"name":"@acme/x","version":"1.2.3"}', "package/README.md": "# x" };
  expect(readTarballManifest(pack(files, { gzip: true }))).toEqual({ name: "@acme/x", version: "1.2.3" });
  expect(readTarballManifest(pack(files, { gzip: false }))).toEqual({ name: "@acme/x", version: "1.2.3" });
});

it("finds it under a long top-level folder name (a PAX header) and ignores nested package.json files", () => {
  const long = "a".repeat(120);
  const files = { [`${long}/lib/package.json`]: '{"name":"nested"}', [`${long}/package.json`]: '{"name":"top","version":"2.0.0"}' };
  expect(readTarballManifest(pack(files, { gzip: true }))).toEqual({ name: "top", version: "2.0.0" });
});

it("is undefined for a missing file, a non-archive, an archive without a manifest, and a manifest that is not an object", () => {
  const dir = tempDir();
  expect(readTarballManifest(path.join(dir, "missing.tgz"))).toBeUndefined();
  fs.writeFileSync(path.join(dir, "junk.tgz"), "not a tarball");
  expect(readTarballManifest(path.join(dir, "junk.tgz"))).toBeUndefined();
  expect(readTarballManifest(pack({ "package/index.js": "" }, { gzip: true }))).toBeUndefined();
  expect(readTarballManifest(pack({ "package/package.json": "[1]" }, { gzip: true }))).toBeUndefined();
  expect(readTarballManifest(pack({ "package/package.json": "{ broken" }, { gzip: false }))).toBeUndefined();
});

/**
 * A fresh project with this package installed by npm FROM A PACKED TARBALL, offline: `npm pack`
 * of the checkout (the build must have run: `pretest` does it), then `npm install --offline`
 * in a temporary project that depends on the tarball. The project's node_modules is first
 * filled with hard links to this checkout's own node_modules, and its package-lock.json is
 * this checkout's lock plus the tarball, so npm resolves every dependency without the registry:
 * it keeps what is installed and takes anything it wants to re-extract from the npm cache by
 * integrity (any machine that installed this checkout with npm has those tarballs cached).
 * Used by the tsserver plugin tests.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "./temp-tree.js";

/** The repository root (two folders above this helper). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const PACKAGE_NAME = "@assemblyline-agents/assembly-line";

/** Where the installed package lives inside a project made by {@link createPackedProject}. */
export function installedPackageDir(project: string): string {
  return path.join(project, "node_modules", ...PACKAGE_NAME.split("/"));
}

/**
 * Packs the checkout and installs the tarball into a new temporary project (returned, absolute,
 * symlinks resolved). `files` (relative path → text) are written into the project first.
 */
export function createPackedProject(files: Readonly<Record<string, string>>): string {
  const work = tempDir("al-packed-");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const quiet = { stdio: ["ignore", "pipe", "pipe"] as ("ignore" | "pipe")[], encoding: "utf8" as const };
  // --ignore-scripts: `prepare` would build again; the tests run after the build.
  const packed = execFileSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { ...quiet, cwd: REPO_ROOT });
  const tarball = path.join(work, (JSON.parse(packed) as { filename: string }[])[0]!.filename);
  const project = path.join(work, "project");
  fs.mkdirSync(project);
  for (const [relative, text] of Object.entries(files)) {
    const target = path.join(project, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
  const manifest = { name: "packed-fixture", version: "1.0.0", private: true, type: "module", dependencies: { [PACKAGE_NAME]: `file:${tarball}` } };
  fs.writeFileSync(path.join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.writeFileSync(path.join(project, "package-lock.json"), `${JSON.stringify(lockFor(manifest, `file:${tarball}`), null, 2)}\n`);
  linkTree(path.join(REPO_ROOT, "node_modules"), path.join(project, "node_modules"));
  execFileSync(npm, ["install", "--offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { ...quiet, cwd: project });
  return project;
}

/**
 * The fixture's lock: this checkout's packages (with registry `resolved` URLs where the lock
 * leaves them out, so npm needs no packument to know a tarball), the packed package depending
 * on them, and the fixture depending on the packed package.
 */
function lockFor(manifest: { name: string; version: string; dependencies: Record<string, string> }, resolved: string): unknown {
  const own = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as Record<string, unknown>;
  const repo = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, Record<string, unknown>> };
  const packages: Record<string, unknown> = { "": { name: manifest.name, version: manifest.version, dependencies: manifest.dependencies } };
  packages[`node_modules/${PACKAGE_NAME}`] = { version: own["version"], resolved, license: own["license"], dependencies: own["dependencies"], bin: own["bin"], engines: own["engines"] };
  for (const [key, entry] of Object.entries(repo.packages)) {
    if (key === "" || !key.includes("node_modules/")) continue;
    const name = key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    const registry = `https://registry.npmjs.org/${name}/-/${name.split("/").pop()}-${String(entry["version"])}.tgz`;
    packages[key] = entry["resolved"] || entry["link"] ? entry : { ...entry, resolved: registry };
  }
  return { name: manifest.name, version: manifest.version, lockfileVersion: 3, requires: true, packages };
}

/** Recreates `from` under `to` with hard links (copies where linking fails). */
function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name === ".cache" || entry.name === ".bin" || entry.name === ".package-lock.json") continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else if (entry.isDirectory()) linkTree(source, target);
    else {
      try {
        fs.linkSync(source, target);
      } catch {
        fs.copyFileSync(source, target);
      }
    }
  }
}

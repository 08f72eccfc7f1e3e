/**
 * Test helper: loads an Agent Plugins case folder (`<case>/plugin` is the plugin root,
 * `<case>/outside` holds files outside it, `<case>/expected.json` says what a loader must make
 * of it) and compares the loader's summary with the expectation.
 *
 * Used by the project's own fixtures (`test/fixtures/agent-plugins/`, `npm test`) and by the
 * conformance suite over the external corpus (`test/conformance/`, `npm run test:conformance`);
 * both use the corpus's expectation vocabulary (see the corpus README).
 *
 * Symlinks: a case lists its links in `expected.json` `links` (`{ path, target, type }`, paths
 * relative to the case folder). A case whose links are not real symlinks on disk (a copy or a
 * checkout that lost them) is copied to a temporary directory and its links recreated there, so
 * containment is always tested against real links.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { createNodeHost } from "../../common/host.js";
import { loadPluginPackage, summarizePluginPackage, type PluginPackageSummary } from "../../compiler/plugin-package/index.js";
import type { PluginPackage } from "../../compiler/model.js";
import { tempDir } from "./temp-tree.js";

/** A symlink a case needs: `path` (relative to the case folder) points at `target`. */
export interface CaseLink {
  readonly path: string;
  readonly target: string;
  readonly type?: "dir" | "file";
}

/** What a loader must make of a plugin, in the corpus vocabulary. */
export interface CaseExpectation {
  readonly manifest: "valid" | "valid-with-warnings" | "rejected";
  readonly skills: { readonly loaded: readonly string[]; readonly skipped: readonly string[]; readonly status?: string };
  readonly mcp: { readonly status: string; readonly loaded: readonly string[]; readonly skipped: readonly string[] };
}

/** `expected.json` of a case. */
export interface CaseFile extends CaseExpectation {
  readonly links?: readonly CaseLink[];
  /** Corpus only: alternatives a loader may pick instead (partial overrides of the main expectation). */
  readonly acceptableAlternatives?: readonly Partial<{ manifest: CaseExpectation["manifest"]; skills: Partial<CaseExpectation["skills"]>; mcp: Partial<CaseExpectation["mcp"]> }>[];
}

/** A loaded case: the package, its summary and the expectation read from `expected.json`. */
export interface LoadedCase {
  readonly pluginRoot: string;
  readonly pkg: PluginPackage;
  readonly summary: PluginPackageSummary;
  readonly expected: CaseFile;
}

/** The sorted names of the case folders under `dir`. */
export function caseNames(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Loads `<dir>/<name>` (recreating its symlinks in a temporary copy when needed). */
export function loadCase(dir: string, name: string): LoadedCase {
  const expected = JSON.parse(fs.readFileSync(path.join(dir, name, "expected.json"), "utf8")) as CaseFile;
  const pluginRoot = path.join(materializeCase(path.join(dir, name), expected.links ?? []), "plugin");
  const pkg = loadPluginPackage(createNodeHost(), pluginRoot);
  return { pluginRoot, pkg, summary: summarizePluginPackage(pkg), expected };
}

/** The main expectation and each acceptable alternative (a partial override of it). */
export function expectationsOf(expected: CaseFile): CaseExpectation[] {
  const main: CaseExpectation = { manifest: expected.manifest, skills: expected.skills, mcp: expected.mcp };
  const alternatives = (expected.acceptableAlternatives ?? []).map((alternative): CaseExpectation => {
    if (alternative.manifest === "rejected") {
      // A rejected plugin discovers no component (corpus README: "rejected = whole plugin refused").
      return { manifest: "rejected", skills: { loaded: [], skipped: [] }, mcp: { status: "not-discovered", loaded: [], skipped: [] } };
    }
    return {
      manifest: alternative.manifest ?? main.manifest,
      skills: { ...main.skills, ...alternative.skills },
      mcp: { ...main.mcp, ...alternative.mcp },
    };
  });
  return [main, ...alternatives];
}

/** How `actual` differs from `expected` (empty when it matches); lists are compared as sets. */
export function mismatches(actual: PluginPackageSummary, expected: CaseExpectation): string[] {
  const problems: string[] = [];
  const compare = (what: string, got: unknown, want: unknown): void => {
    if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  };
  const set = (values: readonly string[]): string[] => [...new Set(values)].sort();
  compare("manifest", actual.manifest, expected.manifest);
  compare("skills.loaded", set(actual.skills), set(expected.skills.loaded));
  compare("skills.skipped", set(actual.skippedSkills), set(expected.skills.skipped));
  if (expected.skills.status === "invalid") compare("skills.status", actual.skillsStatus, "invalid");
  compare("mcp.status", actual.mcpStatus, expected.mcp.status);
  compare("mcp.loaded", set(actual.mcpServers), set(expected.mcp.loaded));
  // For a disabled MCP component the corpus may list the document itself ("mcp.json") as skipped.
  const expectedSkipped = expected.mcp.status === "invalid" ? expected.mcp.skipped.filter((entry) => entry !== "mcp.json") : expected.mcp.skipped;
  compare("mcp.skipped", set(actual.skippedMcpServers), set(expectedSkipped));
  return problems;
}

/** The case folder to load: the folder itself, or a temporary copy with its symlinks recreated. */
function materializeCase(original: string, links: readonly CaseLink[]): string {
  if (links.every((link) => fs.lstatSync(path.join(original, link.path), { throwIfNoEntry: false })?.isSymbolicLink())) return original;
  const copy = path.join(tempDir("al-plugin-case-"), path.basename(original));
  for (const part of ["plugin", "outside"]) {
    if (fs.existsSync(path.join(original, part))) fs.cpSync(path.join(original, part), path.join(copy, part), { recursive: true, verbatimSymlinks: true });
  }
  makeWritable(copy);
  for (const link of links) {
    const at = path.join(copy, link.path);
    fs.rmSync(at, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(link.target, at, link.type === "dir" ? "dir" : "file");
  }
  return copy;
}

function makeWritable(directory: string): void {
  fs.chmodSync(directory, 0o755);
  for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) makeWritable(full);
    else if (entry.isFile()) fs.chmodSync(full, 0o644);
  }
}

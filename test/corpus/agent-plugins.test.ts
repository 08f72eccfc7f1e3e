/**
 * The real-world Agent Plugins v1 corpus (`../shared/corpus/agent-plugins/`, read in place):
 * one test per case folder, loading `<case>/plugin` and comparing with `<case>/expected.json`.
 *
 * - manifest: `valid` = not rejected and no warning on plugin.json; `valid-with-warnings` = not
 *   rejected with at least one; `rejected` = rejected (then no component may be discovered).
 * - skills and MCP servers: loaded and skipped names compared as sets; statuses compared.
 * - disputed cases pass when they match the main expectation or an acceptable alternative. Our
 *   choices: `apkit__AP-8.1-EXTENSIONS-MEMBER-OBJECTS` is REJECTED (the alternative; reasoning in
 *   `compiler/plugin-package/manifest.ts`: §8.1 requires member values to be objects and §5.2
 *   makes every schema violation fatal except an unknown top-level field and a non-object
 *   `extensions`); `apkit__AP-7.2.1-COMMAND-SINGLE-TOKEN` skips `shelly` (the main expectation:
 *   §7.2.1 says command MUST be a single executable token, not a shell command string).
 *
 * Symlink cases: the corpus copy may have lost its symlinks (each link is then a plain file
 * holding its target). Such a case is copied to a temporary directory and its links recreated
 * from `expected.json` `links`, so containment is tested against real links.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost } from "../../common/host.js";
import { loadPluginPackage, summarizePluginPackage, type PluginPackageSummary } from "../../compiler/plugin-package/index.js";
import { corpusRoot as sharedCorpus, tempDir } from "../helpers/temp-tree.js";

const corpusRoot = path.join(sharedCorpus, "agent-plugins");
const scratch = tempDir("al-agent-plugins-corpus-");

interface Link {
  readonly path: string;
  readonly target: string;
  readonly type?: "dir" | "file";
}

interface Expectation {
  readonly manifest: "valid" | "valid-with-warnings" | "rejected";
  readonly skills: { readonly loaded: readonly string[]; readonly skipped: readonly string[]; readonly status?: string };
  readonly mcp: { readonly status: string; readonly loaded: readonly string[]; readonly skipped: readonly string[] };
}

interface ExpectedFile extends Expectation {
  readonly links?: readonly Link[];
  readonly acceptableAlternatives?: readonly Partial<{ manifest: Expectation["manifest"]; skills: Partial<Expectation["skills"]>; mcp: Partial<Expectation["mcp"]> }>[];
}

const cases = fs
  .readdirSync(corpusRoot, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe("Agent Plugins v1 corpus", () => {
  it("has all 84 cases", () => {
    expect(cases).toHaveLength(84);
  });

  for (const name of cases) {
    it(name, () => {
      const expected = JSON.parse(fs.readFileSync(path.join(corpusRoot, name, "expected.json"), "utf8")) as ExpectedFile;
      const pluginRoot = path.join(materializeCase(name, expected.links ?? []), "plugin");
      const pkg = loadPluginPackage(createNodeHost(), pluginRoot);
      const summary = summarizePluginPackage(pkg);
      const results = expectationsOf(expected).map((expectation) => mismatches(summary, expectation));
      if (results.some((problems) => problems.length === 0)) return;
      const diagnostics = pkg.diagnostics.map((d) => `${d.code} ${d.severity} ${path.relative(pluginRoot, d.file)}:${d.line}:${d.column} ${d.message}`);
      expect({ mismatches: results[0], diagnostics }).toEqual({ mismatches: [], diagnostics });
    });
  }
});

/** The case folder to load: the corpus itself, or a copy with its symlinks recreated. */
function materializeCase(name: string, links: readonly Link[]): string {
  const original = path.join(corpusRoot, name);
  if (links.every((link) => fs.lstatSync(path.join(original, link.path), { throwIfNoEntry: false })?.isSymbolicLink())) return original;
  const copy = path.join(scratch, name);
  for (const part of ["plugin", "outside"]) {
    if (fs.existsSync(path.join(original, part))) fs.cpSync(path.join(original, part), path.join(copy, part), { recursive: true, verbatimSymlinks: true });
  }
  makeWritable(copy);
  for (const link of links) {
    const at = path.join(copy, link.path);
    fs.rmSync(at, { recursive: true, force: true });
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

/** The main expectation and each acceptable alternative (a partial override of it). */
function expectationsOf(expected: ExpectedFile): Expectation[] {
  const main: Expectation = { manifest: expected.manifest, skills: expected.skills, mcp: expected.mcp };
  const alternatives = (expected.acceptableAlternatives ?? []).map((alternative): Expectation => {
    if (alternative.manifest === "rejected") {
      // A rejected plugin discovers no component (README: "rejected = whole plugin refused").
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

function mismatches(actual: PluginPackageSummary, expected: Expectation): string[] {
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

/**
 * Skill discovery (Agent Plugins v1 §6.1, §6.2, §7.1).
 *
 * The fixed location is `skills/`. Each immediate child directory holding a path named exactly
 * `SKILL.md` that resolves to a regular file is one skill; nothing deeper is ever looked at
 * (`skills/a/references/x/SKILL.md` is an asset of `a`, not a skill). A skill that breaks the
 * Agent Skills rules is skipped with a diagnostic and the others still load.
 *
 * Containment (§4.1): `skills/` resolving outside the root makes the component invalid; a child
 * directory or its `SKILL.md` resolving outside skips that skill; escaping links are never read.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { byCodeUnits } from "../../common/compare.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import type { CompilerHost, DirectoryEntry } from "../../common/host.js";
import type { SkillComponent, SkippedComponent } from "../model.js";
import { notASkill, skillSkipped, SKILLS_INVALID } from "./consequences.js";
import { relativeToRoot, resolvePackagePath } from "./containment.js";
import { displayPath, readPackageText } from "./package-file.js";
import { readSkillFrontMatter } from "./skill-front-matter.js";
import { checkSkillFields } from "./skill-rules.js";

/** The skills component of a plugin. */
export interface SkillsResult {
  readonly status: "absent" | "loaded" | "invalid";
  /** Loaded skills, sorted by name. */
  readonly skills: readonly SkillComponent[];
  /** Skipped skills, sorted by directory name. */
  readonly skipped: readonly SkippedComponent[];
  readonly diagnostics: readonly Diagnostic[];
}

/** One child of `skills/` that may be a skill, after containment checks. */
type Candidate = { readonly directory: string; readonly lexical: string; readonly real: string };

/** Discovers and checks the skills of the plugin at `root` (real path `rootReal`). */
export function discoverSkills(host: CompilerHost, root: string, rootReal: string): SkillsResult {
  const skillsPath = path.join(root, "skills");
  const at = fileStart(skillsPath);
  // A folder, or a link that leads outside to one: placed on the folder (common/positions.ts folderStart).
  const folder = folderStart(skillsPath);
  const status = resolvePackagePath(host, rootReal, skillsPath);
  const invalid = (diagnostic: Diagnostic): SkillsResult => ({ status: "invalid", skills: [], skipped: [], diagnostics: [diagnostic] });
  switch (status.kind) {
    case "missing":
      return { status: "absent", skills: [], skipped: [], diagnostics: [] };
    case "broken":
      return invalid(createDiagnostic(Diagnostics.PackageBrokenSymlink, at, ["skills", SKILLS_INVALID]));
    case "outside":
      return invalid(createDiagnostic(Diagnostics.PathOutsidePluginRoot, folder, ["skills", relativeToRoot(rootReal, status.real), SKILLS_INVALID]));
    case "inside":
      if (status.type !== "directory") {
        const kind = status.type === "file" ? "a regular file" : "not a directory";
        return invalid(createDiagnostic(Diagnostics.ComponentLocationWrongKind, at, ["skills", "a directory", kind, SKILLS_INVALID]));
      }
  }
  const entries = host.readDirectory(status.real);
  if (entries === undefined) {
    return invalid(createDiagnostic(Diagnostics.PackageFileUnreadable, folder, ["skills", "the directory cannot be listed", SKILLS_INVALID]));
  }
  return collectSkills(host, root, rootReal, skillsPath, status.real, entries);
}

function collectSkills(
  host: CompilerHost,
  root: string,
  rootReal: string,
  skillsPath: string,
  skillsReal: string,
  entries: readonly DirectoryEntry[],
): SkillsResult {
  const diagnostics: Diagnostic[] = [];
  const skills: SkillComponent[] = [];
  const skipped: SkippedComponent[] = [];
  const byNormalizedName = new Map<string, string>();
  const skip = (directory: string, file: string, found: readonly Diagnostic[]): void => {
    diagnostics.push(...found);
    const codes = [...new Set(found.filter((d) => d.severity === "error").map((d) => d.code))].sort(byCodeUnits);
    skipped.push({ name: directory, file, codes });
  };
  for (const entry of [...entries].sort((a, b) => byCodeUnits(a.name, b.name))) {
    const candidate = resolveCandidate(host, rootReal, skillsPath, skillsReal, entry, skip, diagnostics);
    if (!candidate) continue;
    const outcome = loadSkill(host, root, rootReal, candidate);
    if (outcome.kind === "none") {
      diagnostics.push(...outcome.diagnostics);
      continue;
    }
    if (outcome.kind === "skipped") {
      skip(candidate.directory, outcome.file, outcome.diagnostics);
      continue;
    }
    const earlier = byNormalizedName.get(outcome.skill.name);
    if (earlier !== undefined) {
      skip(candidate.directory, outcome.skill.file, [createDiagnostic(Diagnostics.SkillDuplicateName, fileStart(outcome.skill.file), [outcome.skill.name, earlier])]);
      continue;
    }
    byNormalizedName.set(outcome.skill.name, candidate.directory);
    diagnostics.push(...outcome.diagnostics);
    skills.push(outcome.skill);
  }
  skills.sort((a, b) => byCodeUnits(a.name, b.name));
  return { status: "loaded", skills, skipped, diagnostics };
}

/** Follows one entry of `skills/` to a contained directory, or reports why it is not one. */
function resolveCandidate(
  host: CompilerHost,
  rootReal: string,
  skillsPath: string,
  skillsReal: string,
  entry: DirectoryEntry,
  skip: (directory: string, file: string, found: readonly Diagnostic[]) => void,
  diagnostics: Diagnostic[],
): Candidate | undefined {
  const lexical = path.join(skillsPath, entry.name);
  if (entry.kind === "directory") return { directory: entry.name, lexical, real: path.join(skillsReal, entry.name) };
  if (entry.kind !== "symlink") return undefined; // files directly in skills/ are not skills
  const status = resolvePackagePath(host, rootReal, path.join(skillsReal, entry.name));
  if (status.kind === "outside") {
    skip(entry.name, lexical, [createDiagnostic(Diagnostics.PathOutsidePluginRoot, folderStart(lexical), [`skills/${entry.name}`, relativeToRoot(rootReal, status.real), skillSkipped(entry.name)])]);
    return undefined;
  }
  if (status.kind === "broken") {
    diagnostics.push(createDiagnostic(Diagnostics.PackageBrokenSymlink, fileStart(lexical), [`skills/${entry.name}`, notASkill(entry.name)], { severity: "warning" }));
    return undefined;
  }
  return status.kind === "inside" && status.type === "directory" ? { directory: entry.name, lexical, real: status.real } : undefined;
}

type SkillOutcome =
  | { readonly kind: "none"; readonly diagnostics: readonly Diagnostic[] }
  | { readonly kind: "skipped"; readonly file: string; readonly diagnostics: readonly Diagnostic[] }
  | { readonly kind: "loaded"; readonly skill: SkillComponent; readonly diagnostics: readonly Diagnostic[] };

/** Reads and checks `SKILL.md` of one candidate directory. */
function loadSkill(host: CompilerHost, root: string, rootReal: string, candidate: Candidate): SkillOutcome {
  const file = path.join(candidate.lexical, "SKILL.md");
  const display = displayPath(root, file);
  const at = fileStart(file);
  const status = resolvePackagePath(host, rootReal, path.join(candidate.real, "SKILL.md"));
  const skippedBecause = (diagnostic: Diagnostic): SkillOutcome => ({ kind: "skipped", file, diagnostics: [diagnostic] });
  switch (status.kind) {
    case "missing":
      return { kind: "none", diagnostics: [] };
    case "broken":
      return { kind: "none", diagnostics: [createDiagnostic(Diagnostics.PackageBrokenSymlink, at, [display, notASkill(candidate.directory)], { severity: "warning" })] };
    case "outside":
      return skippedBecause(createDiagnostic(Diagnostics.PathOutsidePluginRoot, at, [display, relativeToRoot(rootReal, status.real), skillSkipped(candidate.directory)]));
    case "inside":
      if (status.type !== "file") return { kind: "none", diagnostics: [createDiagnostic(Diagnostics.SkillEntryNotRegularFile, at, [candidate.directory, display])] };
  }
  const text = readPackageText(host, root, file, status.real, skillSkipped(candidate.directory));
  if (!text.ok) return skippedBecause(text.diagnostic);
  const frontMatter = readSkillFrontMatter(file, text.text, candidate.directory);
  if (!frontMatter.ok) return skippedBecause(frontMatter.diagnostic);
  const check = checkSkillFields(candidate.directory, frontMatter.fields, frontMatter.location);
  if (check.name === undefined || check.description === undefined) return { kind: "skipped", file, diagnostics: check.diagnostics };
  return { kind: "loaded", skill: { name: check.name, description: check.description, file }, diagnostics: check.diagnostics };
}

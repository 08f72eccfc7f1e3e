/**
 * A surface's own skills: `<surface dir>/skills/<name>/SKILL.md` beside its `agent.md` (the
 * agent root's `skills/`, or `subagents/<child>/skills/`). Issue 5: `load_skill` serves "the
 * surface's skills and its plugins' skills"; seed Conventions: "Put reusable procedures in
 * skills/".
 *
 * Discovery follows the rules plugin skills follow (`plugin-package/skills.ts`, Agent Plugins
 * v1 §7.1): each immediate child folder of `skills/` holding a regular file named exactly
 * `SKILL.md` is one skill, nothing deeper is looked at, files directly in `skills/` are not
 * skills, and the SKILL.md front matter is checked with the same Agent Skills rules
 * (`readSkillFrontMatter`, `checkSkillFields`: AL22xx). A skill that breaks them is skipped
 * with a diagnostic and the others still load. What is particular to a surface is containment:
 * the folder, a skill and its SKILL.md must resolve inside the agent root (AL1041), because the
 * artifact copies them and `compile --check` sees only the agent's files. Each loaded skill
 * carries the integrity of its SKILL.md (`hashFileContent`: the lockfile's text rule), which
 * `plugins.lock` records as it records a plugin's content integrity.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { byCodeUnits } from "../../common/compare.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import type { SurfaceSkillComponent } from "../model.js";
import { hashFileContent } from "../plugin-package/hash-plugin-directory.js";
// The same containment check plugin packages use, against the agent root instead of a plugin root.
import { resolvePackagePath as resolve } from "../plugin-package/containment.js";
import { readSkillFrontMatter } from "../plugin-package/skill-front-matter.js";
import { checkSkillFields } from "../plugin-package/skill-rules.js";

/** Result of {@link discoverSurfaceSkills}. */
export interface SurfaceSkills {
  /** Skills that loaded, sorted by name (code-unit order), each with its SKILL.md integrity. */
  readonly skills: readonly SurfaceSkillComponent[];
  /** AL104x and AL22xx diagnostics; files are absolute. */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Discovers the skills of the surface whose folder is `surfaceDir` (absolute, inside `root`).
 *
 * @param root the agent root (absolute): skills must resolve inside it, after symlinks.
 * @returns the loaded skills (each `file` is the path of its SKILL.md under `surfaceDir`, as
 *   written, not resolved) and every diagnostic. Never throws; a missing `skills/` is no skills
 *   and no diagnostic.
 */
export function discoverSurfaceSkills(host: CompilerHost, root: string, surfaceDir: string): SurfaceSkills {
  const agentRootReal = host.realpath(root) ?? root;
  const skillsDir = path.join(surfaceDir, "skills");
  const shown = (file: string) => toPosix(path.relative(root, file));
  const folder = resolve(host, agentRootReal, skillsDir);
  switch (folder.kind) {
    case "missing":
      return { skills: [], diagnostics: [] };
    case "broken":
      return none(createDiagnostic(Diagnostics.SurfaceSkillsNotDirectory, fileStart(skillsDir), [shown(skillsDir), "a broken symbolic link"]));
    case "outside":
      // A linked folder: placed on the folder (common/positions.ts folderStart), not at skills:1:1.
      return none(createDiagnostic(Diagnostics.SurfaceSkillOutsideAgent, folderStart(skillsDir), [shown(skillsDir), outside(agentRootReal, folder.real), "no skill of this surface is loaded"]));
    case "inside":
      if (folder.type !== "directory") {
        return none(createDiagnostic(Diagnostics.SurfaceSkillsNotDirectory, fileStart(skillsDir), [shown(skillsDir), folder.type === "file" ? "a file" : "a special file"]));
      }
  }
  const diagnostics: Diagnostic[] = [];
  const skills: SurfaceSkillComponent[] = [];
  const directoryByName = new Map<string, string>();
  for (const entry of [...(host.readDirectory(folder.real) ?? [])].sort((a, b) => byCodeUnits(a.name, b.name))) {
    if (entry.kind !== "directory" && entry.kind !== "symlink") continue; // files directly in skills/ are not skills
    const skill = loadSkill(host, agentRootReal, path.join(skillsDir, entry.name), entry.name, shown, diagnostics);
    if (!skill) continue;
    const earlier = directoryByName.get(skill.name);
    if (earlier !== undefined) {
      diagnostics.push(createDiagnostic(Diagnostics.SkillDuplicateName, fileStart(skill.file), [skill.name, earlier]));
      continue;
    }
    directoryByName.set(skill.name, entry.name);
    skills.push(skill);
  }
  skills.sort((a, b) => byCodeUnits(a.name, b.name));
  return { skills, diagnostics };
}

/** Loads `skills/<directory>/` (lexical path `dir`), or reports why it is not a skill. */
function loadSkill(
  host: CompilerHost,
  agentRootReal: string,
  dir: string,
  directory: string,
  shown: (file: string) => string,
  diagnostics: Diagnostic[],
): SurfaceSkillComponent | undefined {
  const skipped = `skill '${directory}' is skipped`;
  const folder = resolve(host, agentRootReal, dir);
  if (folder.kind === "outside") {
    diagnostics.push(createDiagnostic(Diagnostics.SurfaceSkillOutsideAgent, folderStart(dir), [shown(dir), outside(agentRootReal, folder.real), skipped]));
    return undefined;
  }
  if (folder.kind !== "inside" || folder.type !== "directory") return undefined; // a broken link or a file link: not a skill folder
  const file = path.join(dir, "SKILL.md");
  const skillFile = resolve(host, agentRootReal, path.join(folder.real, "SKILL.md"));
  switch (skillFile.kind) {
    case "missing":
      return undefined; // a folder without SKILL.md is not a skill (Agent Plugins v1 §7.1)
    case "broken":
      diagnostics.push(createDiagnostic(Diagnostics.SurfaceSkillUnreadable, fileStart(file), [shown(file), "it is a broken symbolic link", directory]));
      return undefined;
    case "outside":
      diagnostics.push(createDiagnostic(Diagnostics.SurfaceSkillOutsideAgent, fileStart(file), [shown(file), outside(agentRootReal, skillFile.real), skipped]));
      return undefined;
    case "inside":
      if (skillFile.type !== "file") {
        diagnostics.push(createDiagnostic(Diagnostics.SurfaceSkillUnreadable, fileStart(file), [shown(file), "it is not a regular file", directory]));
        return undefined;
      }
  }
  const text = readText(host, skillFile.real);
  const bytes = typeof text === "string" ? host.readBytes(skillFile.real) : undefined;
  if (typeof text !== "string" || bytes === undefined) {
    const reason = typeof text === "string" ? "it no longer exists" : text.reason;
    diagnostics.push(createDiagnostic(Diagnostics.SurfaceSkillUnreadable, fileStart(file), [shown(file), reason, directory]));
    return undefined;
  }
  const frontMatter = readSkillFrontMatter(file, text, directory);
  if (!frontMatter.ok) {
    diagnostics.push(frontMatter.diagnostic);
    return undefined;
  }
  const check = checkSkillFields(directory, frontMatter.fields, frontMatter.location);
  diagnostics.push(...check.diagnostics);
  if (check.name === undefined || check.description === undefined) return undefined;
  return { name: check.name, description: check.description, file, integrity: hashFileContent(file, bytes).integrity };
}

/** The text of `real`, or why it cannot be used. */
function readText(host: CompilerHost, real: string): string | { readonly reason: string } {
  const read = host.read(real);
  switch (read.kind) {
    case "file":
      return read.invalidUtf8 ? { reason: "it is not valid UTF-8" } : read.text;
    case "unreadable":
      return { reason: read.reason };
    case "directory":
      return { reason: "it is a directory" };
    case "missing":
      return { reason: "it no longer exists" };
  }
}

/** Where an escaping path leads, relative to the agent root (`../shared/skills/x`), for messages. */
function outside(agentRootReal: string, real: string): string {
  return toPosix(path.relative(agentRootReal, real));
}

function toPosix(relative: string): string {
  return relative.split(path.sep).join("/");
}

function none(diagnostic: Diagnostic): SurfaceSkills {
  return { skills: [], diagnostics: [diagnostic] };
}

/**
 * `load_skill`: returns the SKILL.md of a skill available to the calling surface — the
 * surface's own `skills/` and the skills of the plugins it selects (manifest
 * `surfaces[id].skills`), never another surface's.
 *
 * Naming: a bare `name` picks the surface's own skill of that name first, else the one plugin
 * skill of that name; when several plugins contribute it, the call must say
 * `<capability>:<name>`.
 */
import { readFile } from "node:fs/promises";
import ssri from "ssri";
import path from "node:path";
import { distance } from "fastest-levenshtein";
import type { ArtifactSkill } from "../../contract/manifest.js";
import { ToolCallError } from "../failures.js";
import { pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { isPathInside } from "../../common/path-inside.js";
import { cliCommand } from "../../common/cli-command.js";

/** The name a model uses to ask for `skill` unambiguously. */
export function qualifiedSkillName(skill: ArtifactSkill): string {
  return skill.capability === null ? skill.name : `${skill.capability}:${skill.name}`;
}

function surfaceSkills(ctx: CoreToolContext): readonly ArtifactSkill[] {
  const surface = Object.prototype.hasOwnProperty.call(ctx.manifest.surfaces, ctx.surfaceId) ? ctx.manifest.surfaces[ctx.surfaceId] : undefined;
  if (!surface) throw new ToolCallError("configuration_error", `The artifact has no surface "${ctx.surfaceId}"; the host started the run on an unknown surface.`);
  return surface.skills;
}

function unknownSkill(requested: string, skills: readonly ArtifactSkill[]): ToolCallError {
  const names = [...new Set(skills.map(qualifiedSkillName))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) return new ToolCallError("invalid_input", `No skill "${requested}": this agent has no skills.`);
  const near = names.filter((name) => distance(requested, name) <= Math.max(2, Math.floor(requested.length / 3))).slice(0, 3);
  const hint = near.length > 0 ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
  return new ToolCallError("invalid_input", `No skill "${requested}".${hint} Available skills: ${names.slice(0, 30).join(", ")}${names.length > 30 ? ", …" : ""}.`);
}

/**
 * Picks the skill `requested` names among `skills` (see the module comment).
 * @throws ToolCallError `invalid_input` for an unknown or ambiguous name.
 */
export function findSkill(skills: readonly ArtifactSkill[], requested: string): ArtifactSkill {
  const colon = requested.indexOf(":");
  if (colon !== -1) {
    const capability = requested.slice(0, colon);
    const name = requested.slice(colon + 1);
    const found = skills.find((skill) => skill.capability === capability && skill.name === name);
    if (found) return found;
    throw unknownSkill(requested, skills);
  }
  const own = skills.find((skill) => skill.capability === null && skill.name === requested);
  if (own) return own;
  const fromPlugins = skills.filter((skill) => skill.name === requested);
  if (fromPlugins.length === 1) return fromPlugins[0] as ArtifactSkill;
  if (fromPlugins.length > 1) {
    const options = fromPlugins.map(qualifiedSkillName).sort();
    throw new ToolCallError("invalid_input", `Several plugins contribute a skill named "${requested}"; ask for one of ${options.map((o) => `"${o}"`).join(", ")}.`);
  }
  throw unknownSkill(requested, skills);
}

/** `load_skill`: `{ name, capability, description, content }` (content = the SKILL.md text). */
export async function loadSkillTool(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const skill = findSkill(surfaceSkills(ctx), requiredString(input, "name"));
  const file = path.resolve(ctx.artifactDir, skill.file);
  if (!isPathInside(ctx.artifactDir, file)) {
    throw new ToolCallError("configuration_error", `Skill "${qualifiedSkillName(skill)}" points outside the artifact (${skill.file}); recompile the agent.`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new ToolCallError("configuration_error", `The artifact is missing ${skill.file} for skill "${qualifiedSkillName(skill)}"; recompile the agent.`, { cause: error });
  }
  // The model reads exactly the text that was packaged (and whose source the lock records).
  if (skill.integrity !== undefined && !ssri.checkData(bytes, skill.integrity)) {
    throw new ToolCallError(
      "configuration_error",
      `The artifact's copy of skill "${qualifiedSkillName(skill)}" (${skill.file}) was changed after packaging; run \`${cliCommand("compile")}\` to rebuild it.`,
    );
  }
  const content = bytes.toString("utf8");
  await ctx.emit("skill.loaded", { name: skill.name, capability: skill.capability });
  return { name: skill.name, capability: skill.capability, description: skill.description, content };
}

/** The `load_skill` core tool. */
export const loadSkillCoreTool: CoreTool = { ...pickSpec("load_skill"), execute: loadSkillTool };

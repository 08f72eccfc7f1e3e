/**
 * Builds the artifact manifest (`contract/manifest.ts`, DESIGN §6) from the lock
 * the compile is about to write and the bundles it packaged: per surface its parent, the core
 * tools its plugins disable, its skills (copied into the artifact), and every authored tool's
 * locked contract with its bundle path and integrity.
 *
 * A surface's skills are what `load_skill` serves it (issue 5): its own `skills/<name>/`
 * (`capability: null`, copied to `skills/<surface>/_surface/<name>/SKILL.md`) and the skills of
 * the plugins it selects (copied to `skills/<surface>/<capability>/<name>/SKILL.md`). `_surface`
 * can be neither a capability key nor a skill name, so the two never share a path; a child's
 * skills are listed under the child only.
 */
import { isDisabledTool, type Lockfile } from "../contract/lockfile-types.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import type { ArtifactManifest, ArtifactSkill, ArtifactSurface, ArtifactTool } from "../contract/manifest.js";
import { setOwn } from "../common/json-value.js";
import type { Surface } from "../compiler/model.js";
import { surfaceDirectory, toolBundleKey } from "./plan-bundles.js";
import type { ToolBundle } from "./bundle-tools.js";

/** A skill to copy into the artifact: where it is now and where it goes. */
export interface SkillCopy {
  readonly from: string;
  readonly to: string;
}

/** Result of {@link buildManifest}. */
export interface ManifestBuild {
  readonly manifest: ArtifactManifest;
  /** SKILL.md files to copy, by artifact-relative destination. */
  readonly skillFiles: readonly SkillCopy[];
}

/**
 * @param lock the lock being written (its tool contracts are what the runtime enforces).
 * @param lockIntegrity SRI of the lock's bytes.
 * @param toolBundles bundles by {@link toolBundleKey}.
 */
export function buildManifest(analysis: AgentAnalysis, lock: Lockfile, lockIntegrity: string, toolBundles: ReadonlyMap<string, ToolBundle>): ManifestBuild {
  const surfaces: Record<string, ArtifactSurface> = {};
  const skillFiles: SkillCopy[] = [];
  for (const surface of analysis.agent.surfaces) {
    const locked = lock.surfaces[surface.id];
    const tools: Record<string, ArtifactTool> = {};
    const disabled = new Set<string>();
    const skills: ArtifactSkill[] = surfaceSkills(surface, skillFiles);
    for (const capability of analysis.capabilities.filter((c) => c.surface.id === surface.id)) {
      const key = capability.resolved.request.key;
      const lockedTools = locked?.capabilities[key]?.tools ?? {};
      for (const name of Object.keys(lockedTools)) {
        const tool = lockedTools[name]!;
        if (isDisabledTool(tool)) {
          disabled.add(name);
          continue;
        }
        const bundle = toolBundles.get(toolBundleKey(surface.id, key, name));
        if (!bundle) continue;
        setOwn(tools, name, {
          capability: key,
          description: tool.description,
          inputSchema: tool.inputSchema,
          visibility: tool.visibility,
          ...(tool.needsApproval ? { needsApproval: tool.needsApproval } : {}),
          requiredConfig: tool.requiredConfig,
          config: tool.config,
          tags: tool.tags,
          aliases: tool.aliases,
          ...(tool.namespace !== undefined ? { namespace: tool.namespace } : {}),
          ...(tool.factory !== undefined ? { factory: tool.factory } : {}),
          bundle: bundle.bundle,
          integrity: bundle.integrity,
        } satisfies ArtifactTool);
      }
      for (const skill of capability.pluginPackage.skills) {
        const to = `skills/${surfaceDirectory(surface.id)}/${key}/${skill.name}/SKILL.md`;
        skills.push({ name: skill.name, description: skill.description, capability: key, file: to });
        skillFiles.push({ from: skill.file, to });
      }
    }
    skills.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
    setOwn(surfaces, surface.id, { parent: surface.parent, disabledCoreTools: [...disabled].sort(), skills, tools });
  }
  return { manifest: { manifestVersion: 1, lockIntegrity, surfaces }, skillFiles };
}

/** Artifact folder (under `skills/<surface>/`) of a surface's own skills; not a valid capability key or skill name. */
export const SURFACE_SKILLS_DIRECTORY = "_surface";

/** The surface's own skills as manifest entries (`capability: null`), adding their copies to `skillFiles`. */
function surfaceSkills(surface: Surface, skillFiles: SkillCopy[]): ArtifactSkill[] {
  return (surface.skills ?? []).map((skill) => {
    const to = `skills/${surfaceDirectory(surface.id)}/${SURFACE_SKILLS_DIRECTORY}/${skill.name}/SKILL.md`;
    skillFiles.push({ from: skill.file, to });
    return { name: skill.name, description: skill.description, capability: null, file: to };
  });
}

/**
 * Builds the artifact manifest (`runtime-min/artifact/manifest.ts`, DESIGN §6) from the lock
 * the compile is about to write and the bundles it packaged: per surface its parent, the core
 * tools its plugins disable, its skills (copied into the artifact), and every authored tool's
 * locked contract with its bundle path and integrity.
 */
import { isDisabledTool, type Lockfile } from "../lockfile/types.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import type { ArtifactManifest, ArtifactSkill, ArtifactSurface, ArtifactTool } from "../runtime-min/artifact/manifest.js";
import { setOwn } from "../compiler/json-value.js";
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
    const skills: ArtifactSkill[] = [];
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

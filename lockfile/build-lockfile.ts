/**
 * Builds the content of `plugins.lock` from the compiler's analysis (DESIGN §5; issue 3
 * item 2): per surface and capability the source, the content integrity, the capability config,
 * and per tool the locked model-visible contract plus the bundle's integrity when known; per
 * surface also its own skills (path and SKILL.md integrity), which `load_skill` serves.
 *
 * The result is plain data; `serializeLockfile` turns it into the canonical bytes.
 */
import * as path from "node:path";
import type { AgentAnalysis, CapabilityAnalysis } from "../compiler/analyze-agent.js";
import { setOwn } from "../common/json-value.js";
import type { ValidatedTool } from "../compiler/validation/validate-plugin.js";
import type { Surface } from "../compiler/model.js";
import {
  LOCKFILE_VERSION,
  type LockedCapability,
  type LockedSkill,
  type LockedSource,
  type LockedSurface,
  type LockedTool,
  type LockedToolDescriptor,
  type Lockfile,
} from "../contract/lockfile-types.js";

/** Finds a tool's bundle integrity (`sha512-…`), or `undefined` when it is not packaged. */
export type BundleIntegrityLookup = (surfaceId: string, capability: string, toolName: string) => string | undefined;

/**
 * The lock for `analysis`. Surfaces without capabilities are still listed (with `{}`), so the
 * lock shows every surface the agent has; `skills` appears only on a surface that has some.
 *
 * @param bundleIntegrity where tool bundle integrities come from (packaging, or the previous
 *   lock under `--no-package`); tools without one get no `bundle` field.
 */
export function buildLockfile(analysis: AgentAnalysis, bundleIntegrity: BundleIntegrityLookup = () => undefined): Lockfile {
  const surfaces: Record<string, LockedSurface> = {};
  for (const surface of analysis.agent.surfaces) {
    const capabilities: Record<string, LockedCapability> = {};
    for (const capability of analysis.capabilities.filter((c) => c.surface.id === surface.id)) {
      setOwn(capabilities, capability.resolved.request.key, lockCapability(analysis.root, capability, bundleIntegrity));
    }
    const skills = lockSkills(analysis.root, surface);
    setOwn(surfaces, surface.id, skills ? { capabilities, skills } : { capabilities });
  }
  return { lockfileVersion: LOCKFILE_VERSION, surfaces };
}

/** A surface's own skills by name, or `undefined` when it has none. */
function lockSkills(root: string, surface: Surface): Record<string, LockedSkill> | undefined {
  if (!surface.skills || surface.skills.length === 0) return undefined;
  const skills: Record<string, LockedSkill> = {};
  for (const skill of surface.skills) {
    setOwn(skills, skill.name, { path: path.relative(root, skill.file).split(path.sep).join("/"), integrity: skill.integrity });
  }
  return skills;
}

function lockCapability(root: string, capability: CapabilityAnalysis, bundleIntegrity: BundleIntegrityLookup): LockedCapability {
  const { resolved, plugin, config, hash } = capability;
  const tools: Record<string, LockedTool> = {};
  for (const disabled of plugin.disabled) setOwn(tools, disabled.name, { disabled: true });
  for (const tool of plugin.tools) {
    const bundle = bundleIntegrity(capability.surface.id, resolved.request.key, tool.name);
    setOwn(tools, tool.name, lockTool(tool, config.toolConfigs.get(tool.name) ?? tool.config, bundle));
  }
  return { source: lockSource(root, capability), integrity: hash.integrity, config: config.capabilityConfig, tools };
}

function lockSource(root: string, capability: CapabilityAnalysis): LockedSource {
  const source = capability.resolved.source;
  if (source.type === "npm") return { type: "npm", name: source.name, version: source.version };
  return { type: "local", path: path.relative(root, source.dir).split(path.sep).join("/") };
}

/** The locked contract of one validated tool; optional members are omitted, never `null`. */
export function lockTool(tool: ValidatedTool, effectiveConfig: LockedToolDescriptor["config"], bundle: string | undefined): LockedToolDescriptor {
  // Assigned in order rather than spread in: a spread runs slowly in a cold process, and this
  // runs once per tool (issue 14 item 1). The keys and their order are those of a literal.
  const locked: { -readonly [K in keyof LockedToolDescriptor]: LockedToolDescriptor[K] } = { definition: tool.definition } as LockedToolDescriptor;
  if (tool.factory !== undefined) locked.factory = tool.factory;
  locked.description = tool.description;
  locked.inputSchema = tool.inputSchema;
  locked.visibility = tool.visibility;
  if (tool.needsApproval) locked.needsApproval = { reason: tool.needsApproval.reason, sideEffect: tool.needsApproval.sideEffect };
  locked.requiredConfig = tool.requiredConfig;
  locked.config = effectiveConfig;
  locked.tags = tool.tags;
  locked.aliases = tool.aliases;
  if (tool.namespace !== undefined) locked.namespace = tool.namespace;
  if (bundle !== undefined) locked.bundle = bundle;
  return locked;
}

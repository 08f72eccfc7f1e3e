/**
 * What the previous lock gives a compile: the published-package pins capability resolution
 * honours (DESIGN §2), and the bundle integrities a `--no-package` compile carries over.
 */
import type { PackagePins } from "../compiler/agent/resolve-capabilities.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { isDisabledTool } from "../contract/lockfile-types.js";
import type { BundleIntegrityLookup } from "../lockfile/build-lockfile.js";
import type { ReadLockfileResult } from "../lockfile/read-lockfile.js";

/** Published-package pins of a readable lock (surface → key → name/version). */
export function pinsOf(previous: ReadLockfileResult): PackagePins {
  const pins = new Map<string, Map<string, { name: string; version: string }>>();
  if (previous.kind !== "ok") return pins;
  for (const [surfaceId, surface] of Object.entries(previous.lock.surfaces)) {
    for (const [key, capability] of Object.entries(surface.capabilities)) {
      if (capability.source.type !== "npm") continue;
      if (!pins.has(surfaceId)) pins.set(surfaceId, new Map());
      pins.get(surfaceId)!.set(key, { name: capability.source.name, version: capability.source.version });
    }
  }
  return pins;
}

/**
 * Under `--no-package`, a tool keeps the bundle integrity of the previous lock when its
 * capability's content integrity did not change (the bundle is a function of that content),
 * so alternating `compile` and `compile --no-package` does not flip the lock.
 */
export function carriedOverBundles(previous: ReadLockfileResult, analysis: AgentAnalysis): BundleIntegrityLookup {
  if (previous.kind !== "ok") return () => undefined;
  const integrityNow = new Map(analysis.capabilities.map((c) => [`${c.surface.id}\0${c.resolved.request.key}`, c.hash.integrity]));
  return (surfaceId, capability, toolName) => {
    const locked = previous.lock.surfaces[surfaceId]?.capabilities[capability];
    if (!locked || locked.integrity !== integrityNow.get(`${surfaceId}\0${capability}`)) return undefined;
    const tool = locked.tools[toolName];
    return tool && !isDisabledTool(tool) ? tool.bundle : undefined;
  };
}

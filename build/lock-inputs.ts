/**
 * What the previous lock gives a compile: the published-package pins capability resolution
 * honours (DESIGN §2), and the bundle integrities a `--no-package` compile carries over.
 */
import type { PackagePins } from "../compiler/agent/resolve-capabilities.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { isDisabledTool } from "../contract/lockfile-types.js";
import type { BundleIntegrityLookup } from "../lockfile/build-lockfile.js";
import type { ReadLockfileResult } from "../lockfile/read-lockfile.js";
import type { Lockfile } from "../contract/lockfile-types.js";

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

/**
 * True when a compile that reads `lock` (the lock this compile wrote) in place of `previous`
 * would take the same decisions from it: `previous` was a readable lock (no conflict, damage or
 * newer version to report) and both pin the same published packages (the only thing the
 * analysis takes from a lock; `--no-package` carries over bundle integrities this compile just
 * wrote). The compile record (`cli/compile-record.ts`) then records the new lock as the input.
 */
export function rereadsAlike(previous: ReadLockfileResult, lock: Lockfile): boolean {
  if (previous.kind !== "ok") return false;
  const flat = (pins: PackagePins): string =>
    JSON.stringify([...pins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([surface, keys]) => [surface, [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]));
  return flat(pinsOf(previous)) === flat(pinsOf({ kind: "ok", lock, bytes: new Uint8Array(), text: "", invalidUtf8: false }));
}

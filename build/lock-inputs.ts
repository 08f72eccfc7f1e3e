/**
 * What the previous lock gives a compile: the published-package pins capability resolution
 * honours (DESIGN §2), and the bundle integrities a `--no-package` compile carries over; and
 * what a compile keeps of it for the next one (its pins, by the SHA-256 of its bytes), so that a
 * compile after one file changed neither checks nor parses the 2.5 MB lock its predecessor wrote.
 */
import type { PackagePins } from "../compiler/agent/resolve-capabilities.js";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import { isDisabledTool } from "../contract/lockfile-types.js";
import type { BundleIntegrityLookup } from "../lockfile/build-lockfile.js";
import type { ReadLockfileResult } from "../lockfile/read-lockfile.js";
import type { Lockfile } from "../contract/lockfile-types.js";
import { createHash } from "node:crypto";

/** Published-package pins of a readable lock (surface → key → name/version). */
export function pinsOf(previous: ReadLockfileResult): PackagePins {
  return previous.kind === "ok" ? pinsOfLock(previous.lock) : new Map();
}

/** Published-package pins of `lock` (surface → key → name/version). */
export function pinsOfLock(lock: Lockfile): PackagePins {
  const pins = new Map<string, Map<string, { name: string; version: string }>>();
  for (const [surfaceId, surface] of Object.entries(lock.surfaces)) {
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
export function rereadsAlike(previous: ReadLockfileResult, lock: Lockfile, previousPins: PackagePins = pinsOf(previous)): boolean {
  if (previous.kind !== "ok") return false;
  const flat = (pins: PackagePins): string =>
    JSON.stringify([...pins].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([surface, keys]) => [surface, [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]));
  return flat(previousPins) === flat(pinsOfLock(lock));
}

/**
 * Where a compile keeps what it read of `plugins.lock` for the next one: values derived from
 * bytes, by their SHA-256 (the analysis cache, `AnalysisCache.derived`).
 */
export interface DerivedValueStore {
  derived(name: string, digest: string): unknown;
  keepDerived(name: string, digest: string, value: unknown): void;
}

/** The name the lock's reading is kept under. */
const LOCK_READING = "plugins.lock pins";

/** SHA-256 (base64url) of a lock's bytes: the key its reading is kept by. */
export function lockDigest(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url");
}

/**
 * The reading kept for lock bytes whose SHA-256 is `digest` ({@link keepLockReading}): the pins
 * of those bytes, which read as `ok` (`readLockfile`'s `knownReadable`); `undefined` when none
 * was kept for exactly these bytes, or what was kept has not the shape kept (a damaged record is
 * a miss: the lock is then read and checked in full).
 */
export function keptLockReading(store: DerivedValueStore, digest: string): PackagePins | undefined {
  const value = store.derived(LOCK_READING, digest);
  if (!Array.isArray(value)) return undefined;
  const pins = new Map<string, Map<string, { name: string; version: string }>>();
  for (const pin of value as unknown[]) {
    if (!Array.isArray(pin) || pin.length !== 4 || !pin.every((part) => typeof part === "string")) return undefined;
    const [surface, key, name, version] = pin as [string, string, string, string];
    if (!pins.has(surface)) pins.set(surface, new Map());
    pins.get(surface)!.set(key, { name, version });
  }
  return pins;
}

/**
 * Keeps, for the next compile, that the lock bytes whose SHA-256 is `digest` read as `ok` with
 * `pins`: call it only for bytes that did (a lock read in full as `ok`), or that this compile
 * writes from the lock it built (`serializeLockfile` of `buildLockfile`'s lock, which reads as
 * `ok`: the compile record relies on the same, `rereadsAlike`), with that lock's pins.
 */
export function keepLockReading(store: DerivedValueStore, digest: string, pins: PackagePins): void {
  const flat: [string, string, string, string][] = [];
  for (const [surface, keys] of pins) for (const [key, { name, version }] of keys) flat.push([surface, key, name, version]);
  store.keepDerived(LOCK_READING, digest, flat);
}

/**
 * Reads `plugins.lock` for artifact verification (DESIGN §5): its exact bytes (whose SRI the
 * manifest records; read by the one lock reader, `contract/read-lock.ts`, which the compiler
 * shares), its JSON value, and a locator for diagnostics. Only the parts the runtime
 * needs are interpreted: `surfaces.<id>.capabilities.<key>.tools.<name>` with the locked
 * contract and `bundle` integrity.
 */
import * as path from "node:path";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { canonicalJsonText as canonical } from "../../common/canonical-json.js";
import { JsonLocator } from "./json-locator.js";
import type { ArtifactTool } from "../../contract/manifest.js";
import type { ToolContract } from "../../contract/lockfile-types.js";
import { byCodeUnits } from "../../common/compare.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { readLockBytes } from "../../contract/read-lock.js";

/** File name of the lock in the agent root. */
export const LOCK_FILE = LOCKFILE_NAME;

/** The lock as read. `value` is `undefined` when `diagnostics` is not empty. */
export interface LockReading {
  readonly bytes: Buffer;
  readonly value: unknown;
  readonly locator: JsonLocator;
  readonly diagnostics: readonly Diagnostic[];
}

/** One tool as locked on a surface. */
export interface LockedToolEntry {
  readonly capability: string;
  readonly disabled: boolean;
  readonly value: { readonly [field: string]: unknown };
}

/** Reads `<root>/plugins.lock`; reports AL8004 when missing and AL8005 when not a lock. */
export function readLockfile(root: string, relative: (file: string) => string): LockReading {
  const file = path.join(root, LOCK_FILE);
  const shown = relative(file);
  const read = readLockBytes(file);
  if (read.kind !== "read") {
    const locator = new JsonLocator(shown, "");
    return { bytes: Buffer.alloc(0), value: undefined, locator, diagnostics: [createDiagnostic(Diagnostics.LockMissing, locator.locate([]))] };
  }
  const bytes = Buffer.from(read.bytes.buffer, read.bytes.byteOffset, read.bytes.byteLength);
  const text = read.text;
  const locator = new JsonLocator(shown, text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { bytes, value: undefined, locator, diagnostics: [createDiagnostic(Diagnostics.LockUnreadable, locator.locate([]), [`it is not JSON (${(error as Error).message})`])] };
  }
  const surfaces = isObject(value) ? value.surfaces : undefined;
  if (!isObject(surfaces)) {
    return { bytes, value: undefined, locator, diagnostics: [createDiagnostic(Diagnostics.LockUnreadable, locator.locate(["surfaces"]), ["it has no `surfaces` object"], { path: ["surfaces"] })] };
  }
  return { bytes, value, locator, diagnostics: [] };
}

/** The tools a lock pins on one surface, by tool name (capabilities visited in code-unit order). */
export function lockedToolsOf(lock: unknown, surfaceId: string): Map<string, LockedToolEntry> {
  const found = new Map<string, LockedToolEntry>();
  const surface = isObject(lock) && isObject(lock.surfaces) ? lock.surfaces[surfaceId] : undefined;
  const capabilities = isObject(surface) ? surface.capabilities : undefined;
  if (!isObject(capabilities)) return found;
  for (const capability of Object.keys(capabilities).sort(byCodeUnits)) {
    const entry = capabilities[capability];
    const tools = isObject(entry) ? entry.tools : undefined;
    if (!isObject(tools)) continue;
    for (const name of Object.keys(tools).sort(byCodeUnits)) {
      const value = tools[name];
      if (!isObject(value) || found.has(name)) continue;
      found.set(name, { capability, disabled: value.disabled === true, value });
    }
  }
  return found;
}

/**
 * Contract fields of a tool that must equal the lock (DESIGN §5: "the locked model-visible
 * contract"): every key of {@link ToolContract}, checked at compile time in both directions.
 */
export const LOCKED_CONTRACT_FIELDS = [
  "description",
  "inputSchema",
  "visibility",
  "needsApproval",
  "requiredConfig",
  "config",
  "factory",
  "tags",
  "aliases",
  "namespace",
] as const satisfies readonly (keyof ToolContract)[];
// A ToolContract field missing from the list above makes this line a type error.
const _everyContractField: Record<Exclude<keyof ToolContract, (typeof LOCKED_CONTRACT_FIELDS)[number]>, never> = {};
void _everyContractField;

/** Names of the contract fields where the manifest's tool differs from the locked one (sorted). */
export function compareLockedContract(tool: ArtifactTool, locked: { readonly [field: string]: unknown }): string[] {
  const differing: string[] = [];
  for (const field of LOCKED_CONTRACT_FIELDS) {
    const ours = (tool as unknown as Record<string, unknown>)[field];
    const theirs = locked[field];
    if (canonical(ours ?? defaultOf(field)) !== canonical(theirs ?? defaultOf(field))) differing.push(field);
  }
  return differing.sort(byCodeUnits);
}

function defaultOf(field: string): unknown {
  return field === "requiredConfig" || field === "tags" || field === "aliases" ? [] : field === "config" ? {} : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

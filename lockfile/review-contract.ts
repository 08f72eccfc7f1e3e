/**
 * Contract review (issue 11 item 3): every difference between the committed lock and the new
 * one, in model-visible terms, so a reviewer sees what a change means. Tool poisoning and
 * "rug pulls" are a description or schema that changes after it was reviewed; the lock pins
 * every model-visible field, and this says what a change of them means.
 *
 * Kinds: `tool-added`, `tool-removed`, `tool-renamed` (same definition, new key, same capability),
 * `description-changed` (with a word diff), `schema-widened`, `schema-narrowed`,
 * `schema-changed`, `approval-removed`, `approval-weakened`, `approval-added`,
 * `visibility-changed`, `required-config-changed`, `package-changed`, `core-tool-disabled`,
 * `core-tool-restored` (a plugin's `{ "disabled": true }` descriptor for a core tool appears or
 * goes).
 *
 * A change needs review when it removes or weakens an approval gate (a lower `sideEffect`, or a
 * reworded reason), or changes a description of a published (npm) pack, or a published pack
 * removes a core tool (seed: "a reviewed plugin may contribute the same tool name with
 * disabled: true"; new-user trial 129: a pack upgrade removed tool_search and read from every
 * agent that installed it). Tool config, tags, aliases, namespaces and bundle hashes are not
 * reviewed here (the lock diff of `compile --check` still shows them).
 */
import { diffPackage } from "./diff-package.js";
import { byCodeUnits } from "../common/compare.js";
import { canonicalJsonText } from "../common/canonical-json.js";
import { DEFAULT_SIDE_EFFECT } from "../contract/approval.js";
import { isDisabledTool, type LockedApproval, type LockedCapability, type LockedToolDescriptor, type Lockfile } from "../contract/lockfile-types.js";
import { classifySchemaChange, compareSchemas } from "./schema-change.js";

/** The kinds of change, in the order a report lists them for one tool. */
export const CONTRACT_CHANGE_KINDS = [
  "tool-added",
  "tool-removed",
  "tool-renamed",
  "description-changed",
  "schema-widened",
  "schema-narrowed",
  "schema-changed",
  "approval-removed",
  "approval-weakened",
  "approval-added",
  "visibility-changed",
  "required-config-changed",
  "package-changed",
  "core-tool-disabled",
  "core-tool-restored",
] as const;

/** One kind of change. */
export type ContractChangeKind = (typeof CONTRACT_CHANGE_KINDS)[number];

/** One model-visible change. */
export interface ContractChange {
  readonly kind: ContractChangeKind;
  /** Surface id (`"."`, `"subagents/<name>"`). */
  readonly surface: string;
  /**
   * The capability key the change is in: the tool's in the new lock (the old lock's for a removed
   * tool), the package's for a package change. Not in `review --format json`, whose shape
   * DESIGN §7 pins; `review --format github|sarif` places the change in plugins.lock with it
   * (`lockfile/review-diagnostics.ts`).
   */
  readonly capability: string;
  /** The tool's name (the new name for a rename); `null` for a package change. */
  readonly tool: string | null;
  readonly detail: string;
  /** True when a person should look at it before the lock is committed. */
  readonly needsReview: boolean;
}

/** The review of one lock change. */
export interface ContractReview {
  /** Sorted by surface, tool, then {@link CONTRACT_CHANGE_KINDS} order. */
  readonly changes: readonly ContractChange[];
  /** True when some change needs review (`review` then exits 1). */
  readonly needsReview: boolean;
}

interface LocatedTool {
  readonly capabilityKey: string;
  readonly capability: LockedCapability;
  readonly tool: LockedToolDescriptor;
}

type Capabilities = { readonly [key: string]: LockedCapability };

/**
 * Classifies the differences between `before` (the committed lock; `undefined` when there is
 * none, so every tool is added) and `after` (what compile writes). Pure; never throws.
 */
export function reviewContract(before: Lockfile | undefined, after: Lockfile): ContractReview {
  const changes: ContractChange[] = [];
  const surfaces = [...new Set([...Object.keys(before?.surfaces ?? {}), ...Object.keys(after.surfaces)])].sort(byCodeUnits);
  for (const surface of surfaces) {
    const a = before?.surfaces[surface]?.capabilities ?? {};
    const b = after.surfaces[surface]?.capabilities ?? {};
    changes.push(...packageChanges(surface, a, b), ...toolChanges(surface, toolsOf(a), toolsOf(b)), ...disabledChanges(surface, a, b));
  }
  changes.sort(
    (x, y) =>
      byCodeUnits(x.surface, y.surface) ||
      byCodeUnits(x.tool ?? "", y.tool ?? "") ||
      CONTRACT_CHANGE_KINDS.indexOf(x.kind) - CONTRACT_CHANGE_KINDS.indexOf(y.kind) ||
      byCodeUnits(x.detail, y.detail),
  );
  return { changes, needsReview: changes.some((change) => change.needsReview) };
}

function toolsOf(capabilities: Capabilities): Map<string, LocatedTool> {
  const tools = new Map<string, LocatedTool>();
  for (const key of Object.keys(capabilities)) {
    const capability = capabilities[key]!;
    for (const name of Object.keys(capability.tools)) {
      const tool = capability.tools[name]!;
      if (!isDisabledTool(tool)) tools.set(name, { capabilityKey: key, capability, tool });
    }
  }
  return tools;
}

/** The core tools each capability removes with `{ "disabled": true }`: tool name → capability key. */
function disabledOf(capabilities: Capabilities): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of Object.keys(capabilities)) {
    const tools = capabilities[key]!.tools;
    for (const name of Object.keys(tools)) if (isDisabledTool(tools[name]!)) out.set(name, key);
  }
  return out;
}

/** A core tool a plugin now removes (needs review when the plugin is a published pack), or no longer removes. */
function disabledChanges(surface: string, before: Capabilities, after: Capabilities): ContractChange[] {
  const out: ContractChange[] = [];
  const a = disabledOf(before);
  const b = disabledOf(after);
  for (const [name, key] of [...b].sort(([x], [y]) => byCodeUnits(x, y))) {
    if (a.has(name)) continue;
    const source = after[key]!.source;
    const by = source.type === "npm" ? `${key} (${source.name}@${source.version})` : key;
    out.push({ kind: "core-tool-disabled", surface, capability: key, tool: name, detail: `the core tool ${name} is removed from the surface by ${by}: the model no longer gets it`, needsReview: source.type === "npm" });
  }
  for (const [name, key] of [...a].sort(([x], [y]) => byCodeUnits(x, y))) {
    if (!b.has(name)) out.push({ kind: "core-tool-restored", surface, capability: key, tool: name, detail: `the core tool ${name} is back: ${key} no longer removes it`, needsReview: false });
  }
  return out;
}

function packageChanges(surface: string, before: Capabilities, after: Capabilities): ContractChange[] {
  const out: ContractChange[] = [];
  const named = (capabilities: Capabilities, key: string): string | undefined => {
    const source = Object.hasOwn(capabilities, key) ? capabilities[key]!.source : undefined;
    return source?.type === "npm" ? `${source.name}@${source.version}` : undefined;
  };
  for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(byCodeUnits)) {
    const from = named(before, key);
    const to = named(after, key);
    let detail: string | undefined;
    if (from === undefined && to === undefined) continue;
    if (from === undefined) detail = `${key}: ${to} added`;
    else if (to === undefined) detail = `${key}: ${from} removed`;
    else if (from !== to) detail = `${key}: ${from} → ${to}`;
    else if (before[key]!.integrity !== after[key]!.integrity) detail = `${key}: ${to} has different content (integrity ${short(before[key]!.integrity)} → ${short(after[key]!.integrity)})`;
    if (detail) out.push({ kind: "package-changed", surface, capability: key, tool: null, detail, needsReview: false });
  }
  return out;
}

function toolChanges(surface: string, before: Map<string, LocatedTool>, after: Map<string, LocatedTool>): ContractChange[] {
  const out: ContractChange[] = [];
  const removed = [...before.keys()].filter((name) => !after.has(name)).sort(byCodeUnits);
  const added = [...after.keys()].filter((name) => !before.has(name)).sort(byCodeUnits);
  // A removed and an added tool with the same definition in the same capability are one tool
  // under a new key; the same definition in another plugin (a package added beside one removed)
  // is a tool removed and another added (helper-73 #15: `add` reported "echo → echo2").
  const renamedFrom = new Map<string, string>();
  for (const oldName of removed) {
    const identity = definitionIdentity(before.get(oldName)!);
    const newName = added.find((name) => !renamedFrom.has(name) && definitionIdentity(after.get(name)!) === identity);
    if (newName) renamedFrom.set(newName, oldName);
  }
  const renamed = new Set(renamedFrom.values());
  for (const name of removed) {
    if (!renamed.has(name)) out.push({ kind: "tool-removed", surface, capability: before.get(name)!.capabilityKey, tool: name, detail: `${name} (${before.get(name)!.capabilityKey}) is no longer sent to the model`, needsReview: false });
  }
  for (const name of added) {
    const oldName = renamedFrom.get(name);
    if (oldName !== undefined) {
      out.push({ kind: "tool-renamed", surface, capability: after.get(name)!.capabilityKey, tool: name, detail: `${oldName} → ${name} (same definition)`, needsReview: false });
      out.push(...compareTool(surface, name, before.get(oldName)!, after.get(name)!));
      continue;
    }
    const { tool, capabilityKey } = after.get(name)!;
    out.push({ kind: "tool-added", surface, capability: capabilityKey, tool: name, detail: `${name} (${capabilityKey}, ${tool.visibility}${tool.needsApproval ? ", needs approval" : ""})`, needsReview: false });
  }
  for (const name of [...after.keys()].filter((n) => before.has(n)).sort(byCodeUnits)) out.push(...compareTool(surface, name, before.get(name)!, after.get(name)!));
  return out;
}

/** What makes two tools "the same definition" for rename detection: the same capability, and the same module, factory, description and inputSchema in it. */
function definitionIdentity({ tool, capabilityKey }: LocatedTool): string {
  return canonicalJsonText({ capabilityKey, definition: tool.definition, factory: tool.factory ?? null, description: tool.description, inputSchema: tool.inputSchema });
}

function compareTool(surface: string, name: string, before: LocatedTool, after: LocatedTool): ContractChange[] {
  const out: ContractChange[] = [];
  const capability = after.capabilityKey;
  const a = before.tool;
  const b = after.tool;
  if (a.description !== b.description) {
    out.push({ kind: "description-changed", surface, capability, tool: name, detail: wordDiff(a.description, b.description), needsReview: after.capability.source.type === "npm" });
  }
  const signals = compareSchemas(a.inputSchema, b.inputSchema);
  const schemaKind = classifySchemaChange(signals);
  if (schemaKind) {
    const all = [...signals.narrowed, ...signals.widened, ...signals.changed];
    const shown = all.slice(0, 5).join("; ") + (all.length > 5 ? `; and ${all.length - 5} more` : "");
    out.push({ kind: schemaKind, surface, capability, tool: name, detail: shown, needsReview: false });
  }
  out.push(...approvalChanges(surface, capability, name, a.needsApproval, b.needsApproval));
  if (a.visibility !== b.visibility) out.push({ kind: "visibility-changed", surface, capability, tool: name, detail: `${a.visibility} → ${b.visibility}`, needsReview: false });
  if (canonicalJsonText(a.requiredConfig) !== canonicalJsonText(b.requiredConfig)) {
    const plus = b.requiredConfig.filter((k) => !a.requiredConfig.includes(k)).map((k) => `+ ${k}`);
    const minus = a.requiredConfig.filter((k) => !b.requiredConfig.includes(k)).map((k) => `- ${k}`);
    const parts = [...plus, ...minus];
    out.push({ kind: "required-config-changed", surface, capability, tool: name, detail: parts.length > 0 ? parts.join(", ") : "same names, new order", needsReview: false });
  }
  return out;
}

/** How much care a side effect asks for: `external` (the default) above `idempotent`; unknown kinds rank lowest. */
const SIDE_EFFECT_RANK: Readonly<Record<string, number>> = { [DEFAULT_SIDE_EFFECT]: 2, idempotent: 1 };

function approvalChanges(surface: string, capability: string, name: string, a: LockedApproval | undefined, b: LockedApproval | undefined): ContractChange[] {
  if (a === undefined && b === undefined) return [];
  if (a !== undefined && b === undefined) return [{ kind: "approval-removed", surface, capability, tool: name, detail: `the approval gate is gone (it asked: ${JSON.stringify(a.reason)}, sideEffect ${a.sideEffect})`, needsReview: true }];
  if (a === undefined && b !== undefined) return [{ kind: "approval-added", surface, capability, tool: name, detail: `now needs approval: ${JSON.stringify(b.reason)}, sideEffect ${b.sideEffect}`, needsReview: false }];
  const out: ContractChange[] = [];
  if (a!.sideEffect !== b!.sideEffect) {
    const weaker = (SIDE_EFFECT_RANK[b!.sideEffect] ?? 0) < (SIDE_EFFECT_RANK[a!.sideEffect] ?? 0);
    out.push({ kind: weaker ? "approval-weakened" : "approval-added", surface, capability, tool: name, detail: `sideEffect ${a!.sideEffect} → ${b!.sideEffect}`, needsReview: weaker });
  }
  if (a!.reason !== b!.reason) {
    // What the person at the gate is told changed: a reworded reason can hide what the call does.
    out.push({ kind: "approval-weakened", surface, capability, tool: name, detail: `the reason shown at the approval gate changed: ${wordDiff(a!.reason, b!.reason)}`, needsReview: true });
  }
  return out;
}

/** `Echo [-the-]{+a+} message`: removed words in `[-…-]`, added words in `{+…+}` (the `diff` package's word diff). */
export function wordDiff(before: string, after: string): string {
  return diffPackage()
    .diffWords(before, after)
    .map((part) => (part.added ? `{+${part.value}+}` : part.removed ? `[-${part.value}-]` : part.value))
    .join("");
}

function short(integrity: string): string {
  return integrity.length > 19 ? `${integrity.slice(0, 18)}…` : integrity;
}

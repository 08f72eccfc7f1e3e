/**
 * Which tools a surface offers its model: the one statement of the rule that both the runtime's
 * capability snapshot (`runtime-min/snapshot/build-snapshot.ts`, from the artifact) and the
 * compiler's provider profiles and token budgets (`compiler/providers/surface-tools.ts`, from the
 * analysis, before any artifact exists) apply, so the two cannot disagree about a surface.
 *
 * The rule (seed "Execution Model", "Tool visibility"; issue 13 item 1 for `delegate`):
 * 1. Every core tool of {@link CORE_TOOL_SPECS} starts on the surface, in the catalogue's order,
 *    unless a plugin's `disabled: true` descriptor or host core-tool policy removed it.
 * 2. An authored tool keeps a core tool's name only when a *plugin* disabled that core default;
 *    otherwise the built-in keeps the name and the authored tool is left out (`shadowed`, by
 *    `core`; the runtime warns `authored_shadows_core`). The compiler is stricter still: it
 *    refuses any authored tool with a core tool's name (AL4013, `compiler/validation/collisions.ts`).
 * 3. A surface with subagents also gets the framework's `delegate`, whose schema names exactly
 *    its own children; an authored tool of that name is left out there (`shadowed`, by
 *    `delegate`). A surface without subagents has no `delegate`, and an authored one keeps it.
 *
 * Visibility is not decided here: hidden, deferred and visible authored tools all come back, and
 * each caller keeps what it lists (the snapshot lists hidden tools as `hidden`; the compiler
 * leaves them out of what a model is sent).
 */
import { byCodeUnits } from "../common/compare.js";
import { CORE_TOOL_SPECS, DELEGATE_TOOL_NAME, delegateToolSpec, isCoreToolName, type CoreToolSpec } from "./core-catalog.js";

/** Who removed a core default: a plugin's `disabled: true` descriptor, or host core-tool policy. */
export type CoreToolRemovedBy = "plugin" | "host";

/** What {@link surfaceToolSet} reads: one surface's removals, authored tools and subagents. */
export interface SurfaceToolSetInput<T extends { readonly name: string }> {
  /** Core tool names removed on this surface, and by whom (names that are not core tools are ignored). */
  readonly removed: ReadonlyMap<string, CoreToolRemovedBy>;
  /** The surface's authored tools, any order, every visibility. */
  readonly authored: readonly T[];
  /** The folder names of the surface's own subagents (`childSurfacesOf`), in their order. */
  readonly children: readonly string[];
}

/** The tools a surface offers, by kind. */
export interface SurfaceToolSet<T> {
  /** The core tools that stay, in the catalogue's order (without `delegate`). */
  readonly core: readonly CoreToolSpec[];
  /** The framework's `delegate` for this surface's subagents; absent without subagents. */
  readonly delegate?: CoreToolSpec;
  /** The authored tools that keep their names, by name in code-unit order. */
  readonly authored: readonly T[];
  /** Authored tools left out because a core tool (`core`) or `delegate` keeps the name, by name. */
  readonly shadowed: readonly { readonly tool: T; readonly by: "core" | "delegate" }[];
}

/**
 * Applies the rule above to one surface.
 *
 * @param input the surface's core removals, authored tools and subagent names.
 * @returns the core tools kept, `delegate` when the surface has subagents, the authored tools
 *   kept, and the authored tools left out with what keeps their name. Never throws.
 */
export function surfaceToolSet<T extends { readonly name: string }>(input: SurfaceToolSetInput<T>): SurfaceToolSet<T> {
  const core = CORE_TOOL_SPECS.filter((spec) => !input.removed.has(spec.name));
  const delegate = input.children.length > 0 ? delegateToolSpec(input.children) : undefined;
  const authored: T[] = [];
  const shadowed: { tool: T; by: "core" | "delegate" }[] = [];
  for (const tool of [...input.authored].sort((a, b) => byCodeUnits(a.name, b.name))) {
    if (isCoreToolName(tool.name) && input.removed.get(tool.name) !== "plugin") shadowed.push({ tool, by: "core" });
    else if (delegate && tool.name === DELEGATE_TOOL_NAME) shadowed.push({ tool, by: "delegate" });
    else authored.push(tool);
  }
  return delegate ? { core, delegate, authored, shadowed } : { core, authored, shadowed };
}

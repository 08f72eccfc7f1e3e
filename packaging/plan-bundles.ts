/**
 * Which bundles a compile produces and what each is called (DESIGN §6: one self-contained ESM
 * file per tool definition).
 *
 * Naming scheme (artifact-relative, `/`-separated):
 *
 *     bundles/<surface>/<capability>/<definition path inside the plugin, without extension>.mjs
 *
 * - `<surface>` is `root` for the root surface `"."`, and the surface id itself for a subagent
 *   (`subagents/helper`, nested `subagents/helper/subagents/child`). `root` can never be read as
 *   a subagent path, which always begins with `subagents/`.
 * - `<capability>` is the capability key in `agent.md`.
 * - e.g. the seed's `plugins/example/ai.assemblyline/echo.ts` of the root surface becomes
 *   `bundles/root/example/ai.assemblyline/echo.mjs`.
 * - `.mjs`, so Node loads the bundle as ESM whatever `package.json` is near the artifact.
 *
 * Tools of the same surface and capability that share a definition module share its bundle.
 * Two different definitions that would get the same name — compared case-insensitively, since
 * artifacts are copied to case-insensitive file systems — are reported (AL7006), as is any name
 * part that is not a plain relative path (AL7007, AL7010).
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { byCodeUnits } from "../common/compare.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";

/** One authored tool to package: where it comes from and its definition module. */
export interface PackagingTool {
  /** `"."` for the root surface, `"subagents/<name>"` (nested likewise) for a subagent. */
  readonly surfaceId: string;
  /** Capability key in the surface's `agent.md`. */
  readonly capability: string;
  /** Model-facing tool name (the key under `tools` in the plugin entry). */
  readonly toolName: string;
  /** Absolute path of the plugin root. */
  readonly pluginRoot: string;
  /** Absolute path of the definition module. */
  readonly definitionFile: string;
}

/** One bundle to build: its entry name (artifact-relative path without `.mjs`) and the tools it serves. */
export interface PlannedBundle {
  readonly name: string;
  readonly definitionFile: string;
  /** The tools served by this bundle, sorted by tool name. */
  readonly tools: readonly PackagingTool[];
}

/** The bundles to build, sorted by name, and the diagnostics of tools that cannot be packaged. */
export interface BundlePlan {
  readonly bundles: readonly PlannedBundle[];
  readonly diagnostics: readonly Diagnostic[];
}

/** File extension of every bundle. */
export const BUNDLE_EXTENSION = ".mjs";

/**
 * The key of a tool in `bundleTools`' `toolBundles` map: surface id, capability key and tool
 * name joined by NUL (a character none of them can contain).
 */
export function toolBundleKey(surfaceId: string, capability: string, toolName: string): string {
  return `${surfaceId}\0${capability}\0${toolName}`;
}

/** The directory of a surface under `bundles/`: `root` for `"."`, else the surface id. */
export function surfaceDirectory(surfaceId: string): string {
  return surfaceId === "." ? "root" : surfaceId;
}

/** How a tool is named in messages: `"echo" (capability "example", surface ".")`. */
export function describeTool(tool: Pick<PackagingTool, "surfaceId" | "capability" | "toolName">): string {
  return `"${tool.toolName}" (capability "${tool.capability}", surface "${tool.surfaceId}")`;
}

/**
 * Groups tools into bundles and names them (see the module header).
 *
 * @returns bundles sorted by name (code-unit order) and a diagnostic for every tool that
 *   cannot be packaged; such tools are left out of every bundle.
 */
export function planBundles(tools: readonly PackagingTool[]): BundlePlan {
  const diagnostics: Diagnostic[] = [];
  const groups = new Map<string, { name: string; definitionFile: string; tools: PackagingTool[] }>();
  for (const tool of tools) {
    const name = bundleNameOf(tool, diagnostics);
    if (name === undefined) continue;
    const identity = `${tool.surfaceId}\0${tool.capability}\0${tool.definitionFile}`;
    const group = groups.get(identity);
    if (group) group.tools.push(tool);
    else groups.set(identity, { name, definitionFile: tool.definitionFile, tools: [tool] });
  }
  const sorted = [...groups.values()].sort(
    (a, b) => byCodeUnits(a.name, b.name) || byCodeUnits(a.definitionFile, b.definitionFile),
  );
  const claimed = new Map<string, PlannedBundle>();
  const bundles: PlannedBundle[] = [];
  for (const group of sorted) {
    const bundle: PlannedBundle = {
      name: group.name,
      definitionFile: group.definitionFile,
      tools: [...group.tools].sort((a, b) => byCodeUnits(a.toolName, b.toolName)),
    };
    const first = claimed.get(group.name.toLowerCase());
    if (first) {
      diagnostics.push(collision(first, bundle));
      continue;
    }
    claimed.set(group.name.toLowerCase(), bundle);
    bundles.push(bundle);
  }
  return { bundles, diagnostics };
}

/** The entry name of a tool's bundle, or `undefined` (with a diagnostic) when none is safe. */
function bundleNameOf(tool: PackagingTool, diagnostics: Diagnostic[]): string | undefined {
  const at = { file: tool.definitionFile, line: 1, column: 1 };
  const relative = relativePosix(tool.pluginRoot, tool.definitionFile);
  if (relative === "" || relative === ".." || relative.startsWith("../") || path.isAbsolute(relative)) {
    diagnostics.push(
      createDiagnostic(Diagnostics.DefinitionOutsidePluginRoot, at, [tool.definitionFile, describeTool(tool), tool.pluginRoot]),
    );
    return undefined;
  }
  const parts: [string, string][] = [
    ["surface", surfaceDirectory(tool.surfaceId)],
    ["capability", tool.capability],
    ["definition", relative],
  ];
  for (const [what, value] of parts) {
    if (!value.split("/").every(isPlainSegment)) {
      diagnostics.push(createDiagnostic(Diagnostics.UnsafeBundleName, at, [what, value]));
      return undefined;
    }
  }
  const withoutExtension = relative.slice(0, relative.length - path.posix.extname(relative).length);
  return `bundles/${surfaceDirectory(tool.surfaceId)}/${tool.capability}/${withoutExtension}`;
}

/** A path that is absolute and normalized on POSIX: no empty, `.` or `..` segment, no trailing separator. */
const NOT_NORMALIZED = /\/\.{0,2}(?:\/|$)/;

/**
 * `path.relative(from, to)` in `/` form. Where both are normalized absolute POSIX paths and `to`
 * is inside `from` (every definition of a plugin: 2,000 tools in a large agent), the answer is
 * the rest of `to`, taken without `path.relative`'s resolving of both paths.
 */
function relativePosix(from: string, to: string): string {
  if (path.sep === "/" && from.startsWith("/") && to.startsWith(from) && to[from.length] === "/" && !NOT_NORMALIZED.test(from) && !NOT_NORMALIZED.test(to)) return to.slice(from.length + 1);
  return path.relative(from, to).split(path.sep).join("/");
}

function isPlainSegment(segment: string): boolean {
  return segment !== "" && segment !== "." && segment !== ".." && !/[\\:\0]/.test(segment);
}

function collision(first: PlannedBundle, second: PlannedBundle): Diagnostic {
  return createDiagnostic(
    Diagnostics.BundlePathCollision,
    { file: second.definitionFile, line: 1, column: 1 },
    [describeTool(first.tools[0]!), describeTool(second.tools[0]!), `${first.name}${BUNDLE_EXTENSION}`],
    {
      related: [
        { file: first.definitionFile, line: 1, column: 1, message: `${describeTool(first.tools[0]!)} is packaged from this module` },
      ],
    },
  );
}

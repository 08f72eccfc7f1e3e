/**
 * The framework's built-in ("core") tools, keyed by name (seed "Execution Model"). Metadata
 * (descriptions, schemas, visibility) comes from `../snapshot/core-catalog.ts`; this module
 * pairs each with its implementation. The dispatcher looks a tool up here after
 * `resolveTool(...)` says `kind: "core"`, validates input against `inputSchema`, then calls
 * `execute(input, ctx)`.
 */
import { CORE_TOOL_NAMES } from "../../contract/core-catalog.js";
import { bashCoreTool } from "./bash.js";
import { deliverArtifactTool } from "./delivery.js";
import { deleteCoreTool, editCoreTool, readCoreTool, writeCoreTool } from "./file-tools.js";
import { grepCoreTool } from "./grep.js";
import { handoffArtifactTool } from "./handoffs.js";
import { createHostProvidedTool, HOST_PROVIDED_TOOLS } from "./host-provided.js";
import { listCoreTool, workspaceInfoCoreTool, workspaceSnapshotCoreTool } from "./list-tools.js";
import { loadSkillCoreTool } from "./load-skill.js";
import { toolSearchCoreTool } from "./tool-search-tool.js";
import type { CoreTool } from "./types.js";

const implemented: readonly CoreTool[] = [
  readCoreTool,
  writeCoreTool,
  editCoreTool,
  deleteCoreTool,
  listCoreTool,
  grepCoreTool,
  bashCoreTool,
  handoffArtifactTool,
  deliverArtifactTool,
  loadSkillCoreTool,
  toolSearchCoreTool,
  workspaceInfoCoreTool,
  workspaceSnapshotCoreTool,
  ...HOST_PROVIDED_TOOLS.map(createHostProvidedTool),
];

/** Every core tool implementation by name, in `CORE_TOOL_NAMES` order (sorted). */
export const CORE_TOOLS: ReadonlyMap<string, CoreTool> = new Map(
  CORE_TOOL_NAMES.map((name) => {
    const tool = implemented.find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`Core tool "${name}" has no implementation.`);
    return [name, tool] as const;
  }),
);

/** The implementation of core tool `name`, or `undefined` when `name` is not a core tool. */
export function getCoreTool(name: string): CoreTool | undefined {
  return CORE_TOOLS.get(name);
}

export type { CoreJson, CoreTool, CoreToolContext, HostToolImplementation } from "./types.js";
export { DEFAULT_ARTIFACT_BYTE_LIMIT } from "./types.js";
export { EXCLUDED_SEGMENTS, EXCLUDED_SUFFIXES, findExcludedPart } from "./artifact-files.js";
export { BlobIntegrityError, blobPath, digestBytes, putBlob, readBlob, type BlobRef } from "./blob-store.js";
export { listDeliveries, readDeliveredBytes, type DeliverySelection } from "./delivery.js";
export { HANDOFFS_ROOT, canReadHandoff, handoffReceiptPath, listHandoffs, parseHandoffPath, readHandoff, type HandoffReceipt } from "./handoffs.js";
export { HOST_PROVIDED_TOOLS } from "./host-provided.js";
export { searchIndexFor } from "./tool-search-tool.js";
export { WORKSPACE_ROOT, resolveWorkspacePath, toWorkspacePath, toWorkspaceRelative, type ResolvedWorkspacePath } from "./workspace-paths.js";

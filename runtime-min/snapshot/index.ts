/**
 * The capability snapshot: which tools a surface's model starts with, what it can find with
 * `tool_search`, and what a tool name means to the dispatcher (seed "Execution Model").
 */
export {
  ALWAYS_VISIBLE_CORE_TOOLS,
  CORE_TOOL_NAMES,
  CORE_TOOL_SPECS,
  DEFERRED_CORE_TOOLS,
  getCoreToolSpec,
  isCoreToolName,
  type CoreImplementer,
  type CoreToolSpec,
  type CoreVisibility,
} from "../../contract/core-catalog.js";
export { UnknownSurfaceError, buildSnapshot, createToolResolver, getSurface, resolveTool } from "./build-snapshot.js";
export type {
  CapabilitySnapshot,
  CatalogTool,
  CoreToolPolicy,
  DisabledCoreTool,
  ListedVisibility,
  SnapshotOptions,
  SnapshotTool,
  SnapshotWarning,
  SnapshotWarningCode,
  ToolResolution,
  ToolSource,
} from "./types.js";

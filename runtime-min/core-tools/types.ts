/**
 * The interface of the framework's built-in ("core") tools, which always run in the host
 * (seed "Execution Model": framework built-ins remain in the host; `runtimeBoundary: "host"`).
 *
 * The runtime's dispatcher validates input against `inputSchema` first, then calls `execute`.
 * A built-in fails a call by throwing `ToolCallError` (see `../failures.ts`); anything else it
 * throws is an `execution_error`.
 */
import type { ArtifactManifest } from "../artifact/manifest.js";

/** JSON object input/output of a built-in. */
export type CoreJson = { readonly [key: string]: unknown };

/** Services the host gives a built-in for one call. */
export interface CoreToolContext {
  readonly runId: string;
  readonly toolCallId: string;
  /** Surface id (`"."`, `"subagents/researcher"`). */
  readonly surfaceId: string;
  /** Absolute host path of this run's workspace directory (`/workspace/...` maps onto it). */
  readonly workspaceDir: string;
  /** Absolute path of the agent root's `.assemblyline/` state directory (blob store lives under it). */
  readonly stateDir: string;
  readonly manifest: ArtifactManifest;
  /** Absolute artifact directory (skills are read from here). */
  readonly artifactDir: string;
  /** Records an event in the run's log. */
  emit(type: string, data?: CoreJson): Promise<void>;
}

/** One built-in tool. */
export interface CoreTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: CoreJson;
  /** Core set tools are `visible`; `history_search` and the workspace tools are `deferred`. */
  readonly visibility: "visible" | "deferred";
  execute(input: CoreJson, ctx: CoreToolContext): Promise<unknown>;
}

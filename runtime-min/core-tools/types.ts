/**
 * The interface of the framework's built-in ("core") tools, which always run in the host
 * (seed "Execution Model": framework built-ins remain in the host; `runtimeBoundary: "host"`).
 *
 * The runtime's dispatcher validates input against `inputSchema` first, then calls `execute`.
 * A built-in fails a call by throwing `ToolCallError` (see `../failures.ts`); anything else it
 * throws is an `execution_error`.
 */
import type { ArtifactManifest } from "../../contract/manifest.js";
import type { ToolSandbox } from "../authoring/index.js";
import type { SearchableTool, ToolSearchIndex } from "../search/tool-search-index.js";
import type { CoreToolPolicy } from "../snapshot/types.js";
import type { DelegationService } from "./delegation-types.js";

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
  /**
   * Aborted when the call has finished: it returned, or it was ended by the host's cancel, its
   * operation deadline or the loss of the run's progress lease (seed "Tool implementation":
   * control-plane failures end the run). A built-in whose work can outlast a deadline (a walk,
   * hashing, a worker, a child run) stops it then, so that the host's work for a call ends with
   * the call (helper-65's review, C2). Absent only where a caller builds a context of its own.
   */
  readonly signal?: AbortSignal;

  // ---- Optional services (added by issue 5; all additive). A built-in that needs a missing
  // ---- one fails the call with `configuration_error` naming it.

  /**
   * Run id of the parent run that delegated to this child run. Needed (with or instead of
   * `conversationId`) by `handoff_artifact`: the receipt records it, and only that parent run
   * may read the handoff when no conversation id is known.
   */
  readonly parentRunId?: string;
  /**
   * Conversation id of the run (the root's conversation, for a child run too). When a handoff
   * receipt carries one, later root turns of the same conversation can read the handoff;
   * other conversations cannot.
   */
  readonly conversationId?: string;
  /**
   * Byte limit of one `handoff_artifact` / `deliver_artifact` file (host configuration).
   * Default {@link DEFAULT_ARTIFACT_BYTE_LIMIT} (25 MiB).
   */
  readonly artifactByteLimit?: number;
  /**
   * The run's sandbox (same object authored tools get from `ctx.getSandbox()`, with the same
   * environment allowlist and no host secrets). `bash` calls `exec(command, { timeoutMs })`
   * on it with `/workspace` as working directory; without it `bash` is a `configuration_error`.
   */
  getSandbox?(): Promise<ToolSandbox>;
  /**
   * Records the tools on a `tool_search` page as activated for this run, so the next
   * snapshot (`buildSnapshot({ activated })`) lists them with full schemas. Receives only the
   * page's deferred tool names (visible ones are already loaded), sorted. `tool_search` also
   * emits `tool_search.activated` with the same names.
   */
  activateTools?(names: readonly string[]): Promise<void>;
  /**
   * The surface's search index (e.g. `createToolSearchIndex(buildSnapshot(...).catalog)`,
   * cached by the engine). When absent, `tool_search` builds and caches one from `manifest`,
   * `surfaceId` and `coreToolPolicy`.
   */
  readonly toolSearchIndex?: ToolSearchIndex<SearchableTool & { readonly source?: string }>;
  /** Host core-tool policy of this run (used when `toolSearchIndex` is absent). */
  readonly coreToolPolicy?: CoreToolPolicy;
  /**
   * Host-provided implementations of the built-ins that need services this runtime does not
   * have: `pair`, `files_search`, `files_mount`, `history_search` (from the JS API). Input has
   * already been validated against the core tool's `inputSchema`.
   */
  readonly hostImplementations?: { readonly [coreToolName: string]: HostToolImplementation };
  /** What `delegate` needs: the host's child driver and a way to run the child's tool calls. */
  readonly delegation?: DelegationService;
}

/** A host-provided implementation of a built-in (see `CoreToolContext.hostImplementations`). */
export type HostToolImplementation = (input: CoreJson, ctx: CoreToolContext) => Promise<unknown>;

/** Default of `CoreToolContext.artifactByteLimit`: 25 MiB. */
export const DEFAULT_ARTIFACT_BYTE_LIMIT = 25 * 1024 * 1024;

/** One built-in tool. */
export interface CoreTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: CoreJson;
  /** Core set tools are `visible`; `history_search` and the workspace tools are `deferred`. */
  readonly visibility: "visible" | "deferred";
  execute(input: CoreJson, ctx: CoreToolContext): Promise<unknown>;
}

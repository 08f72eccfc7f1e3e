/**
 * Runs a built-in (core) or host-provided tool in the host (seed "Execution Model": framework
 * built-ins and host-provided stubs remain in the host; `runtimeBoundary: "host"`). The tool
 * implements `CoreTool` (`../core-tools/types.ts`); it fails a call with `ToolCallError`, and
 * anything else it throws is classified like an authored tool's error. A failure's words are an
 * authored tool's too: the message and its bounded `cause` chain (`describeThrown`).
 */
import type { ArtifactManifest } from "../../contract/manifest.js";
import type { CoreJson, CoreTool, CoreToolContext, HostToolImplementation } from "../core-tools/types.js";
import type { DelegationService } from "../core-tools/delegation-types.js";
import { classifyToolError, ControlPlaneError } from "../failures.js";
import type { CallOutcome } from "../sandbox/execute-definition.js";
import { messageOf } from "../sandbox/execute-definition.js";
import { describeThrown } from "../sandbox/thrown-message.js";
import { copyJson, type Json } from "../sandbox/json-copy.js";
import { createToolContext } from "../sandbox/tool-context.js";
import type { CoreToolPolicy } from "../snapshot/types.js";
import type { StateStore } from "../state/state-store.js";
import type { CallSession } from "./call-session.js";
import type { ToolCatalog } from "./tool-catalog.js";

/** Where a core tool runs, and the optional services the runtime offers it. */
export interface CoreCallEnvironment {
  readonly surfaceId: string;
  readonly stateDir: string;
  readonly manifest: ArtifactManifest;
  readonly artifactDir: string;
  readonly store: StateStore;
  readonly coreToolPolicy: CoreToolPolicy;
  /** Source of the surface's `tool_search` index (built on first use, then cached). */
  readonly catalog: ToolCatalog;
  readonly hostImplementations?: { readonly [coreToolName: string]: HostToolImplementation };
  readonly artifactByteLimit?: number;
  readonly conversationId?: string;
  readonly parentRunId?: string;
  readonly delegation?: DelegationService;
}

/**
 * Executes `tool` with already validated `input`. Returns the outcome; rethrows only a
 * {@link ControlPlaneError} (a built-in that hit the state store ends the run).
 */
export async function executeCoreTool(tool: CoreTool, input: Json, session: CallSession, environment: CoreCallEnvironment): Promise<CallOutcome> {
  const { runId, callId, workspace } = session.identity;
  const context: CoreToolContext = {
    runId,
    toolCallId: callId,
    surfaceId: environment.surfaceId,
    workspaceDir: workspace,
    stateDir: environment.stateDir,
    manifest: environment.manifest,
    artifactDir: environment.artifactDir,
    async emit(type: string, data: CoreJson = {}): Promise<void> {
      session.assertOpen();
      session.record(type, copyJson(data, "event data") as { [key: string]: Json });
    },
    // Taken only by a built-in that watches it (CallSession.signal is made on first use).
    get signal() {
      return session.signal;
    },
    // The same brokered sandbox authored tools get: workspace-confined files, allowlisted shell.
    getSandbox: () => createToolContext({ runId, toolCallId: callId, config: {}, workspace }, { request: (operation) => session.handle(operation) }).getSandbox(),
    async activateTools(names: readonly string[]): Promise<void> {
      session.assertOpen();
      session.persist("record activated tools", () => environment.store.activateTools(runId, environment.surfaceId, names));
    },
    // The index `runtime.search` uses too: built once per surface, on first use.
    get toolSearchIndex() {
      return environment.catalog.searchIndex(environment.surfaceId);
    },
    coreToolPolicy: environment.coreToolPolicy,
    ...(environment.hostImplementations ? { hostImplementations: environment.hostImplementations } : {}),
    ...(environment.artifactByteLimit === undefined ? {} : { artifactByteLimit: environment.artifactByteLimit }),
    ...(environment.conversationId === undefined ? {} : { conversationId: environment.conversationId }),
    ...(environment.parentRunId === undefined ? {} : { parentRunId: environment.parentRunId }),
    ...(environment.delegation ? { delegation: environment.delegation } : {}),
  };
  let result: unknown;
  try {
    result = await tool.execute(input as CoreJson, context);
  } catch (error) {
    if (error instanceof ControlPlaneError) throw error;
    // The words of an authored tool's failure, from the same one place (../sandbox/thrown-message.ts):
    // the message and its bounded cause chain; an invalid_input keeps the message written for the model.
    const failureKind = classifyToolError(error);
    return { ok: false, failureKind, error: failureKind === "invalid_input" ? messageOf(error) : describeThrown(error) };
  }
  try {
    const output = copyJson(result, "result");
    return { ok: true, output, modelOutput: output };
  } catch (error) {
    return { ok: false, failureKind: "execution_error", error: `Tool '${tool.name}' returned a value that is not JSON: ${messageOf(error)}` };
  }
}

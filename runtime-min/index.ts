/**
 * Public entry of runtime-min (see `README.md` in this folder for the JS API).
 */
export { openRuntime, Runtime, STATE_DB_FILE } from "./runtime.js";
export type {
  ApprovalInfo,
  ApproveRequest,
  CallResult,
  ExecutionPolicy,
  Json,
  RuntimeEvent,
  RuntimeOptions,
  SearchRequest,
  ShellIsolationPolicy,
  ShellIsolationStatus,
  SnapshotRequest,
  ToolCallRequest,
  ToolSearchResult,
  UseToolOptions,
} from "./types.js";
export type { CapabilitySnapshot, CatalogTool, CoreToolPolicy, SnapshotTool, SnapshotWarning } from "./snapshot/types.js";
export { RuntimeError } from "./errors.js";
export { startSandboxEarly, EarlySandboxStart, SANDBOX_START_FILE, type EarlyCall, type SandboxStartEntry } from "./execution/early-start.js";
export { childRunIdOf, type ChildCallResult, type ChildDriver, type ChildRunReport, type ChildRunRequest, type DelegationDeliverables, type DeliveredFile } from "./core-tools/delegate.js";
export { ControlPlaneError, ToolCallError, type ControlPlaneReason, type FailureKind, type RunFailure, type ToolFailure } from "./failures.js";
export { loadArtifact, type LoadedArtifact, type LoadArtifactOptions, type VerifiedTool } from "./artifact/load-artifact.js";
export { SANDBOX_ENV_ALLOWLIST } from "./sandbox/sandbox-environment.js";
export { probeShellIsolation, type ShellIsolationProbe, type ShellIsolationTools } from "./sandbox/shell-isolation.js";
export { deriveIdempotencyKey } from "./sandbox/tool-context.js";

/**
 * `deliver_artifact` and the delivery selections (seed "Execution Model": "The root calls
 * deliver_artifact only for files the user should receive. It accepts an exact /workspace/...
 * file or an exact parent-readable /files/handoffs/... file and selects those bytes for channel
 * delivery … Final delivery reads immutable selection metadata; it does not rescan /workspace
 * or wait for workspace sync. A path mentioned in prose never counts as a handoff or
 * attachment.").
 *
 * A selection is immutable JSON at `<stateDir>/deliveries/<run-id>/<tool-call-id>.json`
 * (both ids URI-encoded into one file name each), written once; the bytes are in the blob
 * store. `listDeliveries` and `readDeliveredBytes` are what final delivery uses.
 *
 * Only the root surface delivers: a subagent's files reach the user through its parent
 * (`handoff_artifact`, then the root's `deliver_artifact`).
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { ToolCallError } from "../failures.js";
import { artifactByteLimit, formatBytes, readArtifactSource } from "./artifact-files.js";
import { putBlob, readBlob, writeOnceFile, type BlobRef } from "./blob-store.js";
import { HANDOFFS_ROOT, readHandoff } from "./handoffs.js";
import { pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import { WORKSPACE_ROOT } from "./workspace-paths.js";

/** The durable, immutable record of one file selected for the user. */
export interface DeliverySelection {
  readonly selectionVersion: 1;
  readonly runId: string;
  readonly toolCallId: string;
  readonly surfaceId: string;
  readonly conversationId: string | null;
  /** The exact path the root passed (`/workspace/...` or `/files/handoffs/...`). */
  readonly path: string;
  readonly origin: "workspace" | "handoff";
  /** File name to show the user (last segment of `path`). */
  readonly fileName: string;
  readonly sha512: string;
  readonly integrity: string;
  readonly size: number;
  /** ISO-8601 time of the selection. */
  readonly selectedAt: string;
}

function selectionDir(stateDir: string, runId: string): string {
  return path.join(stateDir, "deliveries", encodeURIComponent(runId));
}

function selectionFile(stateDir: string, runId: string, toolCallId: string): string {
  return path.join(selectionDir(stateDir, runId), `${encodeURIComponent(toolCallId)}.json`);
}

function assertRootSurface(ctx: CoreToolContext): void {
  const surface = Object.prototype.hasOwnProperty.call(ctx.manifest.surfaces, ctx.surfaceId) ? ctx.manifest.surfaces[ctx.surfaceId] : undefined;
  if (!surface) throw new ToolCallError("configuration_error", `The artifact has no surface "${ctx.surfaceId}"; the host started the run on an unknown surface.`);
  if (surface.parent !== null) {
    throw new ToolCallError("invalid_input", `deliver_artifact is for the root surface; subagent "${ctx.surfaceId}" hands files to its parent with handoff_artifact, and the parent delivers them.`);
  }
}

async function selectBytes(ctx: CoreToolContext, input: string): Promise<{ origin: DeliverySelection["origin"]; path: string; blob: BlobRef }> {
  if (input.startsWith(`${HANDOFFS_ROOT}/`)) {
    const { receipt, bytes } = await readHandoff(ctx, input);
    const limit = artifactByteLimit(ctx);
    if (bytes.byteLength > limit) {
      throw new ToolCallError("invalid_input", `${input} is ${formatBytes(bytes.byteLength)}, over the ${formatBytes(limit)} limit of deliver_artifact.`);
    }
    return { origin: "handoff", path: receipt.path, blob: { sha512: receipt.sha512, integrity: receipt.integrity, size: receipt.size } };
  }
  if (input.startsWith(`${WORKSPACE_ROOT}/`)) {
    const { resolved, bytes } = await readArtifactSource(ctx, input, "deliver_artifact");
    return { origin: "workspace", path: resolved.workspacePath, blob: await putBlob(ctx.stateDir, bytes) };
  }
  throw new ToolCallError("invalid_input", `deliver_artifact takes an exact /workspace/... file or an exact ${HANDOFFS_ROOT}/... path, got "${input}".`);
}

/**
 * Selects one exact file for delivery to the user.
 * @returns `{ path, fileName, sha512, integrity, size, origin }`.
 */
export async function deliverArtifact(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  assertRootSurface(ctx);
  const requested = requiredString(input, "path");
  const { origin, path: canonical, blob } = await selectBytes(ctx, requested);
  const selection: DeliverySelection = {
    selectionVersion: 1,
    runId: ctx.runId,
    toolCallId: ctx.toolCallId,
    surfaceId: ctx.surfaceId,
    conversationId: ctx.conversationId ?? null,
    path: canonical,
    origin,
    fileName: path.posix.basename(canonical),
    sha512: blob.sha512,
    integrity: blob.integrity,
    size: blob.size,
    selectedAt: new Date().toISOString(),
  };
  const file = selectionFile(ctx.stateDir, ctx.runId, ctx.toolCallId);
  let stored = selection;
  if ((await writeOnceFile(file, `${JSON.stringify(selection, null, 2)}\n`)) === "exists") {
    stored = JSON.parse(await readFile(file, "utf8")) as DeliverySelection;
    if (stored.sha512 !== selection.sha512 || stored.path !== selection.path) {
      throw new ToolCallError("execution_error", `Tool call ${ctx.toolCallId} already selected ${stored.path} for delivery; a retried call must select the same bytes.`);
    }
  }
  const result = { path: stored.path, fileName: stored.fileName, origin: stored.origin, sha512: stored.sha512, integrity: stored.integrity, size: stored.size };
  await ctx.emit("artifact.delivery_selected", result);
  return result;
}

/**
 * The selections of run `runId`, in the order they were made (by `selectedAt`, then
 * tool-call id). Returns `[]` when nothing was selected. Final delivery reads these and
 * `readDeliveredBytes`; it never rescans the workspace.
 */
export async function listDeliveries(stateDir: string, runId: string): Promise<DeliverySelection[]> {
  const dir = selectionDir(stateDir, runId);
  const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => name.endsWith(".json")); // write-once temp files end in .tmp
  const selections: DeliverySelection[] = [];
  for (const name of names) selections.push(JSON.parse(await readFile(path.join(dir, name), "utf8")) as DeliverySelection);
  return selections.sort((a, b) => (a.selectedAt < b.selectedAt ? -1 : a.selectedAt > b.selectedAt ? 1 : a.toolCallId < b.toolCallId ? -1 : a.toolCallId > b.toolCallId ? 1 : 0));
}

/**
 * The exact bytes of a selection, verified against its SHA-512 and size.
 * @throws BlobIntegrityError when the stored bytes are damaged.
 */
export function readDeliveredBytes(stateDir: string, selection: Pick<DeliverySelection, "sha512" | "size">): Promise<Buffer> {
  return readBlob(stateDir, selection);
}

/** The `deliver_artifact` core tool. */
export const deliverArtifactTool: CoreTool = { ...pickSpec("deliver_artifact"), execute: deliverArtifact };

/**
 * `handoff_artifact` and the handoff receipts (seed "Execution Model": "A subagent calls
 * handoff_artifact with an exact /workspace/... file. The runtime verifies and stores the exact
 * bytes, then exposes an immutable, parent-readable /files/handoffs/<child-run-id>/... path.
 * Later root turns in the same conversation can resolve that exact path from the durable
 * receipt; other conversations and child surfaces cannot. This never attaches the file to the
 * user.").
 *
 * Storage: the bytes go to the blob store (`blob-store.ts`); the receipt is immutable JSON at
 * `<stateDir>/handoffs/<child-run-id>/<workspace-relative path>.json` (write-once). Handing off
 * the same path again with the same bytes returns the existing receipt; with other bytes it
 * is refused (the path is immutable).
 *
 * Who may read `/files/handoffs/<child-run-id>/<path>`: a run on the child's parent surface
 * (from the manifest) and, when the receipt records a conversation id, in that conversation;
 * otherwise the parent run itself (`parentRunId`). Anyone else gets the same "no readable
 * handoff" answer as for a path that does not exist, so existence does not leak.
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { ToolCallError } from "../failures.js";
import { readArtifactSource } from "./artifact-files.js";
import { putBlob, readBlob, writeOnceFile } from "./blob-store.js";
import { pickSpec, requiredString } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";

/** Model-facing root of handoff paths. */
export const HANDOFFS_ROOT = "/files/handoffs";

/** The durable, immutable record of one handoff. */
export interface HandoffReceipt {
  readonly receiptVersion: 1;
  /** `/files/handoffs/<child-run-id>/<relative>`: the path the parent reads. */
  readonly path: string;
  readonly childRunId: string;
  readonly childSurfaceId: string;
  readonly parentSurfaceId: string;
  readonly parentRunId: string | null;
  readonly conversationId: string | null;
  /** The `/workspace/...` file the child handed off. */
  readonly sourcePath: string;
  readonly sha512: string;
  readonly integrity: string;
  readonly size: number;
  readonly toolCallId: string;
  /** ISO-8601 time the receipt was written. */
  readonly createdAt: string;
}

const SAFE_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** True when `id` can be one path segment of a handoff path (`[A-Za-z0-9][A-Za-z0-9._-]*`). */
export function isSafePathSegment(id: string): boolean {
  return SAFE_SEGMENT.test(id);
}

/**
 * Splits an exact `/files/handoffs/<child-run-id>/<relative>` path.
 * @throws ToolCallError `invalid_input` naming the path when it is not of that form.
 */
export function parseHandoffPath(input: string): { childRunId: string; relative: string } {
  const prefix = `${HANDOFFS_ROOT}/`;
  const fail = (why: string): ToolCallError =>
    new ToolCallError("invalid_input", `"${input}" is not a handoff path: ${why}. Handoff paths look like ${HANDOFFS_ROOT}/<child-run-id>/<file>.`);
  if (!input.startsWith(prefix)) throw fail(`it does not start with ${prefix}`);
  const segments = input.slice(prefix.length).split("/");
  const [childRunId, ...rest] = segments;
  if (childRunId === undefined || !isSafePathSegment(childRunId)) throw fail("the child run id is missing or malformed");
  if (rest.length === 0 || rest.some((segment) => segment === "" || segment === "." || segment === ".." || segment.includes("\\") || segment.includes("\0"))) {
    throw fail("the file part must be an exact relative path without empty, . or .. segments");
  }
  return { childRunId, relative: rest.join("/") };
}

/** Absolute path of the receipt of `/files/handoffs/<childRunId>/<relative>`. */
export function handoffReceiptPath(stateDir: string, childRunId: string, relative: string): string {
  return `${path.join(stateDir, "handoffs", childRunId, ...relative.split("/"))}.json`;
}

function isReceipt(value: unknown): value is HandoffReceipt {
  const r = value as Partial<HandoffReceipt> | null;
  return typeof r === "object" && r !== null && r.receiptVersion === 1 && typeof r.path === "string" && typeof r.sha512 === "string" && typeof r.size === "number" && typeof r.parentSurfaceId === "string";
}

async function loadReceipt(file: string): Promise<HandoffReceipt | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return undefined;
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (!isReceipt(parsed)) throw new Error(`Handoff receipt ${file} is malformed; the state directory is damaged.`);
  return parsed;
}

/** True when a run with `ctx` may read the handoff of `receipt` (see the module comment). */
export function canReadHandoff(receipt: HandoffReceipt, ctx: Pick<CoreToolContext, "surfaceId" | "runId" | "conversationId">): boolean {
  if (ctx.surfaceId !== receipt.parentSurfaceId) return false;
  if (receipt.conversationId !== null) return ctx.conversationId === receipt.conversationId;
  return receipt.parentRunId !== null && ctx.runId === receipt.parentRunId;
}

/**
 * Resolves an exact handoff path for the caller and returns its verified bytes.
 * @throws ToolCallError `invalid_input` when the path is malformed, unknown, or not readable
 *   from the caller's surface and conversation; BlobIntegrityError when the stored bytes are damaged.
 */
export async function readHandoff(ctx: CoreToolContext, input: string): Promise<{ receipt: HandoffReceipt; bytes: Buffer }> {
  const { childRunId, relative } = parseHandoffPath(input);
  const receipt = await loadReceipt(handoffReceiptPath(ctx.stateDir, childRunId, relative));
  if (!receipt || !canReadHandoff(receipt, ctx)) {
    throw new ToolCallError(
      "invalid_input",
      `No handoff readable from surface "${ctx.surfaceId}" at ${input}. Handoffs are readable only by the parent surface of the subagent that made them, in the same conversation; use the exact path handoff_artifact returned.`,
    );
  }
  return { receipt, bytes: await readBlob(ctx.stateDir, receipt) };
}

/**
 * Every receipt a child run wrote, sorted by path (for `delegate.deliverables` checks).
 * Returns `[]` when the run handed nothing off.
 */
export async function listHandoffs(stateDir: string, childRunId: string): Promise<HandoffReceipt[]> {
  if (!isSafePathSegment(childRunId)) return [];
  const root = path.join(stateDir, "handoffs", childRunId);
  const files = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const receipts: HandoffReceipt[] = [];
  for (const entry of files) {
    if (!entry.isFile() || !entry.name.endsWith(".json")) continue; // write-once temp files end in .tmp
    const receipt = await loadReceipt(path.join(entry.parentPath, entry.name));
    if (receipt) receipts.push(receipt);
  }
  return receipts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function handoffContext(ctx: CoreToolContext): { parentSurfaceId: string; childRunId: string } {
  const surface = Object.prototype.hasOwnProperty.call(ctx.manifest.surfaces, ctx.surfaceId) ? ctx.manifest.surfaces[ctx.surfaceId] : undefined;
  if (!surface) throw new ToolCallError("configuration_error", `The artifact has no surface "${ctx.surfaceId}"; the host started the run on an unknown surface.`);
  if (surface.parent === null) {
    throw new ToolCallError("invalid_input", "handoff_artifact is for subagents handing files to their parent; the root surface selects files for the user with deliver_artifact.");
  }
  if (ctx.parentRunId === undefined && ctx.conversationId === undefined) {
    throw new ToolCallError("configuration_error", "handoff_artifact needs the host to supply the child run's parentRunId or conversationId, so the receipt can say who may read it.");
  }
  if (!isSafePathSegment(ctx.runId)) {
    throw new ToolCallError("configuration_error", `The run id "${ctx.runId}" cannot be used in a ${HANDOFFS_ROOT}/<child-run-id>/ path; the host must use ids made of letters, digits, '.', '_' and '-'.`);
  }
  return { parentSurfaceId: surface.parent, childRunId: ctx.runId };
}

/**
 * Hands `/workspace/<relative>` of the calling child run to its parent surface.
 * @returns `{ path, sourcePath, sha512, integrity, size }`; `path` is what the parent reads.
 */
export async function handoffArtifact(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const { parentSurfaceId, childRunId } = handoffContext(ctx);
  const { resolved, bytes } = await readArtifactSource(ctx, requiredString(input, "path"), "handoff_artifact");
  const blob = await putBlob(ctx.stateDir, bytes);
  const receipt: HandoffReceipt = {
    receiptVersion: 1,
    path: `${HANDOFFS_ROOT}/${childRunId}/${resolved.relative}`,
    childRunId,
    childSurfaceId: ctx.surfaceId,
    parentSurfaceId,
    parentRunId: ctx.parentRunId ?? null,
    conversationId: ctx.conversationId ?? null,
    sourcePath: resolved.workspacePath,
    sha512: blob.sha512,
    integrity: blob.integrity,
    size: blob.size,
    toolCallId: ctx.toolCallId,
    createdAt: new Date().toISOString(),
  };
  const file = handoffReceiptPath(ctx.stateDir, childRunId, resolved.relative);
  let stored = receipt;
  if ((await writeOnceFile(file, `${JSON.stringify(receipt, null, 2)}\n`)) === "exists") {
    stored = (await loadReceipt(file)) as HandoffReceipt;
    if (stored.sha512 !== receipt.sha512) {
      throw new ToolCallError("invalid_input", `${receipt.path} was already handed off with different bytes, and handoff paths are immutable; write the new version to a new /workspace file name and hand that off.`);
    }
  }
  const result = { path: stored.path, sourcePath: stored.sourcePath, sha512: stored.sha512, integrity: stored.integrity, size: stored.size };
  await ctx.emit("artifact.handed_off", { ...result, parentSurfaceId });
  return result;
}

/** The `handoff_artifact` core tool. */
export const handoffArtifactTool: CoreTool = {
  ...pickSpec("handoff_artifact"),
  execute: handoffArtifact,
};


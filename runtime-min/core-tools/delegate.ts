/**
 * `delegate`: a parent surface gives a task to one of its own subagents (seed "File transfer
 * and user delivery": "delegate.deliverables declares required file and hosted-link counts.
 * The runtime byte-verifies child handoffs and returns safe parent paths. A failed required
 * handoff is sent back to the same child for one retry and then fails loudly"; issue 13 item 1).
 *
 * The model loop is the host's: the runtime does not talk to a model. The host supplies a
 * {@link ChildDriver} (`RuntimeOptions.childDriver`); `delegate` calls it with the child run's
 * ids, the task and a `callTool` that runs tools on the child surface in the child run (so the
 * child's `handoff_artifact` receipts name this run as their parent). Then the runtime checks
 * the deliverables itself:
 * - files: every handoff receipt of the child run that this parent run may read, with its
 *   stored bytes re-hashed against the receipt (`readBlob`); the parent gets the receipts'
 *   immutable `/files/handoffs/<child-run-id>/…` paths, never a child workspace path;
 * - hosted links: the distinct `https:` URLs of the driver's report.
 * When fewer than required, the same child run is driven once more with feedback that says
 * exactly what is missing; when the second attempt still falls short, the call fails with
 * `execution_error` naming what was missing (the parent run continues, as after any failed call).
 *
 * Events of the parent call, in order: `delegation.started`, then per attempt
 * `delegation.child_finished` and `delegation.deliverables_verified` or
 * `delegation.deliverables_missing` (followed by `delegation.retry_requested` after the first),
 * and finally `delegation.completed` or `delegation.failed`. See docs/delegation.md.
 */
import { createHash } from "node:crypto";
import { childSurfacesOf, DELEGATE_TOOL_NAME, delegateInputSchema } from "../../contract/core-catalog.js";
import { ToolCallError } from "../failures.js";
import { readBlob } from "./blob-store.js";
import { canReadHandoff, listHandoffs, type HandoffReceipt } from "./handoffs.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";
import type { ChildRunReport, ChildRunRequest, DelegationDeliverables } from "./delegation-types.js";

export type { ChildCallResult, ChildDriver, ChildRunReport, ChildRunRequest, DelegationDeliverables, DelegationService } from "./delegation-types.js";

/** One verified file deliverable, as the parent receives it. */
export interface DeliveredFile {
  /** The immutable `/files/handoffs/<child-run-id>/…` path the parent reads or delivers. */
  readonly path: string;
  readonly size: number;
  readonly sha512: string;
}

/** What the parent learns about one attempt's deliverables. */
interface Verification {
  readonly files: DeliveredFile[];
  readonly links: string[];
  /** Words for each shortfall ("1 more file handed off with handoff_artifact (0 of 1)"). */
  readonly missing: string[];
  /** Problems with what was handed in (damaged bytes, links that are not hosted https URLs). */
  readonly rejected: string[];
}

/** The child run id of a parent call: stable, so a retried parent call drives the same child run. */
export function childRunIdOf(parentRunId: string, parentCallId: string, agent: string): string {
  const digest = createHash("sha256").update(`${parentRunId}\0${parentCallId}\0${agent}`).digest("hex").slice(0, 20);
  return `child-${digest}`;
}

function requiredCount(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** True for an absolute `https:` URL with a host (a hosted link). */
function isHostedLink(link: unknown): link is string {
  if (typeof link !== "string") return false;
  try {
    const url = new URL(link);
    return url.protocol === "https:" && url.hostname !== "";
  } catch {
    return false;
  }
}

async function verifyDeliverables(ctx: CoreToolContext, childRunId: string, report: ChildRunReport, required: DelegationDeliverables): Promise<Verification> {
  const files: DeliveredFile[] = [];
  const rejected: string[] = [];
  const receipts: HandoffReceipt[] = await listHandoffs(ctx.stateDir, childRunId);
  for (const receipt of receipts) {
    if (!canReadHandoff(receipt, ctx)) continue; // another parent's or conversation's handoff
    try {
      await readBlob(ctx.stateDir, receipt); // re-hashes the stored bytes against the receipt
      files.push({ path: receipt.path, size: receipt.size, sha512: receipt.sha512 });
    } catch (error) {
      rejected.push(`${receipt.path}: its stored bytes do not match the handoff receipt (${(error as Error).message})`);
    }
  }
  const offered = Array.isArray(report.links) ? report.links : [];
  const links = [...new Set(offered.filter(isHostedLink))].sort();
  const notHosted = offered.filter((link) => !isHostedLink(link));
  if (notHosted.length > 0) rejected.push(`${plural(notHosted.length, "link")} that are not hosted https URLs (${notHosted.slice(0, 3).map((l) => JSON.stringify(String(l))).join(", ")})`);
  const missing: string[] = [];
  if (files.length < required.files) missing.push(`${plural(required.files - files.length, "more file")} handed off with handoff_artifact (${files.length} of ${required.files})`);
  if (links.length < required.links) missing.push(`${plural(required.links - links.length, "more hosted https link")} in the report (${links.length} of ${required.links})`);
  return { files, links, missing, rejected };
}

function feedbackFor(verification: Verification, required: DelegationDeliverables): string {
  const problems = verification.rejected.length > 0 ? ` Not counted: ${verification.rejected.join("; ")}.` : "";
  return (
    `Your previous attempt is missing required deliverables: ${verification.missing.join(" and ")}.${problems} ` +
    `Required: ${plural(required.files, "file")} handed off with handoff_artifact and ${plural(required.links, "hosted https link")} in your report. ` +
    "Provide what is missing now; this is the last attempt."
  );
}

/**
 * Runs one `delegate` call (see the module comment).
 * @returns `{ agent, childRunId, attempts, output, files, links }`; `files` are the parent paths.
 * @throws ToolCallError `invalid_input` (not a child of this surface), `configuration_error`
 *   (no child driver), `execution_error` (the driver failed, or deliverables are missing after the retry).
 */
export async function delegate(input: CoreJson, ctx: CoreToolContext): Promise<CoreJson> {
  const service = ctx.delegation;
  const children = childSurfacesOf(ctx.manifest.surfaces, ctx.surfaceId);
  const agent = String(input["agent"]);
  const child = children.find((candidate) => candidate.name === agent);
  if (!child) {
    const names = children.map((c) => `'${c.name}'`).join(", ");
    throw new ToolCallError("invalid_input", children.length === 0 ? `Surface '${ctx.surfaceId}' has no subagents to delegate to.` : `'${agent}' is not a subagent of this agent; delegate to one of ${names}.`);
  }
  if (!service?.driver) {
    throw new ToolCallError("configuration_error", "delegate needs the host's child driver (RuntimeOptions.childDriver), which runs the subagent's model loop; this host supplied none.");
  }
  const rawDeliverables = (input["deliverables"] ?? {}) as { readonly [key: string]: unknown };
  const required: DelegationDeliverables = { files: requiredCount(rawDeliverables["files"]), links: requiredCount(rawDeliverables["links"]) };
  const task = String(input["task"]);
  const childRunId = childRunIdOf(ctx.runId, ctx.toolCallId, agent);
  const base = { agent, childSurfaceId: child.surfaceId, childRunId };
  await ctx.emit("delegation.started", { ...base, deliverables: { ...required } });

  let feedback: string | undefined;
  let verification: Verification | undefined;
  let report: ChildRunReport = {};
  for (const attempt of [1, 2] as const) {
    const request: ChildRunRequest = {
      parentRunId: ctx.runId,
      parentSurfaceId: ctx.surfaceId,
      parentCallId: ctx.toolCallId,
      ...(ctx.conversationId === undefined ? {} : { conversationId: ctx.conversationId }),
      childRunId,
      childSurfaceId: child.surfaceId,
      agent,
      task,
      deliverables: required,
      attempt,
      ...(feedback === undefined ? {} : { feedback }),
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      callTool: (tool, toolInput, options) =>
        service.callChild({
          surface: child.surfaceId,
          runId: childRunId,
          parentRunId: ctx.runId,
          ...(ctx.conversationId === undefined ? {} : { conversationId: ctx.conversationId }),
          ...(options?.callId === undefined ? {} : { callId: options.callId }),
          tool,
          input: toolInput,
          ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
        }),
    };
    try {
      report = (await service.driver(request)) ?? {};
    } catch (error) {
      await ctx.emit("delegation.failed", { ...base, attempt, reason: "child_run_failed" });
      throw new ToolCallError("execution_error", `The subagent '${agent}' (run ${childRunId}) failed on attempt ${attempt}: ${(error as Error)?.message ?? String(error)}`, { cause: error });
    }
    await ctx.emit("delegation.child_finished", { ...base, attempt });
    verification = await verifyDeliverables(ctx, childRunId, report, required);
    if (verification.missing.length === 0) {
      await ctx.emit("delegation.deliverables_verified", { ...base, attempt, files: verification.files.map((f) => f.path), links: verification.links });
      await ctx.emit("delegation.completed", { ...base, attempts: attempt });
      return {
        agent,
        childRunId,
        attempts: attempt,
        output: typeof report.output === "string" ? report.output : "",
        files: verification.files.map((file) => ({ ...file })),
        links: verification.links,
      };
    }
    await ctx.emit("delegation.deliverables_missing", { ...base, attempt, missing: verification.missing, rejected: verification.rejected });
    if (attempt === 1) {
      feedback = feedbackFor(verification, required);
      await ctx.emit("delegation.retry_requested", { ...base, attempt: 2, feedback });
    }
  }
  const missing = verification!.missing.join(" and ");
  const rejected = verification!.rejected.length > 0 ? ` Not counted: ${verification!.rejected.join("; ")}.` : "";
  await ctx.emit("delegation.failed", { ...base, attempt: 2, reason: "deliverables_missing", missing: verification!.missing });
  throw new ToolCallError(
    "execution_error",
    `The subagent '${agent}' (run ${childRunId}) did not provide its required deliverables, even after being asked again: it is missing ${missing}.${rejected} ` +
      `Files it did hand off: ${verification!.files.map((f) => f.path).join(", ") || "none"}.`,
  );
}

/** The `delegate` framework tool (its input schema here has no child enum; each surface's snapshot lists its own children). */
export const delegateTool: CoreTool = {
  name: DELEGATE_TOOL_NAME,
  description: "Give a task to one of your subagents and wait for its report.",
  inputSchema: delegateInputSchema(),
  visibility: "visible",
  execute: delegate,
};

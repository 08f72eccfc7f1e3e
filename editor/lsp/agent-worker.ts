/**
 * Worker-thread entry of the whole-agent analysis (`agent-runner.ts`): on a large agent it
 * takes long enough (about a second for 50 plugins) that running it on the server's thread
 * would hold back the per-file diagnostics of the next keystroke. Each message is one job
 * `{ id, root, overlays }`; the answer is `{ id, byFile }` or `{ id, error }`.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import { parentPort } from "node:worker_threads";
import { createNodeHost, createOverlayHost, type OverlayFile } from "../../common/host.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { analyzeAgentDiagnostics } from "./agent-diagnostics.js";

/** A job sent to the worker. */
export interface AgentJob {
  readonly id: number;
  readonly root: string;
  /** The editor's unsaved buffers: absolute path → text and version. */
  readonly overlays: readonly (readonly [string, OverlayFile])[];
}

/** The worker's answer to an {@link AgentJob}. */
export type AgentJobResult =
  | { readonly id: number; readonly byFile: readonly (readonly [string, readonly Diagnostic[]])[] }
  | { readonly id: number; readonly error: string };

/**
 * Lowers this thread's CPU priority (Linux: `setpriority` on the thread id read from
 * `/proc/thread-self`), so that on a busy machine the server's thread — the next keystroke's
 * diagnostics — wins over the background analysis. Elsewhere, or when refused, nothing changes.
 */
function lowerThreadPriority(): void {
  try {
    const tid = Number(fs.readlinkSync("/proc/thread-self").split("/").pop());
    if (Number.isInteger(tid) && tid !== process.pid) os.setPriority(tid, os.constants.priority.PRIORITY_LOW);
  } catch {
    // Not Linux, or not allowed: the analysis runs at the server's priority.
  }
}

lowerThreadPriority();
const base = createNodeHost();
parentPort?.on("message", (job: AgentJob) => {
  const host = createOverlayHost(base, new Map(job.overlays));
  analyzeAgentDiagnostics(host, job.root).then(
    (byFile) => parentPort!.postMessage({ id: job.id, byFile: [...byFile] } satisfies AgentJobResult),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies AgentJobResult),
  );
});

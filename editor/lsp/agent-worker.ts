/**
 * Worker-thread entry of the whole-agent analysis (`agent-runner.ts`): on a large agent it
 * takes long enough (about a second for 50 plugins) that running it on the server's thread
 * would hold back the per-file diagnostics of the next keystroke. Each message is one job
 * `{ id, root, overlays }`; the answer is `{ id, byFile }` or `{ id, error }`.
 *
 * It runs at the server's own CPU priority. It used to lower its thread to the lowest one
 * (nice 19), for the keystroke's diagnostics to win on a busy machine; but the server's thread
 * sleeps between requests, so the scheduler already favours it when it wakes; and at nice 19
 * the analysis got about 1/70 of the CPU of each busy process of its session (a build, a test
 * run): `plugins.lock` and `mcp.json` diagnostics came minutes late, and the language server's
 * tests timed out in a loaded test run (helper-95).
 */
import { parentPort } from "node:worker_threads";
import { createNodeHost, createOverlayHost, type OverlayFile } from "../../common/host.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { RuleSetting } from "../../build/project-config/types.js";
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
  | { readonly id: number; readonly byFile: readonly (readonly [string, readonly Diagnostic[]])[]; readonly outside: readonly string[]; readonly rules: Readonly<Record<string, RuleSetting>>; readonly configFile?: string }
  | { readonly id: number; readonly error: string };

const base = createNodeHost();
parentPort?.on("message", (job: AgentJob) => {
  const host = createOverlayHost(base, new Map(job.overlays));
  analyzeAgentDiagnostics(host, job.root).then(
    ({ byFile, outside, rules, configFile }) => parentPort!.postMessage({ id: job.id, byFile: [...byFile], outside, rules, ...(configFile !== undefined ? { configFile } : {}) } satisfies AgentJobResult),
    (error: unknown) => parentPort!.postMessage({ id: job.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) } satisfies AgentJobResult),
  );
});

/**
 * Runs the whole-agent analysis (`agent-diagnostics.ts`) off the server's thread, in one
 * long-lived worker (`agent-worker.ts`), so that the per-file diagnostics of open files stay
 * fast while a large agent is analysed. Where the worker cannot run (the TypeScript sources
 * under a test runner, or a worker that failed) the analysis runs in process: the same
 * results, only other requests wait for it.
 */
import * as fs from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { createOverlayHost, type CompilerHost, type OverlayFile } from "../../common/host.js";
// Type only: the analysis (the whole compile driver) loads in the worker; in process only where there is none.
import type { AgentDiagnostics } from "./agent-diagnostics.js";
import type { AgentJob, AgentJobResult } from "./agent-worker.js";

/** Analyses whole agents with the editor's buffers. */
export interface AgentAnalysisRunner {
  /** `compile --check --no-package` diagnostics of the agent at `root` by absolute file, and its plugin folders outside `root` (see `analyzeAgentDiagnostics`). */
  analyze(root: string, overlays: ReadonlyMap<string, OverlayFile>): Promise<AgentDiagnostics>;
  /** Stops the worker. */
  close(): void;
}

/**
 * A runner that uses a worker thread when `agent-worker.js` sits beside this module (the built
 * CLI), else analyses in process over `host` (default: the real file system).
 *
 * @param host the disk below the buffers for in-process analyses.
 * @param onError receives a worker failure (the job is then analysed in process), e.g. to log it to the client.
 */
export function createAgentAnalysisRunner(host: CompilerHost, onError: (error: unknown) => void): AgentAnalysisRunner {
  const inProcess = async (root: string, overlays: ReadonlyMap<string, OverlayFile>) => (await import("./agent-diagnostics.js")).analyzeAgentDiagnostics(createOverlayHost(host, new Map(overlays)), root);
  const script = new URL("./agent-worker.js", import.meta.url);
  if (script.protocol !== "file:" || !fs.existsSync(fileURLToPath(script))) return { analyze: inProcess, close: () => {} };

  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, { readonly resolve: (found: AgentDiagnostics) => void; readonly fallback: () => void }>();
  const failAll = (error: unknown): void => {
    onError(error);
    worker = undefined;
    const jobs = [...pending.values()];
    pending.clear();
    for (const job of jobs) job.fallback();
  };
  const start = (): Worker => {
    const started = new Worker(script);
    // The worker must not keep the server alive after the client said `exit`.
    started.unref();
    started.on("message", (result: AgentJobResult) => {
      const job = pending.get(result.id);
      if (!job) return;
      pending.delete(result.id);
      if ("error" in result) {
        onError(new Error(result.error));
        job.fallback();
      } else job.resolve({ byFile: new Map(result.byFile), outside: result.outside, rules: result.rules, ...(result.configFile !== undefined ? { configFile: result.configFile } : {}) });
    });
    started.on("error", failAll);
    started.on("exit", (code) => {
      if (worker === started) failAll(new Error(`the analysis worker exited with code ${code}`));
    });
    return started;
  };
  return {
    analyze(root, overlays) {
      return new Promise((resolve, reject) => {
        const id = nextId++;
        const fallback = () => void inProcess(root, overlays).then(resolve, reject);
        pending.set(id, { resolve, fallback });
        try {
          worker ??= start();
          worker.postMessage({ id, root, overlays: [...overlays] } satisfies AgentJob);
        } catch (error) {
          pending.delete(id);
          onError(error);
          fallback();
        }
      });
    },
    close() {
      const stopping = worker;
      worker = undefined;
      void stopping?.terminate();
    },
  };
}

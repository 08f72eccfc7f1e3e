/**
 * The worker thread of the analysis pool (`analysis-pool.ts`, issue 14 item 1): loads
 * TypeScript while the main thread reads the agent, then takes the plugin folders of the list
 * the main thread posted in order, claiming each through shared memory (skipping those the main
 * thread claimed), and analyses each with {@link preanalyzePlugin} on a disk host of its
 * own. Per folder it posts every analysis it made, with its content fingerprint (as the
 * persistent analysis cache stores them), and bumps `signal[0]`. A folder whose analysis throws is posted with no analyses (the
 * main thread then analyses it itself, and reports what it finds).
 */
import { parentPort, workerData } from "node:worker_threads";
import type { MessagePort } from "node:worker_threads";
import { installCodeCache } from "../common/code-cache.js";
import { createNodeHost, derivedRealpath } from "../common/host.js";
import { preanalyzePlugin } from "./preanalyze-plugin.js";
import type { PoolRecord } from "./analysis-pool.js";
import { packRecord } from "./static-analysis/analysis-cache.js";
import { createStaticAnalyzer } from "./static-analysis/static-analyzer.js";
import { ONE_SHOT_RETENTION } from "./static-analysis/source-store.js";
import { loadTypeScript } from "./static-analysis/typescript.js";

const { signal, port } = workerData as { readonly signal: Int32Array; readonly port: MessagePort };

const UNCLAIMED = 0;
const CLAIMED_BY_WORKER = 1;

// The main thread's cache file (it writes it; this thread only reads it).
installCodeCache({ save: false });

// Warm up while the main thread reads the agent: the parser is the largest module loaded.
try {
  loadTypeScript();
} catch {
  // Loaded again (and failing there) on the first parse; the main thread then does the work.
}

parentPort?.once("message", ({ dirs, claims }: { dirs: string[]; claims: Int32Array }) => {
  let records: PoolRecord[] = [];
  // Symlink and kind probes repeat across a folder's modules (every definition resolves the
  // plugin root): asked once each, as the main thread's compile host does.
  const disk = createNodeHost();
  const kinds = new Map<string, ReturnType<typeof disk.kind>>();
  const kind: typeof disk.kind = (file) => kinds.get(file) ?? kinds.set(file, disk.kind(file)).get(file)!;
  // One realpath per folder, as the main thread's snapshot host (common/host.ts derivedRealpath).
  const host: typeof disk = { ...disk, kind, realpath: derivedRealpath(kind, (file) => disk.realpath(file)) };
  const analyzer = createStaticAnalyzer(host, {
    retainModules: ONE_SHOT_RETENTION,
    persistent: {
      find: () => undefined,
      keep: (kind, file, pluginRoot, fingerprint, result) => void records.push([kind, file, pluginRoot, packRecord({ fingerprint, result })]),
    },
  });
  for (let index = 0; index < dirs.length; index++) {
    if (Atomics.compareExchange(claims, index, UNCLAIMED, CLAIMED_BY_WORKER) !== UNCLAIMED) continue;
    records = [];
    try {
      preanalyzePlugin(host, analyzer, dirs[index]!);
    } catch {
      records = []; // the main thread analyses this folder itself
    }
    port.postMessage([index, records]);
    Atomics.add(signal, 0, 1);
    Atomics.notify(signal, 0);
  }
  port.close();
});

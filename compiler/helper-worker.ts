/**
 * Starts the compile's helper threads (the schema worker, `validation/schema-worker.ts`, and
 * the analysis worker, `analysis-pool.ts`; issue 14 item 1, "keep both cores busy"): one
 * `worker_threads` Worker with a private message port, its output captured, and neither
 * keeping the process alive. A worker that fails only makes the main thread do the rest
 * itself, so its `error` event is swallowed here; each caller decides what a silent worker means.
 */
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";

/** A started helper thread and the main thread's end of its port. */
export interface HelperWorker {
  readonly worker: Worker;
  readonly port: MessagePort;
}

/**
 * Starts the worker whose entry is `<name>.js` beside `moduleUrl` (the caller's
 * `import.meta.url`), with `workerData` `{ signal, port }`.
 * @param signal shared memory the caller and the worker coordinate through.
 * @returns the worker and the port (both unref'd), or `undefined` when it could not be started.
 */
export function startHelperWorker(moduleUrl: string, name: string, signal: Int32Array): HelperWorker | undefined {
  try {
    const channel = new MessageChannel();
    const { script, evaluate } = workerScript(moduleUrl, name);
    const worker = new Worker(script, { eval: evaluate, workerData: { signal, port: channel.port2 }, transferList: [channel.port2], stdout: true, stderr: true });
    worker.unref();
    worker.on("error", () => {});
    const port = channel.port1;
    port.unref();
    return { worker, port };
  } catch {
    return undefined;
  }
}

const bundledSources = new Map<string, string>();

/**
 * The worker's script: `<name>.js` next to the caller when running from `dist/`; under the
 * TypeScript sources (vitest) a worker cannot load `.ts`, so the entry is bundled once per
 * process with esbuild (a CommonJS script evaluated by the worker).
 */
function workerScript(moduleUrl: string, name: string): { readonly script: string | URL; readonly evaluate: boolean } {
  if (moduleUrl.endsWith(".js")) return { script: new URL(`./${name}.js`, moduleUrl), evaluate: false };
  const entry = fileURLToPath(new URL(`./${name}.ts`, moduleUrl));
  let source = bundledSources.get(entry);
  if (source === undefined) {
    const esbuild = createRequire(moduleUrl)("esbuild") as typeof import("esbuild");
    const built = esbuild.buildSync({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      write: false,
      logLevel: "silent",
      // Modules that resolve files from their own URL (TypeScript's, in `typescript.ts`) resolve from the entry's folder.
      define: { "import.meta.url": JSON.stringify(pathToFileURL(entry).href) },
      // Dependencies load from node_modules as they do from dist/ (some do not bundle).
      packages: "external",
    });
    source = built.outputFiles[0]!.text;
    bundledSources.set(entry, source);
  }
  return { script: source, evaluate: true };
}

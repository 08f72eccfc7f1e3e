// Preloaded with `node --import` by test/startup/startup-cli.test.ts: appends the URL of every
// module the process loads (ES modules, and CommonJS through the ESM loader) to the file named
// by AL_RECORD_LOADS, so a test can say which packages a command loaded. CommonJS modules that
// `require` loads (a package's own files, or a package required on first use) are appended at
// exit, from the require cache. A worker thread (the analysis worker) appends its own at its exit,
// before the main thread's, each line marked `worker `: the order of the main thread's loads is
// what the tests read, and a worker whose exit handler runs (it ends on its own, not stopped) must
// not put its files first.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";
import { isMainThread } from "node:worker_threads";

const log = process.env.AL_RECORD_LOADS;
register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return result;
}`)}`,
  import.meta.url,
);
const cache = createRequire(import.meta.url).cache;
process.on("exit", () => {
  const required = Object.keys(cache).map((file) => `${isMainThread ? "" : "worker "}${pathToFileURL(file).href}\n`);
  if (required.length > 0) appendFileSync(log, required.join(""));
});

// Preloaded with `node --import` by test/startup/startup-cli.test.ts: appends the URL of every
// module the process loads (ES modules, and CommonJS through the ESM loader) to the file named
// by AL_RECORD_LOADS, so a test can say which packages a command loaded.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  const result = await next(url, context);
  appendFileSync(${JSON.stringify(process.env.AL_RECORD_LOADS)}, url + "\\n");
  return result;
}`)}`,
  import.meta.url,
);

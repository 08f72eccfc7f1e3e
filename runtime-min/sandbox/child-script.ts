/**
 * Produces the sandbox child's entry script as ONE self-contained ES module held in the host's
 * memory and fed to the child on its standard input (`node --input-type=module -`), so no
 * entry script exists on disk for anyone to tamper with (issue 12 item 5: "everything the
 * sandbox runs is verified like the bundles, or is not on disk at all"). The bundles the child
 * imports are the verified copies (`../artifact/bundle-cache.ts`).
 *
 * Why build it at run time: the runtime runs both from `dist/` (compiled JavaScript) and from
 * TypeScript sources under vitest, and a plain `node` child on Node 20 cannot import `.ts`.
 * esbuild (already a runtime dependency for packaging) bundles `child.ts` — or `child.js` next
 * to the compiled runtime — once per host process.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

let built: Promise<string> | undefined;

/**
 * Returns the text of the child entry script, building it on first use in this process.
 * Rejects when neither `child.ts` nor `child.js` sits next to this module or when esbuild
 * fails (the caller reports that as a failure to start the sandbox).
 */
export function prepareChildSource(): Promise<string> {
  if (!built) {
    built = buildChildSource();
    built.catch(() => (built = undefined));
  }
  return built;
}

async function buildChildSource(): Promise<string> {
  const entry = locateChildSource();
  const result = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    write: false,
    logLevel: "silent",
    legalComments: "none",
  });
  const output = result.outputFiles[0];
  if (!output) throw new Error(`esbuild produced no output for the sandbox entry ${entry}.`);
  return output.text;
}

function locateChildSource(): string {
  const here = fileURLToPath(import.meta.url);
  const dir = path.dirname(here);
  const sameExtension = path.join(dir, here.endsWith(".ts") ? "child.ts" : "child.js");
  if (fs.existsSync(sameExtension)) return sameExtension;
  for (const name of ["child.js", "child.ts"]) {
    const candidate = path.join(dir, name);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`The sandbox entry (child.ts or child.js) is missing from ${dir}.`);
}

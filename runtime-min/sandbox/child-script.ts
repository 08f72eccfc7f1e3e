/**
 * Produces the sandbox child's entry script as ONE self-contained ES module held in the host's
 * memory and fed to the child on its standard input (`node --input-type=module -`), so no
 * entry script exists on disk for anyone to tamper with (issue 12 item 5: "everything the
 * sandbox runs is verified like the bundles, or is not on disk at all"). The bundles the child
 * imports are the verified copies (`../artifact/bundle-cache.ts`).
 *
 * Where the text comes from (issue 14 item 3, start-up): `npm run build` bundles `child.ts` once
 * into `child.bundle.mjs` next to the compiled runtime (scripts/build-sandbox-child.mjs), and a
 * host running from `dist/` reads that file: no esbuild load and no bundling per process. The
 * file is the toolchain's own code, as `child.js` beside it is, so reading it is no weaker than
 * bundling `child.js` was. Running from TypeScript sources (vitest), where no bundle exists,
 * esbuild (already a runtime dependency for packaging) bundles `child.ts` once per host process,
 * loaded only then.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

/** The prebuilt child entry's file name, next to the compiled `child-script.js` (`npm run build`). */
export const PREBUILT_CHILD_FILE = "child.bundle.mjs";

/** The entry's text once known in this process (read from the prebuilt file, or bundled). */
let known: string | undefined;
/** The bundling of `child.ts` under way, where no prebuilt file exists. */
let building: Promise<string> | undefined;

/**
 * Returns the text of the child entry script: synchronously once it is known in this process,
 * and on first use when the prebuilt file is there (read synchronously, so a caller can start
 * the child in its own turn — issue 14 item 3: the process then boots while the host checks the
 * input); otherwise a promise of the text bundled from `child.ts` by esbuild, once per process.
 * Throws (or rejects) when the prebuilt file cannot be read for another reason than its
 * absence, when neither `child.ts` nor `child.js` sits next to this module, or when esbuild
 * fails (the caller reports that as a failure to start the sandbox).
 */
export function prepareChildSource(): string | Promise<string> {
  if (known !== undefined) return known;
  const prebuilt = readPrebuilt();
  if (prebuilt !== undefined) return (known = prebuilt);
  if (!building) {
    building = bundleChildSource().then((text) => (known = text));
    building.catch(() => (building = undefined));
  }
  return building;
}

/**
 * The entry's text when it is known without bundling: already known in this process, or read
 * from the prebuilt file (then known from here on); `undefined` running from sources before
 * {@link prepareChildSource} bundled it, or when the prebuilt file cannot be read. Never throws
 * (what a `call`'s early start reads, `../execution/early-start.ts`).
 */
export function knownChildSource(): string | undefined {
  if (known !== undefined) return known;
  try {
    const prebuilt = readPrebuilt();
    if (prebuilt !== undefined) known = prebuilt;
    return prebuilt;
  } catch {
    return undefined;
  }
}

/** The prebuilt entry's text, or `undefined` where `npm run build` wrote none (running from sources). */
function readPrebuilt(): string | undefined {
  const prebuilt = path.join(path.dirname(fileURLToPath(import.meta.url)), PREBUILT_CHILD_FILE);
  try {
    return fs.readFileSync(prebuilt, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return undefined;
  }
}

async function bundleChildSource(): Promise<string> {
  const entry = locateChildSource();
  const esbuild = await import("esbuild");
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

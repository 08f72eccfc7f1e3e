/**
 * Produces the sandbox child's entry script as ONE self-contained `.mjs` file in the state
 * directory, so a child can run it under the permission model with read access to that single
 * file (plus its bundle, bridge and workspace).
 *
 * Why build it at run time: the runtime runs both from `dist/` (compiled JavaScript) and from
 * TypeScript sources under vitest, and a plain `node` child on Node 20 cannot import `.ts`.
 * esbuild (already a runtime dependency for packaging) bundles `child.ts` — or `child.js` next
 * to the compiled runtime — into `<stateDir>/sandbox/child-<hash>.mjs`. The name carries a
 * hash of the output, so an existing file is reused and concurrent writers agree.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const built = new Map<string, Promise<string>>();

/**
 * Returns the absolute path of the child entry script inside `stateDir`, building it on first
 * use in this process. Throws when neither `child.ts` nor `child.js` sits next to this module
 * or when esbuild fails (the caller reports that as a failure to start the sandbox).
 */
export function prepareChildScript(stateDir: string): Promise<string> {
  let promise = built.get(stateDir);
  if (!promise) {
    promise = buildChildScript(stateDir);
    built.set(stateDir, promise);
    promise.catch(() => built.delete(stateDir));
  }
  return promise;
}

async function buildChildScript(stateDir: string): Promise<string> {
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
  const hash = createHash("sha256").update(output.contents).digest("hex").slice(0, 16);
  const dir = path.join(stateDir, "sandbox");
  const target = path.join(dir, `child-${hash}.mjs`);
  if (!fs.existsSync(target)) {
    fs.mkdirSync(dir, { recursive: true });
    const temporary = `${target}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, output.contents);
    fs.renameSync(temporary, target);
  }
  return target;
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

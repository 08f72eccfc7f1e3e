/**
 * A content-addressed cache of verified bundle bytes under `<stateDir>/bundles/`.
 *
 * After verification the runtime executes only these copies, never the artifact's files, so a
 * bundle swapped in the artifact after `openRuntime` cannot run; and a copy is re-hashed before
 * each sandbox process or direct import uses it. Files end in `.mjs`, so Node loads them as ES
 * modules whatever `package.json` says.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import ssri from "ssri";

/**
 * Writes `bytes` to `<stateDir>/bundles/<sha256>.mjs` (atomically, once) and returns that file's
 * real path: a sandbox process imports the bundle by it, and Node's permission model refuses an
 * import through a link it was not allowed to read (an agent root reached as `ln -s …/agent here`
 * failed every sandboxed call with "Access to this API has been restricted").
 */
export function materializeBundle(stateDir: string, bytes: Buffer): string {
  const digest = createHash("sha256").update(bytes).digest("hex");
  const dir = path.join(stateDir, "bundles");
  const file = path.join(dir, `${digest}.mjs`);
  if (fs.existsSync(file) && createHash("sha256").update(fs.readFileSync(file)).digest("hex") === digest) return fs.realpathSync(file);
  fs.mkdirSync(dir, { recursive: true });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(temporary, bytes, { mode: 0o444 });
  fs.renameSync(temporary, file);
  return fs.realpathSync(file);
}

/** True when the cached copy at `file` still hashes to `integrity`. */
export function cachedBundleIntact(file: string, integrity: string): boolean {
  try {
    return Boolean(ssri.checkData(fs.readFileSync(file), integrity));
  } catch {
    return false;
  }
}

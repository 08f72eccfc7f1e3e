/** Shared helpers of the `add` tests. */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const openuiPack = path.join(repoRoot, "test/fixtures/lockfile/packs/openui");

const created: string[] = [];

/** A fresh temp directory, removed after the current test. */
export function tempDir(prefix = "al-add-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of created.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

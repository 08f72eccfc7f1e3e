/** The toolchain's own version (for `--version` and SARIF; never written into the lock). */
import * as fs from "node:fs";
import { packagePath } from "../common/package-root.js";

/** `version` of this package's package.json. */
export function toolVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  return manifest.version;
}

/** The toolchain's own version (for `--version` and SARIF; never written into the lock). */
import * as fs from "node:fs";
import { packagePath } from "../common/package-root.js";

/** `version` of this package's package.json. */
export function toolVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { version: string };
  return manifest.version;
}

/** `engines.node` of this package's package.json (the Node.js versions it supports, e.g. `>=20.19`); `undefined` when it names none. */
export function supportedNode(): string | undefined {
  const manifest = JSON.parse(fs.readFileSync(packagePath("package.json"), "utf8")) as { engines?: { node?: unknown } };
  return typeof manifest.engines?.node === "string" ? manifest.engines.node : undefined;
}

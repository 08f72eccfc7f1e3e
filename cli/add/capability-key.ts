/**
 * The capability key `add` writes: the plugin's `plugin.json` name unless `--as <key>` says
 * otherwise (issue 3 item 7).
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import { createNodeHost, type CompilerHost } from "../../common/host.js";

/**
 * Agent Plugins v1 `name` rule (plugin.schema.json): lowercase letters, digits, `-` and `.`,
 * starting and ending with a letter or digit, no `--` or `..`, at most 64 characters. A
 * capability key follows it, since it defaults to the plugin's name and names a `plugins/<key>/`
 * folder.
 */
const KEY = /^(?!.*(?:--|\.\.))[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?$/;

/** AL6207 when `key` cannot be a capability key, else `undefined`. */
export function validateCapabilityKey(key: string): Diagnostic | undefined {
  const reason =
    key.length === 0
      ? "it is empty"
      : key.length > 64
        ? "it is longer than 64 characters"
        : KEY.test(key)
          ? undefined
          : "it must use lowercase letters, digits, '-' and '.', start and end with a letter or digit, and contain no '--' or '..'";
  return reason === undefined ? undefined : createDiagnostic(Diagnostics.AddInvalidCapabilityKey, fileStart(""), [key, reason]);
}

/**
 * The `name` of the Agent Plugins v1 manifest at `<pluginDir>/plugin.json`.
 *
 * @param packageName shown in the AL6208 message (`@assemblyline-agents/openui`).
 * @returns the name, or AL6208 when plugin.json is missing, not JSON, or has no string name.
 */
export function readPluginName(
  pluginDir: string,
  packageName: string,
  host: CompilerHost = createNodeHost(),
): { readonly ok: true; readonly name: string } | { readonly ok: false; readonly diagnostic: Diagnostic } {
  const file = path.join(pluginDir, "plugin.json");
  const read = host.read(file);
  const fail = (reason: string) => ({ ok: false as const, diagnostic: createDiagnostic(Diagnostics.AddNotAPlugin, fileStart(file), [packageName, reason]) });
  if (read.kind !== "file") return fail("plugin.json is missing");
  let value: unknown;
  try {
    value = JSON.parse(read.text.replace(/^\uFEFF/, ""));
  } catch {
    return fail("plugin.json is not valid JSON");
  }
  const name = (value as { name?: unknown } | null)?.name;
  return typeof name === "string" && name !== "" ? { ok: true, name } : fail("plugin.json has no name");
}

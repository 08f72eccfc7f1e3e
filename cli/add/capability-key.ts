/**
 * The capability key `add` writes: the plugin's `plugin.json` name unless `--as <key>` says
 * otherwise (issue 3 item 7).
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart } from "../../common/positions.js";
import { createNodeHost, type CompilerHost } from "../../common/host.js";
import { pluginNameProblems } from "../../compiler/plugin-package/plugin-name.js";

/**
 * AL6207 when `key` cannot be a capability key, else `undefined`. A capability key follows the
 * Agent Plugins v1 §5.5 `name` rule (compiler/plugin-package/plugin-name.ts: lowercase letters,
 * digits, `-` and `.`, starting and ending with a letter or digit, no `--` or `..`, at most 64
 * characters), since it defaults to the plugin's name and names a `plugins/<key>/` folder.
 */
export function validateCapabilityKey(key: string): Diagnostic | undefined {
  const problems = pluginNameProblems(key);
  return problems.length === 0 ? undefined : createDiagnostic(Diagnostics.AddInvalidCapabilityKey, fileStart(""), [key, problems.join("; ")]);
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

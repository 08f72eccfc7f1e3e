/**
 * A local plugin whose `plugin.json` name is not its folder's (helper-78 D7): `plugins/chaos/`
 * selected as `chaos: {}` but naming itself `"other"`. The folder and the capability key are one
 * name for a local plugin (DESIGN §2: `plugins/<key>/`); the manifest's `name` is the plugin's
 * own identifier (Agent Plugins v1 §5.5), which `validate` reports and `add` uses as the key once
 * the plugin is published. Nothing fails when they differ, so it is a warning.
 */
import * as path from "node:path";
import type { CompilerHost } from "../../common/host.js";
import { parseJsonText } from "../../common/json-text.js";
import { fileStart, type SourceLocation } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { PluginPackage, ResolvedCapability } from "../model.js";

/**
 * AL1029 when `resolved` is a local plugin (`plugins/<key>/`) whose readable plugin.json `name`
 * differs from the key; `undefined` otherwise (a published plugin's key may differ on purpose:
 * `add --as`; a manifest without a usable name has its own AL21xx). Located at the `name` value
 * in plugin.json, with the capability key in agent.md as the related location.
 */
export function localPluginNameMismatch(host: CompilerHost, resolved: ResolvedCapability, pluginPackage: PluginPackage): Diagnostic | undefined {
  const key = resolved.request.key;
  const name = pluginPackage.name;
  if (resolved.source.type !== "local" || name === undefined || name === key) return undefined;
  const manifestFile = path.join(pluginPackage.root, "plugin.json");
  return createDiagnostic(Diagnostics.LocalPluginNameMismatch, nameLocation(host, manifestFile), [key, name], {
    path: ["name"],
    related: [{ ...resolved.request.location, message: `The capability key '${key}' selects plugins/${key}/ here` }],
  });
}

/** Where plugin.json writes `name` (its value), or the file's start when it cannot be read again. */
function nameLocation(host: CompilerHost, manifestFile: string): SourceLocation {
  const read = host.read(manifestFile);
  if (read.kind !== "file") return fileStart(manifestFile);
  const parsed = parseJsonText(manifestFile, read.text);
  return parsed.ok ? parsed.positions.locate(["name"]) : fileStart(manifestFile);
}

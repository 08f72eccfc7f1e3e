/**
 * What the `<plugin>` argument of `assembly-line add <plugin> [root]` names (issue 3 item 7).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import npa from "npm-package-arg";
import validateNpmPackageName from "validate-npm-package-name";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";

/** The npm scope of official plugins; a short name `openui` means `@assemblyline-agents/openui`. */
export const OFFICIAL_SCOPE = "@assemblyline-agents";

/** A resolved plugin spec, ready for the package manager. */
export type PluginSpec =
  | {
      readonly kind: "registry";
      /** Full package name (`@assemblyline-agents/openui`). */
      readonly name: string;
      /** Version, range or dist-tag as given (`1.2.0`, `^1`, `next`); absent for "latest". */
      readonly version?: string;
      /** True when a short name was mapped to {@link OFFICIAL_SCOPE}. */
      readonly short: boolean;
      /** What to pass to the package manager: `name` or `name@version`. */
      readonly installSpec: string;
    }
  | {
      readonly kind: "tarball" | "directory";
      /** Absolute path of the `.tgz` (or `.tar.gz`/`.tar`) file, or of the package directory. */
      readonly path: string;
      /** `file:<absolute path>`. */
      readonly installSpec: string;
    };

/** Result of {@link resolvePluginSpec}: a spec, or AL6201 saying why the argument is not one. */
export type ResolvePluginSpecResult = { readonly ok: true; readonly spec: PluginSpec } | { readonly ok: false; readonly diagnostic: Diagnostic };

const TARBALL = /\.(?:tgz|tar\.gz|tar)$/i;

/**
 * Reads a plugin argument. Accepted forms, in the order they are recognised:
 *
 * - `file:<path>` — a tarball when the path ends in `.tgz`, `.tar.gz` or `.tar`, else a directory;
 * - a path (`./x`, `../x`, `/x`, `C:\x`, `.\x`, or any name ending in `.tgz`/`.tar.gz`/`.tar`);
 * - `npm:<name>[@version]` — a registry package used as written (how an unscoped third-party
 *   package is named, since a bare name is a short name);
 * - `@scope/name[@version]` — a registry package;
 * - `name[@version]` — a short name of an official plugin: `@assemblyline-agents/name`.
 *
 * Paths are resolved against `cwd` and must exist. Git and URL specs are refused.
 *
 * @param cwd the directory relative paths are resolved against (the user's working directory).
 */
export function resolvePluginSpec(spec: string, cwd: string): ResolvePluginSpecResult {
  const input = spec.trim();
  if (input === "") return invalid(spec, "it is empty");
  if (input.startsWith("file:")) return resolvePath(spec, input.slice("file:".length), cwd);
  if (/^(?:[a-z+]+:\/\/|git\+|git:|github:|gitlab:|bitbucket:|gist:)/i.test(input)) {
    return invalid(spec, "git and URL specs are not supported; publish the plugin, or pack it with `npm pack` and add the tarball");
  }
  if (/^(?:\.{1,2}(?:[\\/]|$)|[\\/]|[A-Za-z]:[\\/])/.test(input) || TARBALL.test(input)) return resolvePath(spec, input, cwd);
  if (input.startsWith("npm:")) return resolveName(spec, input.slice("npm:".length), false);
  if (input.startsWith("@")) return resolveName(spec, input, false);
  return resolveName(spec, input, true);
}

function resolvePath(original: string, rawPath: string, cwd: string): ResolvePluginSpecResult {
  if (rawPath === "") return invalid(original, "the path after 'file:' is empty");
  const absolute = path.resolve(cwd, rawPath);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(absolute);
  } catch {
    return invalid(original, `there is no file or directory at '${rawPath}'`);
  }
  if (TARBALL.test(absolute) && stat.isFile()) return { ok: true, spec: { kind: "tarball", path: absolute, installSpec: `file:${absolute}` } };
  if (stat.isDirectory()) return { ok: true, spec: { kind: "directory", path: absolute, installSpec: `file:${absolute}` } };
  return invalid(original, `'${rawPath}' is neither a package directory nor a .tgz tarball`);
}

/**
 * A registry name with an optional version, range or dist-tag, split and classified by
 * `npm-package-arg` (npm's own reading) and checked by `validate-npm-package-name` (npm's
 * naming rules). Only the refusals npm would word differently are checked first: a short name
 * with a `/` (npm would read a GitHub shorthand) and a scope without a name.
 */
function resolveName(original: string, input: string, short: boolean): ResolvePluginSpecResult {
  const at = input.indexOf("@", 1);
  const name = at === -1 ? input : input.slice(0, at);
  if (short && name.includes("/")) return invalid(original, `'${name}' looks like a path; write it as './${name}'`);
  if (name.startsWith("@") && !/^@[^/]+\/[^/]+$/.test(name)) return invalid(original, `'${name}' is not a scoped package name (@scope/name)`);
  const naming = validateNpmPackageName(name);
  if (!naming.validForNewPackages) {
    return invalid(original, `'${name}' is not a valid package name (${[...(naming.errors ?? []), ...(naming.warnings ?? [])].join("; ")})`);
  }
  const version = at === -1 ? undefined : input.slice(at + 1);
  if (version !== undefined && (version === "" || !isRegistrySpec(input))) {
    return invalid(original, `'${version}' is not a version, a version range or a dist-tag`);
  }
  const fullName = short ? `${OFFICIAL_SCOPE}/${name}` : name;
  const installSpec = version === undefined ? fullName : `${fullName}@${version}`;
  return { ok: true, spec: { kind: "registry", name: fullName, short, installSpec, ...(version !== undefined ? { version } : {}) } };
}

/** True when npm reads `spec` as a registry version, range or dist-tag (npm-package-arg throws on a bad tag). */
function isRegistrySpec(spec: string): boolean {
  try {
    return ["version", "range", "tag"].includes(npa(spec).type);
  } catch {
    return false;
  }
}

function invalid(spec: string, reason: string): ResolvePluginSpecResult {
  return { ok: false, diagnostic: createDiagnostic(Diagnostics.AddInvalidSpec, { file: "", line: 1, column: 1 }, [spec, reason]) };
}

/**
 * What the `<plugin>` argument of `assembly-line add <plugin> [root]` names (issue 3 item 7).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import semver from "semver";
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

const NAME_PART = /^[a-z0-9][a-z0-9._~-]*$/;
const TARBALL = /\.(?:tgz|tar\.gz|tar)$/i;
const DIST_TAG = /^[A-Za-z][A-Za-z0-9._-]*$/;

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

function resolveName(original: string, input: string, short: boolean): ResolvePluginSpecResult {
  const at = input.indexOf("@", input.startsWith("@") ? 1 : 0);
  const name = at === -1 ? input : input.slice(0, at);
  const version = at === -1 ? undefined : input.slice(at + 1);
  const problem = nameProblem(name, short);
  if (problem) return invalid(original, problem);
  if (version !== undefined && semver.validRange(version) === null && !DIST_TAG.test(version)) {
    return invalid(original, `'${version}' is not a version, a version range or a dist-tag`);
  }
  const fullName = short ? `${OFFICIAL_SCOPE}/${name}` : name;
  const installSpec = version === undefined ? fullName : `${fullName}@${version}`;
  return { ok: true, spec: { kind: "registry", name: fullName, short, installSpec, ...(version !== undefined ? { version } : {}) } };
}

function nameProblem(name: string, short: boolean): string | undefined {
  if (name.length > 214) return "a package name has at most 214 characters";
  if (short) {
    if (name.includes("/")) return `'${name}' looks like a path; write it as './${name}'`;
    return NAME_PART.test(name) ? undefined : `'${name}' is not a valid package name (lowercase letters, digits, '-', '.', '_' and '~')`;
  }
  const scoped = /^@([^/]+)\/([^/]+)$/.exec(name);
  if (name.startsWith("@") && !scoped) return `'${name}' is not a scoped package name (@scope/name)`;
  const parts = scoped ? [scoped[1]!, scoped[2]!] : [name];
  return parts.every((part) => NAME_PART.test(part)) ? undefined : `'${name}' is not a valid package name (lowercase letters, digits, '-', '.', '_' and '~')`;
}

function invalid(spec: string, reason: string): ResolvePluginSpecResult {
  return { ok: false, diagnostic: createDiagnostic(Diagnostics.AddInvalidSpec, { file: "", line: 1, column: 1 }, [spec, reason]) };
}

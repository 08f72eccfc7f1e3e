/**
 * Path containment after resolving symlinks (Agent Plugins v1 §4.1 items 3 and 4).
 *
 * Every package path the loader touches is first resolved with {@link resolvePackagePath}; only
 * paths whose filesystem-resolved location stays inside the filesystem-resolved plugin root are
 * ever read. An escaping link is reported by the caller with the narrowest failure boundary the
 * spec assigns (reject the plugin, invalidate a component type, skip a skill or a server).
 */
import * as path from "node:path";
import type { CompilerHost } from "../../common/host.js";
import { isPathInside } from "../../common/path-inside.js";

/** What a package path resolves to. */
export type PackagePathStatus =
  | { readonly kind: "missing" }
  /** A symbolic link (possibly through further links) whose target does not exist, or a link loop. */
  | { readonly kind: "broken" }
  | { readonly kind: "outside"; readonly real: string }
  | { readonly kind: "inside"; readonly real: string; readonly type: "file" | "directory" | "other" };

/** The shared rule (common/path-inside.ts), exported here for the plugin-package API. */
export { isPathInside };

/**
 * Resolves `filePath` (absolute, lexically inside the plugin) through every symbolic link and
 * classifies it against `rootReal` (the plugin root's real path). Reads nothing but metadata.
 */
export function resolvePackagePath(host: CompilerHost, rootReal: string, filePath: string): PackagePathStatus {
  if (host.kind(filePath) === "missing") return { kind: "missing" };
  const real = host.realpath(filePath);
  if (real === undefined) return { kind: "broken" };
  if (!isPathInside(rootReal, real)) return { kind: "outside", real };
  const kind = host.kind(real);
  if (kind === "missing" || kind === "symlink") return { kind: "broken" };
  return { kind: "inside", real, type: kind };
}

/**
 * Resolves a plugin-relative path written in configuration (`./bin/server`, the rest of a
 * `${PLUGIN_ROOT}/…` cwd) the way the operating system would: segment by segment, following
 * each existing symlink, applying `..` to the path resolved so far. Segments that do not exist
 * are joined lexically (load-time validation does not require `./bin/server` to exist). Both
 * `/` and `\` separate segments, so a path that would escape on any platform is caught.
 *
 * @returns the resolved absolute path and whether it stays inside `rootReal`.
 */
export function resolvePluginRelative(host: CompilerHost, rootReal: string, relative: string): { readonly inside: boolean; readonly resolved: string } {
  let current = rootReal;
  for (const segment of relative.split(/[\\/]+/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = path.dirname(current);
      continue;
    }
    const next = path.join(current, segment);
    // A broken link or a missing segment is joined as written.
    current = host.kind(next) === "missing" ? next : (host.realpath(next) ?? next);
  }
  return { inside: isPathInside(rootReal, current), resolved: current };
}

/**
 * True when a relative path climbs above its starting directory lexically (`../x`,
 * `a/../../x`); used for `${PLUGIN_DATA}` paths, whose directory is chosen by the client at run
 * time and so cannot be resolved while loading.
 */
export function climbsAbove(relative: string): boolean {
  let depth = 0;
  for (const segment of relative.split(/[\\/]+/)) {
    if (segment === "" || segment === ".") continue;
    depth += segment === ".." ? -1 : 1;
    if (depth < 0) return true;
  }
  return false;
}

/**
 * `real` relative to the plugin's real root with `/` separators (`../outside/mcp.json`), so
 * messages about escaping paths do not depend on where the checkout lives.
 */
export function relativeToRoot(rootReal: string, real: string): string {
  return path.relative(rootReal, real).split(path.sep).join("/");
}

/**
 * The one "is this path inside that folder" rule (issue 8 "each rule once"), for plugin
 * packages, definitions, imports, the artifact's bundles and skills, confined writes and the
 * workspace tools. Lexical: callers that must not follow symbolic links out of a folder pass
 * real paths (fs.realpathSync) on both sides.
 */
import * as path from "node:path";

/**
 * True when `child` is `parent` itself or lies below it. Both are resolved first, so relative
 * paths and `..` segments are judged where they lead: `/a/..b` is inside `/a`, `/ab` and
 * `/a/../b` are not.
 */
export function isPathInside(parent: string, child: string): boolean {
  return relativeInside(parent, child) !== undefined;
}

/**
 * The path of `child` relative to `parent` (with the platform's separator; `""` for `parent`
 * itself) when `child` is inside `parent`, else `undefined`.
 */
export function relativeInside(parent: string, child: string): string | undefined {
  // Both already absolute and normal (what a compile asks thousands of times: every definition,
  // import and packaged file): `path.resolve` would return them as they are, and `path.relative`
  // between them is the rest of `child` after `parent/`, or climbs out (issue 14 item 1).
  if (path.sep === "/" && isNormalAbsolute(parent) && isNormalAbsolute(child)) {
    if (child === parent) return "";
    if (parent === "/") return child.slice(1);
    return child.startsWith(parent) && child.charCodeAt(parent.length) === 47 /* / */ ? child.slice(parent.length + 1) : undefined;
  }
  const relative = path.relative(path.resolve(parent), path.resolve(child));
  if (relative === "") return "";
  if (path.isAbsolute(relative) || relative === ".." || relative.startsWith(`..${path.sep}`)) return undefined;
  return relative;
}

/**
 * `path.join(dir, name)` for a `name` a folder listing gave (it holds no separator and is never
 * `.` or `..`): for a `dir` that is absolute and normal (what `path.resolve` and `realpath`
 * return) the two joined with `/`, without `path.join`'s normalizing, which is the same string
 * (a 200-plugin compile lists about 2,400 names; issue 14 item 1). Any other `dir`: `path.join`.
 */
export function joinListedName(dir: string, name: string): string {
  if (path.sep === "/" && isNormalAbsolute(dir)) return dir === "/" ? `/${name}` : `${dir}/${name}`;
  return path.join(dir, name);
}

/**
 * Whether `p` is an absolute POSIX path that `path.resolve` returns unchanged: it starts with
 * `/`, has no empty, `.` or `..` segment and no trailing `/` (the root `/` itself is normal).
 */
function isNormalAbsolute(p: string): boolean {
  if (p.charCodeAt(0) !== 47 /* / */) return false;
  if (p.length === 1) return true;
  if (p.charCodeAt(p.length - 1) === 47 || p.includes("//")) return false;
  return !(p.includes("/./") || p.includes("/../") || p.endsWith("/.") || p.endsWith("/.."));
}

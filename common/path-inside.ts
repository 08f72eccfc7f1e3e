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
  const relative = path.relative(path.resolve(parent), path.resolve(child));
  if (relative === "") return "";
  if (path.isAbsolute(relative) || relative === ".." || relative.startsWith(`..${path.sep}`)) return undefined;
  return relative;
}

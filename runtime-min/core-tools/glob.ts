/**
 * A small glob matcher for `grep`'s `include` option.
 *
 * Syntax: `*` any run of characters except `/`; `**` any run including `/` (`**\/` also
 * matches no folder at all); `?` one character except `/`; `{a,b}` alternatives; `[abc]` /
 * `[!abc]` character classes; everything else is literal. A glob without `/` is matched
 * against the file name only (`*.ts` matches `src/a.ts`), otherwise against the path relative
 * to the folder being searched.
 */
import { ToolCallError } from "../failures.js";

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function classToRegExp(glob: string, start: number): { source: string; end: number } | undefined {
  const close = glob.indexOf("]", start + 1);
  if (close === -1) return undefined;
  let body = glob.slice(start + 1, close);
  const negate = body.startsWith("!");
  if (negate) body = body.slice(1);
  const escaped = body.replace(/[\\\]^]/g, "\\$&");
  return { source: negate ? `[^/${escaped}]` : `[${escaped}]`, end: close };
}

/**
 * Compiles `glob` to the source of an anchored regular expression over POSIX paths.
 * @throws ToolCallError `invalid_input` for an unbalanced `{`.
 */
export function globToRegExpSource(glob: string): string {
  let source = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i] as string;
    if (char === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        source += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        source += "[^/]*";
      }
    } else if (char === "?") source += "[^/]";
    else if (char === "{") {
      braces += 1;
      source += "(?:";
    } else if (char === "}" && braces > 0) {
      braces -= 1;
      source += ")";
    } else if (char === "," && braces > 0) source += "|";
    else if (char === "[") {
      const cls = classToRegExp(glob, i);
      if (cls) {
        source += cls.source;
        i = cls.end;
      } else source += "\\[";
    } else source += escapeRegExp(char);
  }
  if (braces !== 0) throw new ToolCallError("invalid_input", `The glob "${glob}" has an unclosed "{".`);
  return `^${source}$`;
}

/** A predicate over search-relative POSIX paths built from `glob` (see the module comment). */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  const regex = new RegExp(globToRegExpSource(glob));
  const byName = !glob.includes("/");
  return (relativePath) => regex.test(byName ? relativePath.slice(relativePath.lastIndexOf("/") + 1) : relativePath);
}

/**
 * The glob matcher for `grep`'s `include` option, by `picomatch`.
 *
 * Syntax (picomatch with POSIX brackets): `*` any run of characters except `/` (dot files
 * included); `**` any run including `/` (`**\/` also matches no folder at all); `?` one
 * character except `/`; `{a,b}` alternatives; `[abc]` / `[!abc]` character classes; extglobs
 * such as `@(a|b)`. A glob without `/` is matched against the file name only (`*.ts` matches
 * `src/a.ts`), otherwise against the path relative to the folder being searched.
 */
import picomatch from "picomatch";
import { ToolCallError } from "../failures.js";

/** `dot`: `*` matches dot files as well; `posix`: `[!a]` negates; strict: an unclosed `{` or `[` is an error, not text. */
const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true, posix: true, strictBrackets: true, debug: true };

/**
 * Compiles `glob` to the source of an anchored regular expression over POSIX paths (the
 * grep worker gets it as text).
 * @throws ToolCallError `invalid_input` for a glob picomatch refuses (an unclosed `{` or `[`,
 *   a class such as `[z-a]` that is no valid regular expression).
 */
export function globToRegExpSource(glob: string): string {
  try {
    return picomatch.makeRe(glob, GLOB_OPTIONS).source;
  } catch (error) {
    throw new ToolCallError("invalid_input", `include "${glob}" is not a valid glob: ${(error as Error).message}.`);
  }
}

/** A predicate over search-relative POSIX paths built from `glob` (see the module comment). */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  const regex = new RegExp(globToRegExpSource(glob));
  const byName = !glob.includes("/");
  return (relativePath) => regex.test(byName ? relativePath.slice(relativePath.lastIndexOf("/") + 1) : relativePath);
}

/**
 * The command that brings `plugins.lock` up to date, as printed in hints and reports.
 */
import { shellQuote } from "../common/shell-quote.js";

/**
 * `npx assembly-line compile <root>`; `root` is printed as given (pass a path relative to the
 * user's working directory), quoted for a POSIX shell when it holds anything but
 * `[A-Za-z0-9@%+=:,./_-]`. A root of `"."` or `""` prints `npx assembly-line compile`.
 */
export function fixCommandFor(root: string): string {
  if (root === "" || root === ".") return "npx assembly-line compile";
  return `npx assembly-line compile ${shellQuote(root)}`;
}

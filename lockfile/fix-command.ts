/**
 * The command that brings `plugins.lock` up to date, as printed in hints and reports.
 */
import { cliCommand } from "../common/cli-command.js";

/**
 * `<prefix> compile <root>`, the prefix being what the user can type where the CLI runs
 * (`common/cli-command.ts`: `npx assembly-line` in a project that installed the toolchain);
 * `root` is printed as given (pass a path relative to the user's working directory), quoted for
 * a POSIX shell when it holds anything but `[A-Za-z0-9@%+=:,./_-]`. A root of `"."` or `""`
 * prints `<prefix> compile`.
 */
export function fixCommandFor(root: string): string {
  return root === "" || root === "." ? cliCommand("compile") : cliCommand("compile", root);
}

/**
 * Pretty output of `call` and `approve` (the `--format json` output is the `CallResult` itself,
 * with the host command's `diagnostics` and `lockChanged`: `./commands/host-report.ts`).
 */
import { cliCommand } from "../common/cli-command.js";
import { showControlCharacters } from "../common/terminal-text.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { formatPretty } from "../diagnostics/format-pretty.js";
import { plainPalette, type Palette } from "../diagnostics/terminal-color.js";
import type { CallResult } from "../runtime-min/types.js";

/**
 * Human-readable text of a call result, ending in a newline.
 * @param root the agent root as the user typed it, so the printed `approve` command can be pasted.
 * @param colors the palette (default: plain text; the CLI passes colour for a terminal).
 * @param hostArgs flags the printed `approve` command repeats (the call's `--config` and
 *   `--execution`): the approved call runs in the `approve` process, under its host settings.
 */
export function formatCallResult(result: CallResult, root = ".", colors: Palette = plainPalette, hostArgs: readonly string[] = []): string {
  const lines: string[] = [];
  const ids = colors.dim(`(run ${result.runId}, call ${result.callId})`);
  if (result.status === "ok") {
    lines.push(`${colors.green("ok")} ${result.tool} ${ids}${result.alreadyDecided ? colors.dim(" — already approved; nothing ran") : ""}`);
    lines.push(shown(JSON.stringify(result.output ?? null, null, 2)));
  } else if (result.status === "approval_required") {
    lines.push(`${colors.yellow("approval required")} ${result.tool} ${ids}`);
    lines.push(`  reason: ${shown(result.approval?.reason ?? "")}`);
    lines.push(`  side effect: ${shown(result.approval?.sideEffect ?? "")}`);
    lines.push(`  approve: ${hostCommand("approve", root, [result.callId, "--run", result.runId, ...hostArgs])}   (or add --deny)`);
  } else {
    const kind = result.failure ? ` ${shown(result.failure.kind)}` : result.approval?.state === "denied" ? " denied" : "";
    // A decision made earlier (a second `approve`, a `--deny` after an approval) ran nothing now.
    lines.push(`${colors.red(`failed${kind}`)} ${result.tool} ${ids}${result.alreadyDecided ? colors.dim(" — decided earlier; nothing ran now") : ""}`);
    lines.push(`  ${shown(result.error ?? "")}`);
    if (result.failure) lines.push(colors.dim(result.failure.runCanContinue ? "  the run continues" : "  the run has ended"));
  }
  if (result.events.length > 0) {
    lines.push(colors.dim("events:"));
    for (const { type, stack, ...data } of result.events) {
      lines.push(colors.dim(`  ${shown(String(type))} ${shown(JSON.stringify(data))}`));
      if (typeof stack === "string") lines.push(...stack.split("\n").map((line) => colors.dim(`      ${shown(line.trim())}`)));
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A tool's words (its output, error, stack, event types) as a terminal shows them: its control
 * characters as pictures, never sent, so a hostile tool cannot clear the screen or print a false
 * "ok" over its failure (helper-89's review, finding 6; `common/terminal-text.ts`).
 */
function shown(text: string): string {
  return showControlCharacters(text);
}

/**
 * Human-readable text of a refused request: the diagnostics exactly as `compile` prints them
 * (`file:line:column - error CODE: message`, the property path, the hint, a summary line),
 * without code frames; just the message when there are none.
 */
export function formatRefusal(message: string, diagnostics: readonly Diagnostic[], colors: Palette = plainPalette): string {
  if (diagnostics.length === 0) return `${colors.red("error")} ${message}\n`;
  return formatPretty(diagnostics, { color: colors !== plainPalette });
}

/**
 * `<prefix> <command> <first> [root] <rest…>`, shell-quoted, omitting a root of "."; the prefix
 * is what the user can type where the CLI runs (`common/cli-command.ts`).
 */
export function hostCommand(command: string, root: string, args: readonly string[]): string {
  const [first, ...rest] = args;
  return cliCommand(command, ...(first === undefined ? [] : [first]), ...(root === "." || root === "" ? [] : [root]), ...rest);
}

/**
 * Pretty output of `call` and `approve` (the `--format json` output is the `CallResult` itself).
 */
import pc from "picocolors";
import { shellQuote } from "../../lockfile/fix-command.js";
import type { Diagnostic } from "../../compiler/diagnostics/diagnostic.js";
import type { CallResult } from "../types.js";

/**
 * Human-readable text of a call result, ending in a newline.
 * @param root the agent root as the user typed it, so the printed `approve` command can be pasted.
 */
export function formatCallResult(result: CallResult, root = "."): string {
  const lines: string[] = [];
  const ids = pc.dim(`(run ${result.runId}, call ${result.callId})`);
  if (result.status === "ok") {
    lines.push(`${pc.green("ok")} ${result.tool} ${ids}${result.alreadyDecided ? pc.dim(" — already approved; nothing ran") : ""}`);
    lines.push(JSON.stringify(result.output ?? null, null, 2));
  } else if (result.status === "approval_required") {
    lines.push(`${pc.yellow("approval required")} ${result.tool} ${ids}`);
    lines.push(`  reason: ${result.approval?.reason ?? ""}`);
    lines.push(`  side effect: ${result.approval?.sideEffect ?? ""}`);
    lines.push(`  approve: ${hostCommand("approve", root, [result.callId, "--run", result.runId])}   (or add --deny)`);
  } else {
    const kind = result.failure ? ` ${result.failure.kind}` : result.approval?.state === "denied" ? " denied" : "";
    lines.push(`${pc.red(`failed${kind}`)} ${result.tool} ${ids}`);
    lines.push(`  ${result.error ?? ""}`);
    if (result.failure) lines.push(pc.dim(result.failure.runCanContinue ? "  the run continues" : "  the run has ended"));
  }
  if (result.events.length > 0) {
    lines.push(pc.dim("events:"));
    for (const { type, stack, ...data } of result.events) {
      lines.push(pc.dim(`  ${type} ${JSON.stringify(data)}`));
      if (typeof stack === "string") lines.push(...stack.split("\n").map((line) => pc.dim(`      ${line.trim()}`)));
    }
  }
  return `${lines.join("\n")}\n`;
}

/** Human-readable text of a refused request (diagnostics with code, place and hint). */
export function formatRefusal(message: string, diagnostics: readonly Diagnostic[]): string {
  if (diagnostics.length === 0) return `${pc.red("error")} ${message}\n`;
  const lines = diagnostics.flatMap((diagnostic) => [
    `${diagnostic.file === "" ? "" : `${diagnostic.file}:${diagnostic.line}:${diagnostic.column} `}${pc.red(diagnostic.severity)} ${diagnostic.code} ${diagnostic.message}`,
    ...(diagnostic.hint ? [`  ${pc.dim(diagnostic.hint)}`] : []),
  ]);
  return `${lines.join("\n")}\n`;
}

/** `npx assembly-line <command> <first> [root] <rest…>`, shell-quoted, omitting a root of ".". */
export function hostCommand(command: string, root: string, args: readonly string[]): string {
  const [first, ...rest] = args;
  const parts = ["npx", "assembly-line", command, ...(first === undefined ? [] : [first]), ...(root === "." || root === "" ? [] : [root]), ...rest];
  return parts.map(shellQuote).join(" ");
}

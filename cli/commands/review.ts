/**
 * `assembly-line review [root] [--base <revision>] [--format pretty|json|github|sarif]` (DESIGN §7; issue 11
 * item 3): what the lock `compile` would write changes for the model, against the committed
 * `plugins.lock` (the one of Git's `HEAD` when the agent is in a Git work tree, else the file on
 * disk; with `--base`, the one of that revision: a pull request's base in CI), in
 * model-visible terms (tool added, removed or renamed, description changed with a word diff,
 * schema widened or narrowed, approval removed or weakened, …). Writes nothing.
 *
 * JSON: exactly `{ "changes": [{ "kind", "surface", "tool", "detail" }] }`, with `notes` (the
 * hand-edit notes of `compile --check`) after it when the lock on disk was edited by hand; when the agent's
 * inputs have errors (nothing to compare), `{ "changes": [], "diagnostics": [...] }`.
 * `github` and `sarif` print each change as a diagnostic placed on the lock's line (AL6216 when it
 * needs review, AL6217 otherwise; `lockfile/review-diagnostics.ts`), as `compile` prints its own in
 * those formats, for a pull request's annotations and code scanning (new-user trial 115); on an
 * out-of-date lock (a pull request that did not compile), where the entry writes the change
 * (`build/stale-lock-places.ts`, new-user trial 125).
 *
 * The compile it runs is `compile --check`'s, with the project configuration's compile settings
 * (`rules`, `maxWarnings`, `targets`, `tokenBudget`; `--config FILE` / `--no-config`, and
 * `--target`, `--token-budget`, `--max-warnings` over them, as `compile` takes them:
 * `build/compile-settings.ts`): a target's error, a budget overrun, a code a rule raises to error or
 * too many warnings are errors of the inputs, as they are for `compile --check`, so `review` never
 * passes a tree that CI's `compile --check` fails (new-user trial 129, finding 6).
 *
 * Exit codes: 0 — nothing needs review; 1 — a change needs review (an approval gate removed
 * or weakened, a published pack's description changed), or the inputs (or the project
 * configuration) have errors; 2 — `--base` names no commit of the agent's Git work tree (AL6215).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compileAgent } from "../../build/compile.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { formatGithub, formatSarif, toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { reviewDiagnostics } from "../../lockfile/review-diagnostics.js";
import { toolVersion } from "../version.js";
import { contractReviewJson, formatContractReview } from "../../lockfile/format-review.js";
import type { ContractReview } from "../../lockfile/review-contract.js";
import { handEditedNote } from "../../lockfile/hand-edits.js";
import { showControlCharacters } from "../../common/terminal-text.js";
import { hintAgentRootAbove } from "../agent-root-hint.js";
import { committedLock, lockAtRevision } from "../git-head-lock.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { placeReviewInSources } from "../../build/stale-lock-places.js";
import { escapeRawControls, printDiagnostics, printJson } from "../output.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import { relativizeDiagnostic } from "../../diagnostics/diagnostic.js";
import { configSelection, type ConfigFlags } from "../config-selection.js";
import { compileSettingsOf, type CompileSettingFlags } from "../../build/compile-settings.js";

/** `review`'s output formats (DESIGN §7 names pretty and json; github and sarif as `compile` has them). */
export type ReviewFormat = "pretty" | "json" | "github" | "sarif";

/** Lock states a review can compare against (a missing lock is "every tool is new"). */
const COMPARABLE = new Set(["up-to-date", "missing", "out-of-date"]);

/** Why `--base` gave no lock to compare with, in AL6215's words. */
const BASE_PROBLEMS = {
  "not-a-work-tree": "the agent is not in a Git work tree (or Git is not installed)",
  "unknown-revision": "Git knows no commit '{0}' in the repository holding the agent",
  "not-a-lock": "the plugins.lock of '{0}' is not a lock this toolchain reads",
} as const;

/** Flags of `review`. */
export interface ReviewFlags extends ConfigFlags, CompileSettingFlags {
  readonly format: ReviewFormat;
  /** `--base <revision>`: compare with that revision's lock instead of `HEAD`'s. */
  readonly base?: string;
}

/**
 * Runs `review`; resolves to the exit code. `base` names the revision whose lock is compared with
 * (`--base`, for a pull request's CI); without it, Git's `HEAD` (or the file on disk outside Git).
 * The compile applies the project configuration's compile settings, flags over them, as
 * `compile --check` does.
 */
export async function runReview(rootArgument: string, flags: ReviewFlags): Promise<number> {
  const root = path.resolve(rootArgument);
  // GitHub annotations and SARIF name files relative to the working directory (the repository's root in CI).
  const machine = (diagnostics: readonly Diagnostic[], properties?: (d: Diagnostic) => Readonly<Record<string, unknown>> | undefined): void => {
    const base = path.relative(process.cwd(), root);
    process.stdout.write(flags.format === "sarif" ? escapeRawControls(formatSarif(diagnostics, toolVersion(), base, process.cwd(), properties)) : formatGithub(diagnostics, base));
  };
  // The committed lock is Git's HEAD's when there is one: the file on disk may be the new lock already.
  let committed = committedLock(root);
  // A root that does not exist is the compile's AL1024 below, not a Git problem (new-user trial 120).
  if (flags.base !== undefined && fs.existsSync(root)) {
    const found = flags.base.startsWith("-") ? { problem: "unknown-revision" as const } : lockAtRevision(root, flags.base);
    if ("problem" in found) {
      const why = BASE_PROBLEMS[found.problem].replace("{0}", flags.base);
      const refused = createDiagnostic(Diagnostics.ReviewBaseUnavailable, { file: "", line: 1, column: 1 }, [flags.base, why]);
      if (flags.format === "json") printJson({ changes: [], diagnostics: [toJsonDiagnostic(refused)] });
      else if (flags.format === "github" || flags.format === "sarif") machine([refused]);
      else printDiagnostics([refused], root);
      return 2;
    }
    committed = found.lock;
  }
  const against = flags.base === undefined ? `its last commit (HEAD${committed === null ? ", which has no lock yet" : ""})` : `${flags.base}${committed === null ? ", which has no lock" : ""}`;
  // The project configuration, as `compile` reads it: a bad one stops the review (exit 1), as it stops a compile.
  const loaded = await loadProjectConfig(root, configSelection(flags));
  if (loaded.diagnostics.length > 0) {
    const shown = loaded.diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative));
    if (flags.format === "json") printJson({ changes: [], diagnostics: shown.map(toJsonDiagnostic) });
    else if (flags.format === "github" || flags.format === "sarif") machine(shown);
    else {
      printDiagnostics(shown, root);
      process.stderr.write("Nothing was reviewed: fix the errors above first.\n");
    }
    return 1;
  }
  const settings = compileSettingsOf(loaded.config, flags);
  const result = await compileAgent({ root, check: true, package: false, displayRoot: rootArgument, ...settings, ...(committed !== undefined ? { reviewBase: committed } : {}) });
  const report = result.checkReport;
  const problems = result.diagnostics.filter((d) => d.severity === "error" && !(report && COMPARABLE.has(report.status) && d.code === report.diagnostic?.code));
  if (problems.length > 0 || !report || !COMPARABLE.has(report.status)) {
    // AL6013 is `compile --check`'s way of saying this (after the errors, naming itself): review
    // says it in its own words below (helper-73: it printed first, pointing at "the errors above").
    const shown = result.diagnostics.filter((d) => d.code !== Diagnostics.LockfileNotChecked.code);
    if (flags.format === "json") printJson({ changes: [], diagnostics: shown.map(toJsonDiagnostic) });
    else if (flags.format === "github" || flags.format === "sarif") machine(shown);
    else {
      // A root inside an agent (run from plugins/hello/): AL1001's hint names the agent root above.
      printDiagnostics(hintAgentRootAbove(shown, root, rootArgument), root);
      process.stderr.write("Nothing was reviewed: fix the errors above first.\n");
    }
    return 1;
  }
  const review: ContractReview = result.review ?? { changes: [], needsReview: false };
  // The review compares with HEAD's lock; a hand edit of the lock on disk is said as
  // `compile --check` says it (lockfile/hand-edits.ts; new-user trial of 6 December).
  const notes = (report.handEdited ?? []).map(handEditedNote);
  if (flags.format === "json") process.stdout.write(escapeRawControls(contractReviewJson(review, notes)));
  else if (flags.format === "github" || flags.format === "sarif") {
    // The notes have no place in the lock's lines: said on stderr, as pretty does.
    for (const note of notes) process.stderr.write(`note: ${showControlCharacters(note)}\n`);
    const onLock = reviewDiagnostics(review, LOCKFILE_NAME, lockOnDisk(root));
    // A lock on disk that is not the next one (a pull request that changed a plugin without
    // compiling): its lines are the old lock's, so the changes are placed in the sources instead.
    const changes = report.status === "out-of-date" ? placeReviewInSources(review, onLock, result.analysis, root) : onLock;
    const changeOf = new Map(changes.map((d, index) => [d, review.changes[index]!] as const));
    machine([...result.diagnostics.filter((d) => d.severity !== "error"), ...changes], (d) => {
      const change = changeOf.get(d);
      return change === undefined ? undefined : { kind: change.kind, surface: change.surface, tool: change.tool, detail: change.detail, needsReview: change.needsReview };
    });
  } else {
    printDiagnostics(result.diagnostics.filter((d) => d.severity !== "error"), root);
    for (const note of notes) process.stderr.write(`note: ${showControlCharacters(note)}\n`);
    process.stdout.write(formatContractReview(review, committed !== undefined ? `Contract review of ${report.lockPath} against ${against}` : `Contract review of ${report.lockPath}`));
  }
  return review.needsReview ? 1 : 0;
}

/**
 * The text of the agent's plugins.lock, to place the changes on (`undefined` when it is missing,
 * not a regular file — a link is not followed — or unreadable: the changes are then placed at
 * line 1).
 */
function lockOnDisk(root: string): string | undefined {
  const file = path.join(root, LOCKFILE_NAME);
  try {
    return fs.lstatSync(file).isFile() ? fs.readFileSync(file, "utf8") : undefined;
  } catch {
    return undefined;
  }
}

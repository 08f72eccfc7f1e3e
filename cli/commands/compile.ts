/**
 * `assembly-line compile [root...] [--check] [--watch] [--out DIR] [--no-package] [--no-cache]
 * [--fail-on-change] [--max-warnings N] [--target ID]… [--token-budget N] [--config FILE | --no-config] [--format …]` (DESIGN §7, issue 10; issue 11 for
 * `--target` and `--token-budget`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { CompileOptions, CompileResult } from "../../build/compile.js";
import { analysisWorkerWanted, discardPrestartedAnalysisWorker, POOL_THRESHOLD, prestartAnalysisWorker } from "../../compiler/analysis-pool.js";
import { ANALYSIS_CACHE_FILE } from "../../compiler/static-analysis/analysis-cache.js";
import { fileStart, rebaseFile } from "../../common/positions.js";
import { shellQuote } from "../../common/shell-quote.js";
import { cliCommand } from "../../common/cli-command.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { hintAgentRootAbove } from "../agent-root-hint.js";
import { formatGithub, formatSarif, toJsonDiagnostic } from "../../diagnostics/format-machine.js";
export { compileJson } from "../compile-report.js";
import { checkRoot, emptyAnalysis } from "../../build/check-root.js";
import type { CompileFormat } from "../../build/project-config/types.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { compileOptionsFor, expandRoots, loadTargets, outputFormat, sharedOutDirs, type CompileTarget, type ConfigFlags } from "../compile-targets.js";
import { checkSarifProperties, compileJson, printPretty, type ReportedCompile } from "../compile-report.js";
import { compileRecorder, compileRecordKey, replayCompile } from "../compile-record.js";
import { escapeRawControls, printDiagnostics, printJson } from "../output.js";
import { toolVersion } from "../version.js";
import { formatContractReview } from "../../lockfile/format-review.js";
import { handEditedNote } from "../../lockfile/hand-edits.js";
import { showControlCharacters } from "../../common/terminal-text.js";
import { recordingHost } from "../inputs-record.js";
import { compileSettingsKey } from "../../build/compile-settings.js";
import { createNodeHost } from "../../common/host.js";

/** Flags of `compile`. */
export interface CompileFlags extends ConfigFlags {
  readonly check?: boolean;
  readonly out?: string;
  readonly package: boolean;
  /** `--no-cache` sets false: neither read nor write `.assemblyline/cache/`. */
  readonly cache?: boolean;
  /** `undefined` when not given: the configuration's `format`, else `pretty`. */
  readonly format?: CompileFormat;
  /**
   * `--fail-on-change` (the pre-commit hook `assembly-line`): exit 1 with AL6014 when this
   * compile wrote new plugins.lock bytes, or a changed artifact into an `--out` directory (the
   * default artifact under `.assemblyline/` is ignored by Git, so it never stops a commit).
   */
  readonly failOnChange?: boolean;
  /** `--max-warnings N` (wins over `maxWarnings` in the configuration). */
  readonly maxWarnings?: number;
  /** `--target ID` (repeatable): provider profiles to check every tool against (wins over `targets` of the configuration). */
  readonly target?: readonly string[];
  /** `--token-budget N`: the most tokens each surface's initial snapshot may cost (wins over `tokenBudget`). */
  readonly tokenBudget?: number;
  /** `--watch`: compile again whenever an input changes (`../watch/watch-compile.ts`). */
  readonly watch?: boolean;
}

/** One root's outcome. */
interface RootOutcome {
  readonly target: CompileTarget;
  /** The compile's result, or its outcome replayed from the compile record (`../compile-record.ts`). */
  readonly result: ReportedCompile;
  /** `--fail-on-change`: AL6014, when this compile changed what the user commits. */
  readonly stopped?: Diagnostic;
}

/** The result as reported: a compile stopped by `--fail-on-change` fails with AL6014 added. */
function reported({ result, stopped }: RootOutcome): ReportedCompile {
  return stopped ? { ...result, ok: false, diagnostics: [...result.diagnostics, stopped] } : result;
}

/**
 * Runs `compile` over one or more roots (paths or globs) and prints the results; resolves to
 * the exit code (0 ok, 1 errors or drift in any root, 2 usage). One root prints exactly as
 * before; several print one document (see {@link multiRootJson}) or one report per root.
 */
export async function runCompile(rootArguments: readonly string[], flags: CompileFlags): Promise<number> {
  const expanded = await expandRoots(rootArguments);
  const targets = await loadTargets(expanded.roots, flags);
  const format = outputFormat(flags, targets);
  const options = targets.map((target) => compileOptionsFor(target, { ...flags, format }));
  const usage = [...expanded.diagnostics, ...sharedOutDirs(targets, options)];
  if (usage.length > 0) {
    if (format === "json") printJson({ ok: false, diagnostics: usage.map(toJsonDiagnostic) });
    else printDiagnostics(usage, process.cwd());
    return usage.some((d) => d.code === "AL9116") ? 1 : 2;
  }
  if (flags.watch) {
    // Nothing to watch in a folder that is no agent root (as tsc --watch without a tsconfig): it
    // had watched plugins/hello/ for good after one AL1001 with the init hint.
    const missing = targets.filter((target) => !fs.existsSync(path.join(target.root, "agent.md")));
    if (missing.length > 0) {
      for (const target of missing) {
        // As a compile says it: a root that does not exist (AL1024) or is a file (AL1025), else no agent.md (AL1001).
        const diagnostic = checkRoot(createNodeHost(), target.root, target.displayRoot) ?? createDiagnostic(Diagnostics.AgentFileMissing, fileStart(""), [target.root]);
        const shown = hintAgentRootAbove([diagnostic], target.root, target.displayRoot);
        if (format === "json") printJson({ ok: false, diagnostics: shown.map(toJsonDiagnostic) });
        else printDiagnostics(shown, target.root);
      }
      return 1;
    }
    const { watchCompile } = await import("../watch/watch-compile.js");
    return watchCompile(targets, options, { json: format === "json" });
  }
  const outcomes: RootOutcome[] = [];
  if (coldCompile(targets, options)) prestartAnalysisWorker();
  try {
    for (const [i, target] of targets.entries()) {
      const compiled = target.configDiagnostics.length > 0 ? configFailure(target) : await compileOrReplay(target, options[i]!, flags);
      // A root inside an agent (run from plugins/hello/): AL1001's hint names the agent root above.
      const result = compiled.ok ? compiled : { ...compiled, diagnostics: hintAgentRootAbove(compiled.diagnostics, target.root, target.displayRoot) };
      const stopped = flags.failOnChange ? changedFiles(result, flags, target.root) : undefined;
      outcomes.push({ target, result, ...(stopped ? { stopped } : {}) });
    }
  } finally {
    discardPrestartedAnalysisWorker();
  }
  if (outcomes.length === 1) printSingle(outcomes[0]!, format, flags);
  else printMultiple(outcomes, format, flags);
  return outcomes.every((o) => reported(o).ok) ? 0 : 1;
}

/**
 * True when this command is one compile that will start the analysis worker
 * (`compiler/analysis-pool.ts`): one root with a valid configuration, no stored analyses to
 * use (`--no-cache`, or no analysis cache file yet), an agent large enough for the pool to keep
 * the worker ({@link likelyPoolSized}) and the worker wanted (its load rule,
 * `analysisWorkerWanted`). The CLI then starts the worker before it loads the compile driver
 * (`prestartAnalysisWorker`), which takes it. A guess that turns out wrong (the compile is
 * replayed, or stops early) only costs the worker's start: it is stopped after the compile.
 */
function coldCompile(targets: readonly CompileTarget[], options: readonly CompileOptions[]): boolean {
  if (targets.length !== 1 || targets[0]!.configDiagnostics.length > 0) return false;
  const root = targets[0]!.root;
  const cold = options[0]!.cache === false || !fs.existsSync(path.join(root, ANALYSIS_CACHE_FILE));
  return cold && likelyPoolSized(root) && analysisWorkerWanted();
}

/**
 * Smallest `plugins.lock` taken to pin {@link POOL_THRESHOLD} plugins: 1 KiB per plugin (a
 * plugin with one small tool takes about 1.5 KB of lock; a plugin of ten tools about 12 KB).
 */
const LOCK_BYTES_PER_POOL_SIZED_AGENT = POOL_THRESHOLD * 1024;

/**
 * Whether the agent at `root` likely has at least {@link POOL_THRESHOLD} plugin folders (the
 * pool stops its worker below that), judged by the size of its previous `plugins.lock`: one
 * `stat`, nothing parsed. Without a lock (a first compile) the worker is not started ahead; the
 * compile still starts it when it reads the agent. Started ahead for a one-plugin agent it cost
 * about 40 ms of wall time and 120 ms of CPU (issue 14: the fixed cost of a compile).
 */
export function likelyPoolSized(root: string): boolean {
  try {
    const lock = fs.statSync(path.join(root, LOCKFILE_NAME), { throwIfNoEntry: false });
    return lock !== undefined && lock.isFile() && lock.size >= LOCK_BYTES_PER_POOL_SIZED_AGENT;
  } catch {
    // A root that is a file (ENOTDIR) or unreadable: the compile reports it; no worker ahead.
    return false;
  }
}

/**
 * Compiles one root, or replays its last compile's report when nothing it read changed (the
 * compile record, `../compile-record.ts`: a compile that writes and may use
 * `.assemblyline/cache/`, i.e. not `--check` or `--no-cache`). A compile that writes records its
 * inputs, so the host commands that follow skip their check (`../inputs-record.ts`) and the next
 * `compile` may replay.
 */
async function compileOrReplay(target: CompileTarget, options: CompileOptions, flags: CompileFlags): Promise<ReportedCompile> {
  // The compile driver (and the front end under it) loads only when a compile runs.
  const compileAgent = async (given: CompileOptions): Promise<CompileResult> => (await import("../../build/compile.js")).compileAgent(given);
  if (flags.check || options.cache === false) return compileAgent(options);
  const key = compileRecordKey(options);
  const known = new Map<string, readonly [string, string]>();
  const replayed = replayCompile(target.root, key, known);
  if (replayed) {
    const { diagnostics, lockfile, artifact, surfaces, tools } = replayed;
    return { ok: true, diagnostics, lockfile, lockChanged: false, artifact, artifactChanged: false, counts: { surfaces, tools } };
  }
  // A one-shot compile: its disk host reads the plugin folders ahead (`common/read-ahead.ts`).
  // Recorded with this compile's settings: a host command under other settings checks again.
  const recording = recordingHost(target.root, createNodeHost({ readAhead: true }), compileSettingsKey(options));
  const recorder = compileRecorder(target.root, recording);
  const result = await compileAgent({ ...options, host: recording.host, hostReadsDisk: true, recordInput: recorder.recordInput, knownArtifactFiles: known });
  if (result.ok && !result.lockChanged) recording.save();
  recorder.save(result, key);
  return result;
}

/**
 * AL6014 when a successful compile changed what the user commits: new plugins.lock bytes, or
 * (with `--out`) a changed artifact. A fixer that changed a file exits non-zero so the commit
 * stops and the user stages the change (the pre-commit framework's convention for fixers).
 */
function changedFiles(result: ReportedCompile, flags: CompileFlags, root: string): Diagnostic | undefined {
  if (!result.ok || flags.check) return undefined;
  const shown = (relative: string): string => path.relative(process.cwd(), path.resolve(root, relative)) || ".";
  const changed = [
    ...(result.lockChanged ? [shown(result.lockfile)] : []),
    ...(flags.out !== undefined && result.artifact !== null && result.artifactChanged ? [shown(result.artifact)] : []),
  ];
  if (changed.length === 0) return undefined;
  return createDiagnostic(Diagnostics.CompileChangedFiles, { file: result.lockfile, line: 1, column: 1 }, [changed.join(" and "), changed.map(shellQuote).join(" ")]);
}

/** A root whose configuration is invalid is not compiled: its result is the configuration's diagnostics. */
function configFailure(target: CompileTarget): CompileResult {
  const diagnostics = target.configDiagnostics;
  return {
    ok: false,
    diagnostics,
    lockfile: LOCKFILE_NAME,
    lockChanged: false,
    artifact: null,
    artifactChanged: false,
    lockRecomputed: false,
    analysis: emptyAnalysis(target.root, diagnostics[0]!),
    timings: { analyze: 0, providers: 0, package: 0, lock: 0, artifact: 0, total: 0 },
  };
}

function printSingle(outcome: RootOutcome, format: CompileFormat, flags: CompileFlags): void {
  const root = outcome.target.root;
  const result = reported(outcome);
  if (format === "json") printJson(compileJson(result));
  else if (format === "sarif") process.stdout.write(escapeRawControls(formatSarif(result.diagnostics, toolVersion(), path.relative(process.cwd(), root), process.cwd(), checkSarifProperties(result))));
  else if (format === "github") process.stdout.write(formatGithub(result.diagnostics, path.relative(process.cwd(), root)));
  else printPrettyOutcome(outcome, flags);
}

/** The pretty report of one root: what the compile did, then AL6014 when `--fail-on-change` stops it. */
function printPrettyOutcome({ target, result, stopped }: RootOutcome, flags: CompileFlags): void {
  printPretty(result, target.root, flags);
  if (!stopped) return;
  printDiagnostics([stopped], target.root);
  // What the new lock changes for the model, as `add` and `compile --check` say it: a fixer hook
  // that rewrote the lock must not hide that a published pack's content changed under the same
  // version, or that a hand edit was undone (new-user trial 119). Computed only here, when the
  // lock changed (`result.review` is read on demand).
  const review = result.lockChanged ? result.review : undefined;
  if (review === undefined || review.changes.length === 0) return;
  // A rewrite that undid a hand edit says so, as `compile --check` does (new-user trial 120).
  const handEdited = result.handEdited ?? [];
  for (const edit of handEdited) process.stderr.write(`note: ${showControlCharacters(handEditedNote(edit))}\n`);
  // AL6014's "stage and commit again" then stages the lock as it was (new-user trial 125).
  if (handEdited.length > 0) process.stderr.write("note: staging the rewritten plugins.lock undoes that edit; if it was all the commit held, Git then has nothing to commit.\n");
  process.stderr.write(formatContractReview(review, "What the new plugins.lock changes for the model"));
}

/**
 * Several roots: JSON is {@link multiRootJson}; SARIF is one run and GitHub one annotation list
 * whose paths are relative to the working directory; pretty prints each root's report under a
 * `<root>:` heading.
 */
function printMultiple(outcomes: readonly RootOutcome[], format: CompileFormat, flags: CompileFlags): void {
  if (format === "json") {
    printJson(multiRootJson(outcomes.map((o) => ({ root: o.target.displayRoot, result: reported(o) }))));
    return;
  }
  if (format === "sarif" || format === "github") {
    // Each root's lock diagnostic keeps its check's properties (SARIF) through the rebasing.
    const properties = new Map<Diagnostic, Readonly<Record<string, unknown>> | undefined>();
    // A plugin package several agents select (a workspace's shared package) is reported by each
    // of them at the same place in the same words: annotated once (new-user trial 120).
    const seen = new Set<string>();
    const all = outcomes.flatMap((outcome) => {
      const result = reported(outcome);
      const propertiesOf = checkSarifProperties(result);
      return result.diagnostics.flatMap((d) => {
        const shown = d.file === "" ? d : { ...d, file: rebaseFile(d.file, (f) => toPosix(path.relative(process.cwd(), path.resolve(outcome.target.root, f)))) };
        const key = JSON.stringify([shown, propertiesOf(d) ?? null]);
        if (seen.has(key)) return [];
        seen.add(key);
        properties.set(shown, propertiesOf(d));
        return [shown];
      });
    });
    process.stdout.write(format === "sarif" ? escapeRawControls(formatSarif(all, toolVersion(), "", process.cwd(), (d) => properties.get(d))) : formatGithub(all, ""));
    return;
  }
  for (const outcome of outcomes) {
    process.stdout.write(`${outcome.target.displayRoot}:\n`);
    printPrettyOutcome(outcome, flags);
  }
  if (flags.check) {
    const fixAll = fixEveryStaleRoot(outcomes);
    if (fixAll !== undefined) process.stderr.write(`\n${fixAll}\n`);
  }
}

/**
 * The closing line of a pretty `compile --check` of several roots when two or more have a stale
 * lock the fix command brings up to date: one command for them all, as given on the command line
 * (a shared plugin package's change stales every agent that selects it; new-user trial 125 found
 * one `Fix:` line per root and no single command). Roots whose check refuses a routine refresh
 * (a lock that would drop every tool) or cannot be checked keep their own words only.
 */
export function fixEveryStaleRoot(outcomes: readonly { readonly target: { readonly displayRoot: string }; readonly result: Pick<ReportedCompile, "checkReport"> }[]): string | undefined {
  const stale = outcomes.filter(({ result }) => {
    const report = result.checkReport;
    // The roots whose own report ends with a `Fix:` line (`lockfile/format-check-report.ts`).
    return report?.fixCommand !== undefined && report.status !== "up-to-date" && !(report.dropsEveryTool && report.dropsEveryTool.length > 0);
  });
  if (stale.length < 2) return undefined;
  return `Fix all ${stale.length}: ${cliCommand("compile", ...stale.map(({ target }) => target.displayRoot))} (then commit each plugins.lock)`;
}

/**
 * The JSON document of a compile of several roots: `{ ok, results: [{ root, ok, diagnostics,
 * lockfile, lockChanged, artifact }] }` — `ok` is true when every root is, `root` is the root as
 * given (or as a glob matched it, relative to the working directory), and each result is the
 * single-root document of {@link compileJson}. One root keeps the single-root shape.
 */
export function multiRootJson(results: readonly { root: string; result: ReportedCompile }[]): Record<string, unknown> {
  return { ok: results.every((r) => r.result.ok), results: results.map(({ root, result }) => ({ root, ...compileJson(result) })) };
}



function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

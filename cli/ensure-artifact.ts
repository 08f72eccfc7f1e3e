/**
 * The compile-first step of the host commands (`call`, `approve`, `tools`, `search`): DESIGN §7
 * says they run the compiled artifact of the root, "compiling first when it is missing or
 * stale". Stale means the inputs moved on: `plugins.lock` is not what a compile of the agent
 * would write now, or the artifact was built for other lock bytes. An artifact whose lock is
 * current is never rebuilt here, so a bundle changed after packaging reaches runtime-min's
 * verification and is refused (AL8012) instead of being silently repackaged.
 *
 * The common case — nothing changed since the last compile — costs no analysis and loads no
 * compiler: the inputs record (`./inputs-record.ts`) shows the lock is current, and the
 * artifact's manifest shows it was packaged for that lock (issue 14 item 3).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { noteCompilingRun } from "../common/code-cache.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { cliCommand } from "../common/cli-command.js";
import { LOCKFILE_NAME } from "../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE } from "../contract/manifest.js";
import { inputsUnchanged, recordingHost } from "./inputs-record.js";
import { compileSettingsKey, type CompileSettings } from "../build/compile-settings.js";

/**
 * Loads the compiler (`build/compile.ts`) for a compile this step runs: the CLI's full entry
 * imports the module beside it; the host bundle, which leaves the compiler out, takes it from
 * the CLI bundle (scripts/build-cli-bundle.mjs; docs/performance.md, "The host bundle").
 */
export type CompilerLoader = () => Promise<Pick<typeof import("../build/compile.js"), "compileAgent">>;

/** How {@link ensureArtifact} compiles. */
export interface EnsureOptions {
  /**
   * `--locked`: never compile; when the lock or the artifact is not current, the check's errors
   * and AL8068 are returned instead (nothing is written but the analysis cache and the inputs record).
   */
  readonly locked?: boolean;
  /**
   * The project configuration's compile settings (`rules`, `maxWarnings`, `targets`,
   * `tokenBudget`: `build/compile-settings.ts`), applied to the check and the compile as `compile`
   * applies them, so this step never writes a lock `compile` would refuse (new-user trial 129).
   */
  readonly settings?: CompileSettings;
}

/** What {@link ensureArtifact} did. */
export interface EnsuredArtifact {
  /** Diagnostics of the compile (the check, or the full compile when one ran). */
  readonly diagnostics: readonly Diagnostic[];
  /** True when a full compile ran (the artifact was missing or stale). */
  readonly compiled: boolean;
  /** True when the inputs record showed the lock current, so no check ran (`./inputs-record.ts`). */
  readonly recorded: boolean;
  /** True when that compile wrote new `plugins.lock` bytes. */
  readonly lockChanged: boolean;
}

/**
 * Makes sure the root's artifact is current. First the inputs record: when every input a
 * compile read is unchanged, the record was made under the same compile settings, and the
 * artifact records the lock's integrity, nothing else runs (and the diagnostics are empty: that
 * compile had no errors). Otherwise a check of the lock
 * that writes nothing but the analysis cache (reused when unchanged) and the inputs record,
 * and of the artifact's recorded lock integrity; only when either is stale does it run a full
 * compile, which writes the lock and the artifact.
 * @param root the agent root (absolute or relative to the working directory).
 * @param loadCompiler loads the compiler, when the check or a compile runs.
 * @param artifactDir the artifact directory (absolute), when the project configuration's `outDir` sets one.
 * @param options `locked` and the compile `settings` ({@link EnsureOptions}).
 * @returns the diagnostics to report (any error stops the host command). Never throws for bad
 *   input; throws only for internal failures, like `compileAgent`.
 */
export async function ensureArtifact(root: string, loadCompiler: CompilerLoader, artifactDir?: string, options: EnsureOptions = {}): Promise<EnsuredArtifact> {
  const absolute = path.resolve(root);
  const settings = options.settings ?? {};
  const settingsKey = compileSettingsKey(settings);
  if (inputsUnchanged(absolute, settingsKey) && (await artifactMatchesLock(absolute, artifactDir))) return { diagnostics: [], compiled: false, recorded: true, lockChanged: false };
  // This run now loads the compiler, which its kind of run does not: the code cache then keeps
  // the bundle's entry for the kind only until a run of it does not compile.
  noteCompilingRun();
  const { compileAgent } = await loadCompiler();
  // The check saves the analysis cache: a full compile after it (stale artifact) and the next
  // command's check then reuse the analysis instead of parsing everything again.
  const checking = recordingHost(absolute, undefined, settingsKey);
  const check = await compileAgent({ root: absolute, host: checking.host, hostReadsDisk: true, check: true, package: false, saveCache: true, ...settings });
  if (check.ok) checking.save();
  if (check.ok && (await artifactMatchesLock(absolute, artifactDir))) return { diagnostics: check.diagnostics, compiled: false, recorded: false, lockChanged: false };
  if (options.locked === true) return { diagnostics: await lockedRefusal(check, absolute, artifactDir), compiled: false, recorded: false, lockChanged: false };
  const compiling = recordingHost(absolute, undefined, settingsKey);
  const compiled = await compileAgent({ root: absolute, host: compiling.host, hostReadsDisk: true, ...settings, ...(artifactDir ? { outDir: artifactDir } : {}) });
  // A compile that changed the lock read the old one: its record would not hold; the next check writes one.
  if (compiled.ok && !compiled.lockChanged) compiling.save();
  return { diagnostics: compiled.diagnostics, compiled: true, recorded: false, lockChanged: compiled.lockChanged };
}

/**
 * True when `<root>/.assemblyline/build/manifest.json` records the SRI of the current
 * `plugins.lock` bytes (the artifact was packaged for this lock). Unreadable files count as
 * a mismatch.
 */
export async function artifactMatchesLock(root: string, artifactDir = path.join(root, DEFAULT_ARTIFACT_DIR)): Promise<boolean> {
  try {
    const lockBytes = fs.readFileSync(path.join(root, LOCKFILE_NAME));
    const manifest = JSON.parse(fs.readFileSync(path.join(artifactDir, MANIFEST_FILE), "utf8")) as { lockIntegrity?: unknown };
    const { bundleIntegrity } = await import("../packaging/integrity.js");
    return manifest.lockIntegrity === bundleIntegrity(lockBytes);
  } catch {
    return false;
  }
}

/**
 * What `--locked` reports instead of compiling: AL8068 at `plugins.lock`, saying which input is
 * not current (the diagnostics catalogue is loaded only then), after the check's own errors (AL6002 with the lock's changes, AL6001 for a missing
 * lock, or the agent's errors).
 */
async function lockedRefusal(check: { readonly ok: boolean; readonly diagnostics: readonly Diagnostic[] }, root: string, artifactDir = path.join(root, DEFAULT_ARTIFACT_DIR)): Promise<Diagnostic[]> {
  // The catalogue loads only here: a host command on a current artifact never reads it.
  const [{ createDiagnostic }, { Diagnostics }] = await Promise.all([import("../diagnostics/diagnostic.js"), import("../diagnostics/catalog/index.js")]);
  const lockProblem = check.diagnostics.find((d) => d.severity === "error" && d.file === LOCKFILE_NAME);
  const why = !check.ok
    ? lockProblem !== undefined
      ? "plugins.lock is not what a compile of the agent would write"
      : "the agent has errors"
    : fs.existsSync(path.join(artifactDir, MANIFEST_FILE))
      ? "the artifact was packaged for other plugins.lock bytes"
      : "there is no artifact";
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  return [...errors, createDiagnostic(Diagnostics.LockedNotCurrent, { file: LOCKFILE_NAME, line: 1, column: 1 }, [why, compileCommand(path.relative(process.cwd(), root))])];
}

/** `compile` of `root` as the user types it (`lockfile/fix-command.ts`'s words, which the host bundle leaves out). */
function compileCommand(root: string): string {
  return root === "" || root === "." ? cliCommand("compile") : cliCommand("compile", root);
}

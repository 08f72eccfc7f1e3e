/**
 * `assembly-line compile` as a function (DESIGN §5–§7; issues 2–4): the compile driver. Its
 * steps, each in a module of this folder: check the root (`check-root.ts`) → analyse (the
 * front end, with the previous lock's pins) → package (esbuild, `packaging/`) → lock
 * (`lockfile/`) → emit the artifact (`emit-artifact.ts`) and the lock. `--check` writes nothing
 * and compares the lock with what would be written.
 *
 * Nothing the user had is lost: every check runs before the first write; the artifact is
 * replaced atomically (`writeArtifact`), then the lock is written atomically and only when its
 * bytes change (`writeLockfileIfChanged`). A failed compile leaves both untouched.
 */
import { checkWriteTarget } from "../common/confined-write.js";
import { shellQuote } from "../common/shell-quote.js";
import { compileTemporaries, removeStaleTemporaries } from "../common/stale-temporaries.js";
import { writeRefusalDiagnostic } from "../diagnostics/write-refusal.js";
import * as fs from "node:fs";
import * as path from "node:path";
import { analyzeAgent, type AgentAnalysis } from "../compiler/analyze-agent.js";
import { analysisWorkerWanted, changedPluginsPoolWanted, discardPrestartedAnalysisWorker, startAnalysisPool } from "../compiler/analysis-pool.js";
import { PluginReuse } from "../compiler/plugin-reuse.js";
import { AnalysisCache } from "../compiler/static-analysis/analysis-cache.js";
import { createStaticAnalyzer } from "../compiler/static-analysis/static-analyzer.js";
import { ONE_SHOT_RETENTION } from "../compiler/static-analysis/source-store.js";
import { createDiagnostic, hasErrors, relativizeDiagnostic, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { fileStart, type SourceLocation } from "../common/positions.js";
import { createNodeHost, createRecordingHost, type CompilerHost } from "../common/host.js";
import { ignoreStateDir } from "../common/state-dir.js";
import { buildLockfile, type BundleIntegrityLookup } from "../lockfile/build-lockfile.js";
import type { LockfileCheckReport } from "../lockfile/check-lockfile.js";
import { fixCommandFor } from "../lockfile/fix-command.js";
import { readLockfile, type ReadLockfileResult } from "../lockfile/read-lockfile.js";
import { serializeLockfile } from "../lockfile/serialize-lockfile.js";
import { LOCKFILE_NAME, type Lockfile } from "../contract/lockfile-types.js";
import { writeLockfileIfChanged } from "../lockfile/write-lockfile.js";
import type { BuildFunction, PackagingResult } from "../packaging/bundle-tools.js";
import type { BundleCacheOptions } from "../packaging/bundle-cache.js";
import type { BundleBytes } from "../packaging/bundle-bytes.js";
import { toolBundleKey } from "../packaging/plan-bundles.js";
import { DEFAULT_ARTIFACT_DIR } from "../contract/manifest.js";
import { checkRoot, emptyAnalysis } from "./check-root.js";
import { startClock, type CompileTimings } from "./compile-clock.js";
import { emitArtifact, packagingTools, type KnownArtifactFiles } from "./emit-artifact.js";
import { stageArtifactFolders, type EarlyStaging } from "../packaging/artifact-staging.js";
export type { KnownArtifactFiles } from "./emit-artifact.js";
import { carriedOverBundles, keepLockReading, keptLockReading, lockDigest, pinsOf, pinsOfLock, rereadsAlike } from "./lock-inputs.js";
import type { PackagePins } from "../compiler/agent/resolve-capabilities.js";
import { snapshotHost } from "./snapshot-host.js";
import type { RuleSetting } from "./project-config/types.js";
import { applySeverityRules, checkWarningLimit, type WarningLimit } from "./severity-rules.js";
import { CREDENTIAL_CODES, maskDiagnostic } from "../compiler/config/credentials.js";
import { checkModelFacingRules } from "./model-facing-checks.js";
import type { TokenBudget } from "../compiler/providers/token-budget.js";
import { reviewContract, type ContractReview } from "../lockfile/review-contract.js";
import { diffLocks } from "../lockfile/diff-locks.js";
import { staleLockPlaces } from "./stale-lock-places.js";
import { handEditedCapabilities, type HandEditedCapability } from "../lockfile/hand-edits.js";

export type { CompileTimings };

// Packaging (esbuild) and `--check` (diff) are loaded only by the compiles that use them, so
// `compile --no-package` does not pay their start-up.

/** Options of {@link compileAgent} (the CLI flags of DESIGN §7). */
export interface CompileOptions {
  /** Absolute agent root. */
  readonly root: string;
  readonly host?: CompilerHost;
  /**
   * True when `host` answers every probe as the disk does and only observes it (the inputs
   * record's recording host over the Node host, `cli/inputs-record.ts`): a cold analysis may then
   * still run on the analysis worker (`compiler/analysis-pool.ts`), which reads the disk itself;
   * the main thread checks each of its records by content hash against this host's reads, so
   * `host` still sees (and records) every file the analysis depends on. Without it, a given
   * `host` (an editor's buffers, a test's virtual files) keeps the analysis on this thread.
   */
  readonly hostReadsDisk?: boolean;
  /**
   * The artifact files the last compile left (`cli/compile-record.ts`): absolute path → the SRI
   * of the bytes it wrote and their stat signature (`statSignature`), taken when older than a
   * stamp written after them. A bundle whose new integrity is that SRI and whose file still has
   * that signature is linked into the new artifact without reading the old file to compare.
   */
  readonly knownArtifactFiles?: KnownArtifactFiles;
  /**
   * `--check`: write nothing and bundle nothing; fail when the lock is missing, stale or
   * hand-edited. Bundle integrities are carried over from the lock for plugins whose content is
   * unchanged (a changed plugin changes its capability's integrity, which the check reports).
   */
  readonly check?: boolean;
  /**
   * With {@link check}: an out-of-date lock's changed tool fields are also reported where the
   * agent writes them, as AL6218 notices (`./stale-lock-places.ts`), for `--format github|sarif`,
   * whose annotations must land on a line of the pull request's diff.
   */
  readonly placeStaleLock?: boolean;
  /** `false` for `--no-package`: no bundles, no artifact. */
  readonly package?: boolean;
  /** `--out`: absolute artifact directory (default `<root>/.assemblyline/build`). */
  readonly outDir?: string;
  /** `"surfaceId\0key"` pins that may move to the installed version (`assembly-line add`). */
  readonly acceptInstalled?: ReadonlySet<string>;
  /** The root as the user should type it in fix-it commands (default: `root` relative to the working directory). */
  readonly displayRoot?: string;
  /** The project's install command for hints (`npm install`, `pnpm install`, `yarn install`). */
  readonly installCommand?: string;
  /**
   * `false` for `--no-cache`: neither read nor write the persistent analysis cache, bundle
   * cache and token-count cache (`<root>/.assemblyline/cache/`, see
   * `static-analysis/analysis-cache.ts`, `packaging/bundle-cache.ts` and `./token-count-cache.ts`). Default `true`; `--check` reads them but never writes them.
   * The results are the same either way.
   */
  readonly cache?: boolean;
  /**
   * Overrides the toolchain identity the bundle cache is keyed by (default: this package's
   * version and compiled packaging files, esbuild's version). Tests use it to simulate an upgrade.
   */
  readonly bundleCacheToolchain?: string;
  /**
   * Whether to save the analysis cache. Default: not under `check` (the user's `compile
   * --check` writes nothing); the host commands' compile-first check passes `true`, so the
   * full compile that may follow, and later checks, start warm.
   */
  readonly saveCache?: boolean;
  /**
   * Severity per code from the project configuration (`rules`; `./severity-rules.ts`). Applied
   * before anything is written, so a code raised to `error` stops the compile; errors are never lowered.
   */
  readonly rules?: Readonly<Record<string, RuleSetting>>;
  /** `--max-warnings` / `maxWarnings`: more warnings than this fail the compile before anything is written (AL9115). */
  readonly maxWarnings?: WarningLimit;
  /** The esbuild build function (default `esbuild.build`); `compile --watch` passes an incremental one. */
  readonly bundler?: BuildFunction;
  /**
   * Called with the absolute path of every file the compile reads through the host or esbuild
   * reads for a bundle (`assembly-line inputs`). Packaging runs under `check` too when set.
   */
  readonly recordInput?: (filePath: string) => void;
  /**
   * `--target ID` (repeatable) and the config's `targets`: provider profile ids every tool is
   * checked against (issue 11; `compiler/providers/`, docs/providers.md). Default: none.
   */
  readonly targets?: readonly string[];
  /**
   * `--token-budget N` and the config's `tokenBudget`: the most tokens a surface's initial
   * snapshot may cost, for every surface or by surface path (`"."`, `"subagents/<name>"`).
   */
  readonly tokenBudget?: TokenBudget;
  /**
   * Where the project configuration wrote `targets` and `tokenBudget` (`ProjectConfig.locations`:
   * `/targets/<i>`, `/tokenBudget/<surface>`), when they came from it: an unknown target
   * (AL4712) and a budget key that names no surface (AL4721) are reported there, not at agent.md.
   */
  readonly settingLocations?: Readonly<Record<string, SourceLocation>>;
  /**
   * Called with the contract review (committed lock → new lock) right before a changed lock is
   * written, so `add` can print it first (issue 11 item 3). Not called when the lock is unchanged.
   */
  readonly onLockChange?: (review: ContractReview) => void;
  /**
   * With `check`: the lock the contract review compares the new one with, instead of the lock on
   * disk (`review` passes the lock of Git's `HEAD`, the committed one, which a `compile` since the
   * last commit has not rewritten); `null`: there is no committed lock (every tool is added).
   * The check report still compares with the lock on disk.
   */
  readonly reviewBase?: Lockfile | null;
}

/** What a compile did (the CLI prints it; `--format json` adds nothing else). */
export interface CompileResult {
  /** No error diagnostics, and for `--check` an up-to-date lock. */
  readonly ok: boolean;
  /** Sorted; files relative to the root with `/` separators. */
  readonly diagnostics: readonly Diagnostic[];
  /** The lock's path relative to the root (`plugins.lock`). */
  readonly lockfile: string;
  /** True when this compile wrote new lock bytes. */
  readonly lockChanged: boolean;
  /** The artifact directory relative to the root, when it exists and matches this compile; else `null`. */
  readonly artifact: string | null;
  readonly artifactChanged: boolean;
  /** True when the lock held Git conflict markers (or was unreadable JSON) and was recomputed. */
  readonly lockRecomputed: boolean;
  /** `--check` only: what differs, for the pretty report. */
  readonly checkReport?: LockfileCheckReport;
  /**
   * The model-visible changes from the committed lock to the new one (`--check`, and a compile
   * that wrote a new lock); absent when the inputs have errors or the lock is unchanged.
   */
  readonly review?: ContractReview;
  /**
   * With {@link review}: the capabilities whose locked tool fields the previous lock held
   * otherwise than their unchanged files say (`lockfile/hand-edits.ts`): a hand edit of
   * `plugins.lock` this compile undid. Computed when first read (`compile --fail-on-change`
   * says it: new-user trial 120).
   */
  readonly handEdited?: readonly HandEditedCapability[];
  /** The front end's analysis (for `tools`, `validate`, the runtime). */
  readonly analysis: AgentAnalysis;
  /** Wall-clock milliseconds per phase (for `npm run bench`; never printed or locked). */
  readonly timings: CompileTimings;
  /** Artifact-relative bundle path → SRI of its bytes, when this compile packaged (for `--watch`'s "what changed"). */
  readonly bundles?: ReadonlyMap<string, string>;
  /**
   * Artifact-relative POSIX path → bytes of every file the artifact holds after this compile
   * (`manifest.json`, bundles, copied skills), when it succeeded with packaging (for the compile
   * record, `cli/compile-record.ts`, which checks later that the artifact on disk is still this one).
   * A reused bundle's bytes are a `DeferredBundle` (`packaging/bundle-bytes.ts`): read only where
   * its file was written or compared.
   */
  readonly artifactFiles?: ReadonlyMap<string, BundleBytes>;
  /**
   * Of {@link artifactFiles}, the stat signatures of those this compile found unchanged by the
   * signature `knownArtifactFiles` gave and left untouched (`EmittedArtifact.signatures`,
   * `./emit-artifact.ts`): the compile record takes them instead of asking `lstat` again.
   */
  readonly artifactSignatures?: ReadonlyMap<string, string>;
  /**
   * When this compile wrote new lock bytes: that text and its bytes, and whether a compile
   * reading it instead of the previous lock would decide alike (`rereadsAlike` in `./lock-inputs.ts`), for the
   * compile record (`cli/compile-record.ts`).
   */
  readonly lockWritten?: { readonly text: string; readonly bytes: Uint8Array; readonly rereadAlike: boolean };
}

/** Compiles the agent at `options.root`. Never throws for bad input (only for internal failures). */
export async function compileAgent(options: CompileOptions): Promise<CompileResult> {
  const result = await compileWithoutRules(options);
  if (!options.rules || Object.keys(options.rules).length === 0) return result;
  // Diagnostics reported after the writes (a recomputed lock) follow the rules too.
  const diagnostics = applySeverityRules(result.diagnostics, options.rules);
  return { ...result, diagnostics, ok: result.ok && !hasErrors(diagnostics) };
}

async function compileWithoutRules(options: CompileOptions): Promise<CompileResult> {
  // The caches' saves (synchronous: serializing and writing analysis.bin and bundles.bin) wait
  // for the artifact's links, which run on the thread pool meanwhile (issue 14 item 4); every
  // other way out of the compile runs them where it leaves.
  const saves = new PendingSaves();
  const staging: StagingSlot = {};
  try {
    return await compileSteps(options, saves, staging);
  } finally {
    saves.run();
    // A staging folder the artifact's writer did not take (nothing written, or a failure) is removed.
    await staging.early?.discard();
  }
}

/** The artifact's staging folder a compile started making ahead, if any ({@link stageAhead}). */
interface StagingSlot {
  early?: EarlyStaging;
}

/**
 * Starts making the artifact's staging folder (`packaging/artifact-staging.ts`) while the
 * compile analyses, from the folders of the artifact the last compile left (`knownArtifactFiles`,
 * which a compile that will replace an artifact has): `undefined` when it will not write one
 * (`--check`, `--no-package`) or knows of none. The writer takes it, or the compile discards it.
 */
function stageAhead(options: CompileOptions, outDir: string): EarlyStaging | undefined {
  const known = options.knownArtifactFiles;
  if (options.check === true || options.package === false || known === undefined || known.size === 0) return undefined;
  const files: string[] = [];
  for (const file of known.keys()) {
    const relative = path.relative(outDir, file);
    if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) files.push(toPosix(relative));
  }
  return stageArtifactFolders(options.root, outDir, files);
}

/**
 * Synchronous saves a compile defers to overlap them with the artifact's file-system calls:
 * each runs once, in the order added, at the first {@link run}.
 */
class PendingSaves {
  readonly #saves: (() => void)[] = [];

  /** Adds `save`, run at the next {@link run}. */
  add(save: () => void): void {
    this.#saves.push(save);
  }

  /** Runs the saves added since the last run (each once, in order). */
  run(): void {
    for (const save of this.#saves.splice(0)) save();
  }
}

async function compileSteps(options: CompileOptions, saves: PendingSaves, staging: StagingSlot): Promise<CompileResult> {
  // A host of its own reads the plugin folders ahead (`common/read-ahead.ts`): a compile's reads follow.
  const disk = options.host ?? createNodeHost({ readAhead: true });
  // Real paths are derived per folder only on the operating system's own file system (not a
  // caller's host, unless it answers as the disk does: `hostReadsDisk`). A recording host then
  // records the `kind` and folder `realpath` probes each answer was derived from.
  const readsDisk = options.host === undefined || options.hostReadsDisk === true;
  const host = snapshotHost(options.recordInput ? createRecordingHost(disk, options.recordInput) : disk, {
    deriveRealpaths: readsDisk,
    // A plugin's probes (entry, definitions, manifest, skills) read from the folder listings the
    // plugin's hash needs anyway. A host that records probes (the compile record's) then records
    // the listing a kind came from, whose answer holds each name's kind; `recordInput` is told
    // only of files read, which this does not change.
    ...(readsDisk ? { kindsFromListingsWithin: options.root } : {}),
  });
  const root = options.root;
  const clock = startClock();
  // A root that is not a folder is reported before anything is read or written (no cache, no
  // lock, no artifact is created for a mistyped path).
  const rootProblem = checkRoot(host, root, options.displayRoot ?? root);
  if (rootProblem) {
    return {
      ok: false,
      diagnostics: finish([rootProblem], root),
      lockfile: LOCKFILE_NAME,
      lockChanged: false,
      artifact: null,
      artifactChanged: false,
      lockRecomputed: false,
      analysis: emptyAnalysis(root, rootProblem),
      timings: clock.timings(),
    };
  }

  // What an earlier, killed compile left behind (only our own names, only when old).
  if (!options.check) removeStaleTemporaries(compileTemporaries(root, options.outDir ?? path.join(root, DEFAULT_ARTIFACT_DIR)));
  // The new artifact's folders are made on the thread pool while this thread works (issue 14 item 4).
  staging.early = stageAhead(options, options.outDir ?? path.join(root, DEFAULT_ARTIFACT_DIR));
  const analysed = analyse(host, options, saves);
  const { analysis, previous, diagnostics } = analysed;
  clock.lap("analyze");
  diagnostics.push(
    ...(await checkModelFacingRules(analysis, {
      ...options,
      readCache: options.cache !== false,
      // Saved as the analysis cache is: not by `--check` (unless asked), only in an agent root.
      saveCache: options.cache !== false && (options.saveCache ?? !options.check) && host.kind(path.join(root, "agent.md")) === "file",
    })),
  );
  clock.lap("providers");
  // `--check` compares the lock only, so it never bundles: a tool's bundle integrity comes from
  // the lock when its plugin's content integrity is unchanged (as under `--no-package`). Recording
  // the inputs (`assembly-line inputs`) still bundles, since bundles read the files tools import.
  const packaging = options.package !== false && (options.check !== true || options.recordInput !== undefined);
  // What the front end proved or listed already, given to the bundle cache (only from the disk).
  const known = readsDisk ? { knownContent: analysed.verifiedContent, knownListing: host.knownListing } : {};
  const packaged = packaging && !hasErrors(diagnostics) ? await packageTools(analysis, root, diagnostics, options, saves, known) : undefined;
  clock.lap("package");
  // The project's rules and warning limit, before anything is written (a raised code stops the compile).
  if (options.rules) diagnostics.splice(0, diagnostics.length, ...applySeverityRules(diagnostics, options.rules));
  const overLimit = checkWarningLimit(diagnostics, options.maxWarnings);
  if (overLimit) diagnostics.push(overLimit);
  const bundleLookup: BundleIntegrityLookup = packaged
    ? (surfaceId, capability, tool) => packaged.toolBundles.get(toolBundleKey(surfaceId, capability, tool))?.integrity
    : carriedOverBundles(previous, analysis);
  const lock = buildLockfile(analysis, bundleLookup);
  const lockText = serializeLockfile(lock);
  clock.lap("lock");
  const bundles = packaged ? new Map([...packaged.toolBundles.values()].map((tool) => [tool.bundle, tool.integrity])) : undefined;
  const base = { lockfile: LOCKFILE_NAME, analysis, lockRecomputed: false, artifactChanged: false, ...(bundles ? { bundles } : {}), get timings() { return clock.timings(); } } as const;

  // The new lock's UTF-8 bytes, encoded once (for the comparison below, the manifest's lock
  // integrity, the write and the compile record).
  let encodedMemo: Buffer | undefined;
  const encoded = (): Buffer => (encodedMemo ??= Buffer.from(lockText, "utf8"));
  // The previous lock's bytes are exactly the UTF-8 encoding of its text (not after a byte order
  // mark, which the text drops and `--check` reports as drift: reusing those bytes kept the mark
  // for good; helper-72's review). Then its text is the new one's exactly when its bytes are the
  // new bytes, and they are compared without decoding the previous text (2.7 MB of the benchmark
  // agent's lock; `contract/read-lock.ts` decodes it only when read). Compared once.
  const previousExact = previous.kind === "ok" && !previous.invalidUtf8 && !startsWithByteOrderMark(previous.bytes);
  const lockUnchanged = previous.kind === "ok" && (previousExact ? Buffer.from(previous.bytes.buffer, previous.bytes.byteOffset, previous.bytes.byteLength).equals(encoded()) : previous.text === lockText);
  // The previous lock's bytes when they are the new ones, so an unchanged lock is one object.
  const lockBytes = (): Uint8Array => (lockUnchanged && previousExact && previous.kind === "ok" ? previous.bytes : encoded());
  // The review compares every tool of both locks: computed only when something asks for it
  // (`--check`, `add`'s onLockChange, a reader of `result.review`), not on every compile.
  const reviewBase = options.check ? options.reviewBase : undefined;
  // Reviewed against the committed lock, or against none when there is none: never against a
  // lock that could not be read (a newer lockfileVersion, conflict markers, broken JSON), where
  // "every tool added" would be a false review (helper-73 #15).
  const reviewable = reviewBase !== undefined || previous.kind === "ok" || previous.kind === "missing";
  const reviewed = reviewable && !hasErrors(diagnostics) && (!lockUnchanged || reviewBase !== undefined);
  let reviewMemo: ContractReview | undefined;
  // (The previous lock is read only here: a lock known by its digest is parsed only when asked for, build/lock-inputs.ts.)
  const reviewedFrom = (): Lockfile | undefined => (reviewBase === undefined ? (previous.kind === "ok" ? previous.lock : undefined) : (reviewBase ?? undefined));
  const reviewOf = (): ContractReview => (reviewMemo ??= reviewContract(reviewedFrom(), lock));
  // What the next compile reads of the lock on disk after this one: the lock this compile writes,
  // or the previous one when it writes none (its pins, by the digest of its bytes).
  if (analysed.keepLock && !options.check) {
    const writes = !lockUnchanged && !hasErrors(diagnostics) && !holdsCredential(diagnostics) && !analysed.refused;
    if (writes) analysed.keepLock(lockDigest(lockBytes()), pinsOfLock(lock));
    else if (previous.kind === "ok" && analysed.previousDigest !== undefined) analysed.keepLock(analysed.previousDigest, analysed.previousPins);
  }
  const review = reviewed && options.check ? reviewOf() : undefined;
  if (options.check) {
    saves.run();
    const checked = await checkLock(host, options, analysed.fixCommand, lockText, diagnostics, analysis);
    clock.lap("lock");
    const checkReport = checked.checkReport && review ? { ...checked.checkReport, review } : checked.checkReport;
    return { ...base, ...checked, ...(review ? { review } : {}), ...(checkReport ? { checkReport } : {}) };
  }
  const failed = { ...base, ok: false, lockChanged: false, artifact: null } as const;
  // The diagnostics as reported, after the caches' saves (a refused save is a warning).
  const end = (): Diagnostic[] => {
    saves.run();
    return finish(diagnostics, root);
  };
  // A credential finding stops the writes whatever severity it is reported with: the lock is
  // committed by users and must never carry the value (issue 13 item 5).
  if (hasErrors(diagnostics) || holdsCredential(diagnostics) || analysed.refused) return { ...failed, diagnostics: end() };

  // The lock is checked before the artifact is written, so a refused lock leaves both untouched.
  const lockRefusal = checkWriteTarget(root, path.join(root, LOCKFILE_NAME));
  if (lockRefusal) {
    diagnostics.push(writeRefusalDiagnostic("plugins.lock", lockRefusal, root));
    return { ...failed, diagnostics: end() };
  }
  let artifactChanged = false;
  let removal: Promise<void> = Promise.resolve();
  let artifactFiles: ReadonlyMap<string, BundleBytes> | undefined;
  let artifactSignatures: ReadonlyMap<string, string> | undefined;
  if (packaged) {
    const outDir = options.outDir ?? path.join(root, DEFAULT_ARTIFACT_DIR);
    // The caches are saved while the unchanged bundles are linked, and the lock written while the
    // old artifact is removed (both on the thread pool; in the default folder it is kept as the
    // next compile's spare instead, packaging/artifact-spare.ts); the removal is awaited before
    // returning, so the caller sees one artifact folder whose files' change times are settled.
    const written = await emitArtifact(analysis, lock, lockBytes(), packaged, outDir, diagnostics, root, options.recordInput, options.knownArtifactFiles, {
      meanwhile: () => saves.run(),
      deferRemoval: true,
      // Only in the toolchain's own state folder does the replaced artifact stay as a spare, and
      // only there is a folder without a manifest replaced (a damaged artifact, not a user's folder).
      spare: path.resolve(outDir) === path.resolve(root, DEFAULT_ARTIFACT_DIR),
      owned: path.resolve(outDir) === path.resolve(root, DEFAULT_ARTIFACT_DIR),
      ...(staging.early ? { staged: staging.early } : {}),
    });
    clock.lap("artifact");
    if (written === undefined) return { ...failed, diagnostics: end() };
    removal = written.removal;
    artifactChanged = written.changed;
    artifactFiles = written.files;
    artifactSignatures = written.signatures;
    ignoreStateDir(root);
  }
  saves.run();
  if (reviewed && options.onLockChange) options.onLockChange(reviewOf());
  const lockWrite = writeLock(root, previous, lockText, diagnostics, analysed.damaged, lockBytes(), shownRoot(options));
  await removal;
  clock.lap("lock");
  if (!lockWrite) return { ...failed, diagnostics: end() };
  const result: CompileResult = {
    ...base,
    ok: true,
    diagnostics: end(),
    lockChanged: lockWrite.changed,
    lockRecomputed: previous.kind === "conflict" || previous.kind === "invalid",
    artifact: packaged ? toPosix(path.relative(root, options.outDir ?? path.join(root, DEFAULT_ARTIFACT_DIR))) || "." : null,
    artifactChanged,
    ...(artifactFiles ? { artifactFiles } : {}),
    ...(artifactSignatures ? { artifactSignatures } : {}),
    ...(lockWrite.changed ? { lockWritten: { text: lockText, bytes: lockBytes(), rereadAlike: rereadsAlike(previous, lock, analysed.previousPins) } } : {}),
  };
  // `review`, computed when first read (an enumerable property, as before).
  if (reviewed && lockWrite.changed) {
    Object.defineProperty(result, "review", { get: reviewOf, enumerable: true, configurable: true });
    let handEdited: readonly HandEditedCapability[] | undefined;
    const handEditedOf = (): readonly HandEditedCapability[] => {
      const from = reviewedFrom();
      return (handEdited ??= from === undefined ? [] : handEditedCapabilities(diffLocks(from, lock), from, lock));
    };
    Object.defineProperty(result, "handEdited", { get: handEditedOf, enumerable: true, configurable: true });
  }
  return result;
}

/** What the analyse step hands on. */
interface Analysed {
  readonly analysis: AgentAnalysis;
  readonly previous: ReadLockfileResult;
  /** The previous lock's published-package pins (kept with its bytes' digest, or read from it). */
  readonly previousPins: PackagePins;
  /** SHA-256 of the previous lock's bytes, when it was read and the caches are used. */
  readonly previousDigest?: string;
  /** Keeps what the next compile needs of the lock bytes with that digest (when the analysis cache is saved). */
  readonly keepLock?: (digest: string, pins: PackagePins) => void;
  /** Every diagnostic so far (the list later steps add to). */
  readonly diagnostics: Diagnostic[];
  /** The lock cannot be understood (newer lockfileVersion, unreadable): nothing is written. */
  readonly refused: boolean;
  /** A lock that is not valid JSON, said as a warning now (AL6012 replaces it once recomputed). */
  readonly damaged: Diagnostic | undefined;
  /** The command that brings the lock up to date, as printed in hints. */
  readonly fixCommand: string;
  /** The reused plugins' files whose bytes are proven unchanged, with their SHA-256 (`PluginReuse.verifiedContent`). */
  readonly verifiedContent: ReadonlyMap<string, string> | undefined;
}

/**
 * The analyse step: reads the previous lock (its pins steer capability resolution), runs the
 * front end (with the persistent analysis cache unless `--no-cache`) and saves the cache.
 */
function analyse(host: CompilerHost, options: CompileOptions, saves: PendingSaves): Analysed {
  const root = options.root;
  const diagnostics: Diagnostic[] = [];
  const fixCommand = fixCommandFor(shownRoot(options));
  const cache = options.cache === false ? undefined : AnalysisCache.load(root);
  // Untouched plugins' results are reused wholesale (compiler/plugin-reuse.ts) only when the
  // host reads the disk (a stored `stat` is compared with the disk's) and a host that records
  // probes can take the reused plugins' probes (`replay`; `recordInput` is told their files too).
  const diskHost = !options.host || (options.hostReadsDisk === true && typeof options.host.replay === "function");
  // An analysis of the disk runs on two threads when a core is free (analysis-pool.ts): a cold
  // one (no stored analyses) shares every folder with the worker; an incremental one (stored
  // results to reuse) gives the worker the folders that changed. Started before the lock is
  // read, so that the worker loads TypeScript meanwhile: every millisecond it is ready earlier
  // is analysis the main thread does not do.
  const stored = cache?.size.analyses ?? 0;
  const readsDisk = !options.host || options.hostReadsDisk === true;
  const pool =
    readsDisk && stored === 0 && analysisWorkerWanted()
      ? startAnalysisPool(cache ? { fallback: cache } : {})
      : cache && diskHost && stored > 0 && changedPluginsPoolWanted(cache.size.plugins)
        ? startAnalysisPool({ fallback: cache, changedPlugins: true })
        : undefined;
  // A worker the CLI started ahead (prestartAnalysisWorker) that this compile does not use.
  discardPrestartedAnalysisWorker();
  // The lock the last compile wrote (or read in full) is known by its bytes' SHA-256, with its
  // pins: bytes that are exactly those are neither checked nor parsed (build/lock-inputs.ts).
  let previousDigest: string | undefined;
  let keptPins: PackagePins | undefined;
  const knownReadable = cache
    ? (bytes: Uint8Array): boolean => {
        previousDigest = lockDigest(bytes);
        keptPins = keptLockReading(cache, previousDigest);
        return keptPins !== undefined;
      }
    : undefined;
  const previous = ((): ReadLockfileResult => {
    try {
      return readLockfile(path.join(root, LOCKFILE_NAME), { host, fixCommand, ...(knownReadable ? { knownReadable } : {}) });
    } catch (error) {
      pool?.close();
      throw error;
    }
  })();
  // Under --check, checkLockfile reports everything about the lock. A compile refuses a lock it
  // cannot understand (newer lockfileVersion, unreadable), and recomputes one that is conflicted
  // (saying so once written) or not valid JSON (said now, as a warning).
  const refused = previous.kind === "unsupported-version" || previous.kind === "unreadable";
  if (!options.check && refused) diagnostics.push(previous.diagnostic);
  const damaged = !options.check && previous.kind === "invalid" ? { ...previous.diagnostic, severity: "warning" as const } : undefined;
  if (damaged) diagnostics.push(damaged);
  const previousPins = keptPins ?? pinsOf(previous);
  const persistent = pool ?? cache;
  const reuse = cache && diskHost ? new PluginReuse(host, cache) : undefined;
  const frontHost = reuse?.host ?? host;
  let analysis: AgentAnalysis;
  try {
    analysis = analyzeAgent(frontHost, root, {
      pins: previousPins,
      ...(persistent ? { analyzer: createStaticAnalyzer(frontHost, { persistent, retainModules: ONE_SHOT_RETENTION }) } : {}),
      ...(reuse ? { reuse } : {}),
      ...(cache ? { verdictStore: cache, frontMatters: cache } : {}),
      ...(pool ? { pool } : {}),
      ...(options.acceptInstalled ? { acceptInstalled: options.acceptInstalled } : {}),
      ...(options.installCommand ? { installCommand: options.installCommand } : {}),
    });
  } finally {
    pool?.close();
  }
  diagnostics.push(...analysis.diagnostics);
  // A folder without agent.md is not an agent root: nothing is created in it, not even the cache
  // (e.g. `search <path>`, which reads the path as the query and the working directory as the root).
  const savesCache = cache !== undefined && (options.saveCache ?? !options.check) && host.kind(path.join(root, "agent.md")) === "file";
  const keepLock = savesCache ? (digest: string, pins: PackagePins) => keepLockReading(cache, digest, pins) : undefined;
  if (cache && savesCache) {
    saves.add(() => {
      // Only a warning: the cache saves time, the compile does not need it.
      if (!cache.save() && cache.refusal) diagnostics.push(writeRefusalDiagnostic("The analysis cache", cache.refusal, root, "warning"));
      ignoreStateDir(root);
    });
  }
  return {
    analysis,
    previous,
    previousPins,
    diagnostics,
    refused,
    damaged,
    fixCommand,
    verifiedContent: reuse?.verifiedContent,
    ...(previousDigest !== undefined ? { previousDigest } : {}),
    ...(keepLock ? { keepLock } : {}),
  };
}

/** The package step: esbuild builds of every authored tool, in batches (loaded only when packaging). */
async function packageTools(
  analysis: AgentAnalysis,
  root: string,
  diagnostics: Diagnostic[],
  options: CompileOptions,
  saves: PendingSaves,
  known: Pick<BundleCacheOptions, "knownContent" | "knownListing">,
): Promise<PackagingResult> {
  const tools = packagingTools(analysis);
  // No authored tool (an agent of core tools alone): nothing to bundle, so neither esbuild nor
  // the bundle cache is loaded (helper-111; docs/performance.md).
  if (tools.length === 0) return { bundles: new Map(), toolBundles: new Map(), diagnostics: [] };
  const [{ bundleTools }, { BundleCache }] = await Promise.all([import("../packaging/bundle-tools.js"), import("../packaging/bundle-cache.js")]);
  // Saved as the analysis cache is: not by `--check` (unless asked), only in an agent root.
  const save = (options.saveCache ?? !options.check) && fs.existsSync(path.join(root, "agent.md"));
  const cache =
    options.cache === false
      ? undefined
      : BundleCache.load(root, {
          readOnly: !save,
          ...(options.bundleCacheToolchain !== undefined ? { toolchain: options.bundleCacheToolchain } : {}),
          // The bytes the front end proved unchanged (reused plugins' files) are not `lstat`ed
          // again, and the folders it listed not listed again.
          ...(known.knownContent ? { knownContent: known.knownContent } : {}),
          ...(known.knownListing ? { knownListing: known.knownListing } : {}),
        });
  const packaged = await bundleTools({ root, tools }, {
    ...(options.bundler ? { build: options.bundler } : {}),
    ...(options.recordInput ? { recordInput: options.recordInput } : {}),
    ...(cache ? { cache } : {}),
  });
  diagnostics.push(...packaged.diagnostics);
  saves.add(() => {
    // Only a warning: the cache saves time, the compile does not need it.
    if (cache && save && !cache.save() && cache.refusal) {
      const refusal = writeRefusalDiagnostic("The bundle cache", cache.refusal, root, "warning");
      // Both caches share a folder: one warning about a refused folder is enough.
      const said = diagnostics.some((d) => d.code === refusal.code && d.file === refusal.file && d.line === refusal.line && d.column === refusal.column);
      if (!said) diagnostics.push(refusal);
    }
  });
  return packaged;
}

/** `--check`: compares the lock on disk with `lockText`; writes nothing. */
async function checkLock(
  host: CompilerHost,
  options: CompileOptions,
  fixCommand: string,
  lockText: string,
  diagnostics: Diagnostic[],
  analysis: AgentAnalysis,
): Promise<{ ok: boolean; diagnostics: Diagnostic[]; lockChanged: false; artifact: null; checkReport?: LockfileCheckReport }> {
  const { checkLockfile, notCheckedReport } = await import("../lockfile/check-lockfile.js");
  const lockPath = path.join(options.root, LOCKFILE_NAME);
  // Shown as the user would type it: `agent/plugins.lock`, or `plugins.lock` in the root itself.
  const shown = shownRoot(options);
  const displayPath = shown === "." ? LOCKFILE_NAME : `${toPosix(shown).replace(/\/+$/, "")}/${LOCKFILE_NAME}`;
  // With errors in the inputs, compile would write nothing: a diff against the partial lock
  // built here would claim removals and suggest a command that fails.
  const inputErrors = diagnostics.filter((d) => d.severity === "error" || CREDENTIAL_CODES.has(d.code)).length;
  const { ok, report } = inputErrors > 0 ? { ok: false, report: notCheckedReport(lockPath, inputErrors, displayPath, fixCommand) } : checkLockfile(lockPath, lockText, { host, displayPath, fixCommand });
  // Not said where the root has no agent.md (AL1001): there is no agent, hence no lock, to check,
  // and a second error for one mistake only adds noise (helper-67's trial: `review` in plugins/hello/).
  const noAgent = diagnostics.some((d) => d.code === "AL1001" && d.file === "");
  if (report.diagnostic && !noAgent) diagnostics.push(report.diagnostic);
  if (options.placeStaleLock) diagnostics.push(...staleLockPlaces(report, analysis));
  const failed = hasErrors(diagnostics) || !ok;
  return { ok: !failed, diagnostics: finish(diagnostics, options.root), lockChanged: false, artifact: null, ...(noAgent ? {} : { checkReport: report }) };
}

/**
 * The lock step's write: atomically, only when the bytes change. Says when a conflicted or
 * damaged lock was recomputed. `undefined` when the write failed (reported).
 */
function writeLock(root: string, previous: ReadLockfileResult, lockText: string, diagnostics: Diagnostic[], damaged: Diagnostic | undefined, textBytes: Uint8Array, rootShown: string): { changed: boolean } | undefined {
  const lockPath = path.join(root, LOCKFILE_NAME);
  // `textBytes`: exactly the new text's bytes (compared with the file as it is now, and written).
  const written = writeLockfileIfChanged(lockPath, lockText, { textBytes, ...(previous.kind === "ok" ? { readableBytes: previous.bytes } : {}) });
  if (written.diagnostic) {
    diagnostics.push(written.diagnostic);
    return undefined;
  }
  // Its `git add` names the lock as typed from where the command runs (new-user trial 119: from the repository's root, `git add plugins.lock` adds nothing).
  if (previous.kind === "conflict") diagnostics.push(createDiagnostic(Diagnostics.LockfileConflictRecomputed, fileStart(lockPath), [shellQuote(path.join(rootShown, LOCKFILE_NAME))]));
  // (The warning may be gone: the project's rules can turn it off.)
  if (damaged && diagnostics.includes(damaged)) diagnostics.splice(diagnostics.indexOf(damaged), 1, createDiagnostic(Diagnostics.LockfileInvalidRecomputed, fileStart(lockPath), [damaged.message.replace(/^plugins\.lock /, "").replace(/\.$/, "")]));
  return { changed: written.changed };
}

/** The root as the user should type it in fix-it commands. */
function shownRoot(options: CompileOptions): string {
  return options.displayRoot ?? (path.relative(process.cwd(), options.root) || ".");
}

/** True when a diagnostic says a credential was found (AL4029, AL5001), at any severity. */
function holdsCredential(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => CREDENTIAL_CODES.has(d.code));
}

/** The diagnostics as reported: relative paths, any credential-shaped text masked, sorted. */
function finish(diagnostics: readonly Diagnostic[], root: string): Diagnostic[] {
  return sortDiagnostics(diagnostics.map((d) => maskDiagnostic(relativizeDiagnostic(d, root, path.relative))));
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

/** True when `bytes` start with the UTF-8 byte order mark (EF BB BF). */
function startsWithByteOrderMark(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/**
 * `assembly-line compile` as a function (DESIGN §5–§7; issues 2–4): analyse the agent, build
 * the lock, package the tools, then — only when there are no errors — write the artifact and
 * the lock. `--check` writes nothing and compares the lock with what would be written.
 *
 * Nothing the user had is lost: every check runs before the first write; the artifact is
 * replaced atomically (`writeArtifact`), then the lock is written atomically and only when its
 * bytes change (`writeLockfileIfChanged`). A failed compile leaves both untouched.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { analyzeAgent, type AgentAnalysis } from "./analyze-agent.js";
import { AnalysisCache } from "./static-analysis/analysis-cache.js";
import { createStaticAnalyzer } from "./static-analysis/static-analyzer.js";
import type { PackagePins } from "./agent/resolve-capabilities.js";
import { createDiagnostic, hasErrors, relativizeDiagnostic, sortDiagnostics, type Diagnostic } from "./diagnostics/diagnostic.js";
import { Diagnostics } from "./diagnostics/catalog/index.js";
import { fileStart } from "./diagnostics/positions.js";
import { createNodeHost, type CompilerHost } from "./host.js";
import { buildLockfile, type BundleIntegrityLookup } from "../lockfile/build-lockfile.js";
import type { LockfileCheckReport } from "../lockfile/check-lockfile.js";
import { fixCommandFor } from "../lockfile/fix-command.js";
import { readLockfile, type ReadLockfileResult } from "../lockfile/read-lockfile.js";
import { serializeLockfile } from "../lockfile/serialize-lockfile.js";
import { isDisabledTool, LOCKFILE_NAME, type Lockfile } from "../lockfile/types.js";
import { writeLockfileIfChanged } from "../lockfile/write-lockfile.js";
import type { PackagingResult } from "../packaging/bundle-tools.js";
import { toolBundleKey } from "../packaging/plan-bundles.js";
import { DEFAULT_ARTIFACT_DIR, MANIFEST_FILE, type ArtifactManifest, type ArtifactSkill } from "../runtime-min/artifact/manifest.js";

// Packaging (esbuild) and `--check` (diff) are loaded only by the compiles that use them, so
// `compile --no-package` does not pay their start-up.

/** Options of {@link compileAgent} (the CLI flags of DESIGN §7). */
export interface CompileOptions {
  /** Absolute agent root. */
  readonly root: string;
  readonly host?: CompilerHost;
  /** `--check`: write nothing; fail when the lock is missing, stale or hand-edited. */
  readonly check?: boolean;
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
   * `false` for `--no-cache`: neither read nor write the persistent analysis cache
   * (`<root>/.assemblyline/cache/`, see `static-analysis/analysis-cache.ts`). Default `true`;
   * `--check` reads it but never writes it. The results are the same either way.
   */
  readonly cache?: boolean;
  /**
   * Whether to save the analysis cache. Default: not under `check` (the user's `compile
   * --check` writes nothing); the host commands' compile-first check passes `true`, so the
   * full compile that may follow, and later checks, start warm.
   */
  readonly saveCache?: boolean;
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
  /** The front end's analysis (for `tools`, `validate`, the runtime). */
  readonly analysis: AgentAnalysis;
  /** Wall-clock milliseconds per phase (for `npm run bench`; never printed or locked). */
  readonly timings: CompileTimings;
}

/** Phase timings of one compile, in milliseconds. */
export interface CompileTimings {
  /** Reading the previous lock and the whole front end (analyzeAgent). */
  readonly analyze: number;
  /** esbuild bundling (0 under --no-package). */
  readonly package: number;
  /** Building, serializing and writing (or checking) plugins.lock. */
  readonly lock: number;
  /** Writing the artifact. */
  readonly artifact: number;
  readonly total: number;
}

/** Compiles the agent at `options.root`. Never throws for bad input (only for internal failures). */
export async function compileAgent(options: CompileOptions): Promise<CompileResult> {
  const host = snapshotHost(options.host ?? createNodeHost());
  const root = options.root;
  const lockPath = path.join(root, LOCKFILE_NAME);
  const outDir = options.outDir ?? path.join(root, DEFAULT_ARTIFACT_DIR);
  const packaging = options.package !== false;
  const diagnostics: Diagnostic[] = [];
  const clock = startClock();

  // A root that is not a folder is reported before anything is read or written (no cache, no
  // lock, no artifact is created for a mistyped path).
  const rootProblem = checkRoot(host, root, options.displayRoot ?? root);
  if (rootProblem) {
    const empty = emptyAnalysis(root, rootProblem);
    return {
      ok: false,
      diagnostics: finish([rootProblem], root),
      lockfile: LOCKFILE_NAME,
      lockChanged: false,
      artifact: null,
      artifactChanged: false,
      lockRecomputed: false,
      analysis: empty,
      timings: clock.timings(),
    };
  }

  const fixCommand = fixCommandFor(options.displayRoot ?? (path.relative(process.cwd(), root) || "."));
  const previous = readLockfile(lockPath, { host, fixCommand });
  // Under --check, checkLockfile reports everything about the lock. A compile refuses a lock it
  // cannot understand (newer lockfileVersion, unreadable), and recomputes one that is conflicted
  // (saying so once written) or not valid JSON (said now, as a warning).
  const refused = previous.kind === "unsupported-version" || previous.kind === "unreadable";
  if (!options.check && refused) diagnostics.push(previous.diagnostic);
  // Said as a warning now; replaced by AL6012 ("recomputed") once the new lock is written.
  const damaged = !options.check && previous.kind === "invalid" ? { ...previous.diagnostic, severity: "warning" as const } : undefined;
  if (damaged) diagnostics.push(damaged);
  const cache = options.cache === false ? undefined : AnalysisCache.load(root);
  const analysis = analyzeAgent(host, root, {
    pins: pinsOf(previous),
    ...(cache ? { analyzer: createStaticAnalyzer(host, { persistent: cache }), verdictStore: cache } : {}),
    ...(options.acceptInstalled ? { acceptInstalled: options.acceptInstalled } : {}),
    ...(options.installCommand ? { installCommand: options.installCommand } : {}),
  });
  diagnostics.push(...analysis.diagnostics);
  // A folder without agent.md is not an agent root: nothing is created in it, not even the cache
  // (e.g. `search <path>`, which reads the path as the query and the working directory as the root).
  if (cache && (options.saveCache ?? !options.check) && host.kind(path.join(root, "agent.md")) === "file") cache.save();
  clock.lap("analyze");

  let packaged: PackagingResult | undefined;
  if (packaging && !hasErrors(diagnostics)) {
    const { bundleTools } = await import("../packaging/bundle-tools.js");
    packaged = await bundleTools({ root, tools: packagingTools(analysis) });
    diagnostics.push(...packaged.diagnostics);
  }
  clock.lap("package");
  const bundleLookup: BundleIntegrityLookup = packaged
    ? (surfaceId, capability, tool) => packaged!.toolBundles.get(toolBundleKey(surfaceId, capability, tool))?.integrity
    : carriedOverBundles(previous, analysis);
  const lock = buildLockfile(analysis, bundleLookup);
  const lockText = serializeLockfile(lock);
  clock.lap("lock");
  const base = { lockfile: LOCKFILE_NAME, analysis, lockRecomputed: false, artifactChanged: false, get timings() { return clock.timings(); } } as const;

  if (options.check) {
    const { checkLockfile, notCheckedReport } = await import("../lockfile/check-lockfile.js");
    // Shown as the user would type it: `agent/plugins.lock`, or `plugins.lock` in the root itself.
    const shownRoot = options.displayRoot ?? (path.relative(process.cwd(), root) || ".");
    const displayPath = shownRoot === "." ? LOCKFILE_NAME : `${toPosix(shownRoot).replace(/\/+$/, "")}/${LOCKFILE_NAME}`;
    // With errors in the inputs, compile would write nothing: a diff against the partial lock
    // built here would claim removals and suggest a command that fails.
    const inputErrors = diagnostics.filter((d) => d.severity === "error").length;
    const { ok, report } = inputErrors > 0 ? { ok: false, report: notCheckedReport(lockPath, inputErrors, displayPath) } : checkLockfile(lockPath, lockText, { host, displayPath, fixCommand });
    if (report.diagnostic) diagnostics.push(report.diagnostic);
    clock.lap("lock");
    const failed = hasErrors(diagnostics) || !ok;
    return { ...base, ok: !failed, diagnostics: finish(diagnostics, root), lockChanged: false, artifact: null, checkReport: report };
  }
  if (hasErrors(diagnostics) || refused) {
    return { ...base, ok: false, diagnostics: finish(diagnostics, root), lockChanged: false, artifact: null };
  }

  let artifactChanged = false;
  if (packaged) {
    const written = await emitArtifact(analysis, lock, lockText, packaged, outDir, diagnostics);
    clock.lap("artifact");
    if (written === undefined) return { ...base, ok: false, diagnostics: finish(diagnostics, root), lockChanged: false, artifact: null };
    artifactChanged = written;
  }
  const written = writeLockfileIfChanged(lockPath, lockText);
  clock.lap("lock");
  if (written.diagnostic) {
    diagnostics.push(written.diagnostic);
    return { ...base, ok: false, diagnostics: finish(diagnostics, root), lockChanged: false, artifact: null };
  }
  const lockChanged = written.changed;
  const lockRecomputed = previous.kind === "conflict" || previous.kind === "invalid";
  if (previous.kind === "conflict") diagnostics.push(createDiagnostic(Diagnostics.LockfileConflictRecomputed, fileStart(lockPath)));
  if (damaged) diagnostics.splice(diagnostics.indexOf(damaged), 1, createDiagnostic(Diagnostics.LockfileInvalidRecomputed, fileStart(lockPath), [damaged.message.replace(/^plugins\.lock /, "").replace(/\.$/, "")]));
  return {
    ...base,
    ok: true,
    diagnostics: finish(diagnostics, root),
    lockChanged,
    lockRecomputed,
    artifact: packaged ? toPosix(path.relative(root, outDir)) || "." : null,
    artifactChanged,
  };
}

/** Writes the artifact unless an identical one is already there; `undefined` on failure (reported). */
async function emitArtifact(
  analysis: AgentAnalysis,
  lock: Lockfile,
  lockText: string,
  packaged: PackagingResult,
  outDir: string,
  diagnostics: Diagnostic[],
): Promise<boolean | undefined> {
  const [{ buildManifest }, { bundleIntegrity }, { serializeManifest, writeArtifact }] = await Promise.all([
    import("../packaging/build-manifest.js"),
    import("../packaging/integrity.js"),
    import("../packaging/write-artifact.js"),
  ]);
  const built = buildManifest(analysis, lock, bundleIntegrity(Buffer.from(lockText, "utf8")), packaged.toolBundles);
  const extra = new Map<string, Uint8Array>();
  for (const skill of built.skillFiles) {
    const bytes = fs.existsSync(skill.from) ? fs.readFileSync(skill.from) : undefined;
    if (bytes) extra.set(skill.to, bytes);
  }
  // Each copied SKILL.md's integrity goes into the manifest, so load_skill serves only the text packaged.
  const withIntegrity = (skill: ArtifactSkill): ArtifactSkill => {
    const bytes = extra.get(skill.file);
    return bytes ? { ...skill, integrity: bundleIntegrity(bytes) } : skill;
  };
  const manifest: ArtifactManifest = {
    ...built.manifest,
    surfaces: Object.fromEntries(Object.entries(built.manifest.surfaces).map(([id, surface]) => [id, { ...surface, skills: surface.skills.map(withIntegrity) }])),
  };
  const manifestBytes = serializeManifest(manifest);
  // The copied SKILL.md files count too: a surface's own skill can change without changing the
  // lock (and so the manifest), and load_skill must then serve the new text.
  if (artifactIsCurrent(outDir, manifestBytes, new Map([...packaged.bundles, ...extra]))) return false;
  try {
    await writeArtifact(outDir, packaged.bundles, manifest, extra);
    return true;
  } catch (error) {
    diagnostics.push(createDiagnostic(Diagnostics.ArtifactWriteFailed, fileStart(outDir), [messageOf(error)]));
    return undefined;
  }
}

/** True when `outDir` already holds exactly this manifest and these files (bundles, skills; artifact-relative path → bytes). */
function artifactIsCurrent(outDir: string, manifestBytes: Uint8Array, files: ReadonlyMap<string, Uint8Array>): boolean {
  try {
    if (!Buffer.from(fs.readFileSync(path.join(outDir, MANIFEST_FILE))).equals(manifestBytes)) return false;
    for (const [relative, bytes] of files) {
      if (!Buffer.from(fs.readFileSync(path.join(outDir, relative))).equals(bytes)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/** Every non-disabled authored tool, as packaging wants it. */
function packagingTools(analysis: AgentAnalysis) {
  return analysis.capabilities.flatMap((capability) =>
    capability.plugin.tools.map((tool) => ({
      surfaceId: capability.surface.id,
      capability: capability.resolved.request.key,
      toolName: tool.name,
      pluginRoot: capability.resolved.source.dir,
      definitionFile: tool.definitionFile,
    })),
  );
}

/**
 * Under `--no-package`, a tool keeps the bundle integrity of the previous lock when its
 * capability's content integrity did not change (the bundle is a function of that content),
 * so alternating `compile` and `compile --no-package` does not flip the lock.
 */
function carriedOverBundles(previous: ReadLockfileResult, analysis: AgentAnalysis): BundleIntegrityLookup {
  if (previous.kind !== "ok") return () => undefined;
  const integrityNow = new Map(analysis.capabilities.map((c) => [`${c.surface.id}\0${c.resolved.request.key}`, c.hash.integrity]));
  return (surfaceId, capability, toolName) => {
    const locked = previous.lock.surfaces[surfaceId]?.capabilities[capability];
    if (!locked || locked.integrity !== integrityNow.get(`${surfaceId}\0${capability}`)) return undefined;
    const tool = locked.tools[toolName];
    return tool && !isDisabledTool(tool) ? tool.bundle : undefined;
  };
}

/** Published-package pins of a readable lock (surface → key → name/version). */
function pinsOf(previous: ReadLockfileResult): PackagePins {
  const pins = new Map<string, Map<string, { name: string; version: string }>>();
  if (previous.kind !== "ok") return pins;
  for (const [surfaceId, surface] of Object.entries(previous.lock.surfaces)) {
    for (const [key, capability] of Object.entries(surface.capabilities)) {
      if (capability.source.type !== "npm") continue;
      if (!pins.has(surfaceId)) pins.set(surfaceId, new Map());
      pins.get(surfaceId)!.set(key, { name: capability.source.name, version: capability.source.version });
    }
  }
  return pins;
}

/**
 * The host of one compile: asks `base` once per path and answers from memory afterwards, so
 * a compile sees one consistent snapshot of the files and does not read them twice. Raw bytes
 * of a file already read as valid UTF-8 text are its text encoded again (exactly the bytes
 * read: the byte order mark is kept as U+FEFF), so hashing a plugin directory after the
 * analysis read its modules costs no second read.
 */
function snapshotHost(base: CompilerHost): CompilerHost {
  const reads = new Map<string, ReturnType<CompilerHost["read"]>>();
  const bytes = new Map<string, Uint8Array | undefined>();
  const directories = new Map<string, ReturnType<CompilerHost["readDirectory"]>>();
  const realpaths = new Map<string, string | undefined>();
  const kinds = new Map<string, ReturnType<CompilerHost["kind"]>>();
  const memo = <T>(map: Map<string, T>, key: string, compute: () => T): T => {
    if (map.has(key)) return map.get(key)!;
    const value = compute();
    map.set(key, value);
    return value;
  };
  return {
    read: (filePath) => memo(reads, filePath, () => base.read(filePath)),
    readBytes: (filePath) =>
      memo(bytes, filePath, () => {
        const read = reads.get(filePath);
        return read?.kind === "file" && !read.invalidUtf8 ? Buffer.from(read.text, "utf8") : base.readBytes(filePath);
      }),
    readDirectory: (dirPath) => memo(directories, dirPath, () => base.readDirectory(dirPath)),
    realpath: (filePath) => memo(realpaths, filePath, () => base.realpath(filePath)),
    kind: (filePath) => memo(kinds, filePath, () => base.kind(filePath)),
  };
}

/** A diagnostic when `root` is missing or not a folder (the user passed a file, e.g. agent.md). */
function checkRoot(host: CompilerHost, root: string, shown: string): Diagnostic | undefined {
  const kind = host.kind(root);
  if (kind === "directory") return undefined;
  if (kind === "symlink" && host.realpath(root) !== undefined && host.kind(host.realpath(root)!) === "directory") return undefined;
  // No file of the agent is at fault, so the diagnostic has no location (file "").
  if (kind === "missing") return createDiagnostic(Diagnostics.AgentRootMissing, fileStart(""), [shown]);
  return createDiagnostic(Diagnostics.AgentRootNotDirectory, fileStart(""), [shown], { hint: `Pass the folder that holds agent.md: ${path.dirname(shown)}` });
}

/** The analysis of an agent that could not be loaded at all. */
function emptyAnalysis(root: string, problem: Diagnostic): AgentAnalysis {
  return { root, agent: { root, surfaces: [], diagnostics: [problem] }, capabilities: [], diagnostics: [problem] };
}

/** Accumulates wall-clock time per phase; `lap(phase)` charges the time since the last lap. */
function startClock() {
  const start = performance.now();
  let last = start;
  const spent = { analyze: 0, package: 0, lock: 0, artifact: 0 };
  return {
    lap(phase: keyof typeof spent): void {
      const now = performance.now();
      spent[phase] += now - last;
      last = now;
    },
    timings(): CompileTimings {
      return { ...spent, total: last - start };
    },
  };
}

function finish(diagnostics: readonly Diagnostic[], root: string): Diagnostic[] {
  return sortDiagnostics(diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative)));
}

function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

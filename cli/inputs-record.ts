/**
 * The inputs record: how a host command (`tools`, `search`, `call`, `approve`) knows that the
 * root's `plugins.lock` is current without a compile (issue 14 item 3: "checking that an
 * artifact is current must not cost a full analysis").
 *
 * A compile reads everything it depends on through its file-system host (`common/host.ts`):
 * file contents, directory listings, `kind` and `realpath` probes. When a compile that leaves
 * the lock as it is succeeds (the host commands' `--check`, or `assembly-line compile` with
 * nothing to change), {@link recordingHost} has seen every one of those probes and
 * {@link saveInputsRecord} writes what each one answered to
 * `<root>/.assemblyline/cache/inputs.json`. The lock is one of those inputs (the compile reads
 * it through the host). {@link inputsUnchanged} later asks each probe again: when every answer
 * is the same, a compile would read the same bytes, so it would compute the same lock — the one
 * on disk — and find no errors; the host command skips it.
 *
 * Correctness before speed:
 * - A file read counts as unchanged when its `stat` (size, mtime, ctime, inode) is the one
 *   recorded and the file was not changed in the two seconds before the recording started (a
 *   "racy" file, as Git calls it: coarse file-system clocks could hide a later write). Otherwise
 *   the file is read again and its SHA-256 compared, so a `touch` alone never forces a compile,
 *   and an edit that keeps size and mtime (a tool that restores mtimes cannot restore ctime)
 *   is still seen.
 * - Directory listings are listed again and compared by name and kind; `kind` and `realpath`
 *   probes are asked again. A file that was missing must still be missing.
 * - The record belongs to one toolchain ({@link toolchainIdentity}: Node's version and the size
 *   and mtime of this package's compiled compile path, schemas and dependencies) and one root
 *   (absolute path), and to the compile settings the project configuration (or `compile`'s
 *   flags) gave it (`rules`, `maxWarnings`, `targets`, `tokenBudget`: `build/compile-settings.ts`);
 *   any other record is ignored, as is an unreadable or malformed file.
 * - The check of the artifact against the lock (`artifactMatchesLock`) still runs every time,
 *   and runtime-min still verifies every bundle it loads.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { updateWithFileStats } from "../common/file-stats-hash.js";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileConfined } from "../common/confined-write.js";
import { createNodeHost, type CompilerHost } from "../common/host.js";
import { digest, probeHolds, probingHost, ProbeSet, RACY_MARGIN_MS, type Probe } from "../common/probes.js";
import { packageRoot } from "../common/package-root.js";
import { bundleStubs } from "../common/bundle-stubs.js";
import { ignoreStateDir } from "../common/state-dir.js";
import { listFilesRecursively } from "../common/list-files.js";
import { compileSettingsKey } from "../build/compile-settings.js";

/** Where the record lives, relative to the agent root. */
export const INPUTS_RECORD_FILE = path.join(".assemblyline", "cache", "inputs.json");

/** First field of a record of this format. */
const FORMAT = "assembly-line inputs record 1";

/** The settings key of a compile with no settings of the configuration or flags. */
const NO_SETTINGS = compileSettingsKey({});

export { RACY_MARGIN_MS, probeHolds, statOf, readAnswer, bytesAnswer, listAnswer, digest } from "../common/probes.js";
export type { FileStat, Probe } from "../common/probes.js";

/** The file's content. */
interface InputsRecord {
  readonly format: typeof FORMAT;
  readonly toolchain: string;
  readonly root: string;
  /**
   * The compile settings the recorded compile ran with (`compileSettingsKey`,
   * `build/compile-settings.ts`): the record vouches that a compile with these finds no errors.
   */
  readonly settings: string;
  /** `Date.now()` when the recording started (before the first probe). */
  readonly startedAt: number;
  readonly probes: readonly Probe[];
}

/** A host that records every probe a compile makes; see {@link recordingHost}. */
export interface RecordingHost {
  readonly host: CompilerHost;
  /** Writes what the host saw as the root's inputs record; see {@link saveInputsRecord}. */
  save(): void;
  /** `Date.now()` when the recording started (before the first probe). */
  readonly startedAt: number;
  /** Every probe made so far, in order, each path once per operation (the compile record, `./compile-record.ts`, keeps them too). */
  probes(): Probe[];
}

/**
 * Wraps `base` (default: the Node host) so that every probe through it is recorded; pass
 * `host` to `compileAgent` and call `save()` only after a compile that succeeded and left
 * `plugins.lock` unchanged (so the lock read is the lock on disk).
 * @param root absolute agent root the compile runs on.
 * @param settings the key of the compile's settings (`compileSettingsKey`; default: none set).
 */
export function recordingHost(root: string, base: CompilerHost = createNodeHost(), settings: string = NO_SETTINGS): RecordingHost {
  const startedAt = Date.now();
  const probes = new ProbeSet();
  const keep = (probe: Probe): void => {
    probes.add(probe);
  };
  // Assigned onto the probing host, not spread: that keeps its reader of known files (`readKnownFile`).
  const host: CompilerHost = Object.assign(probingHost(base, keep), {
    replay(replayed: readonly Probe[]) {
      for (const probe of replayed) keep(probe);
    },
  });
  return {
    host,
    startedAt,
    probes: () => probes.values(),
    save: () => saveInputsRecord(root, { format: FORMAT, toolchain: toolchainIdentity(), root, settings, startedAt, probes: probes.values() }),
  };
}

/**
 * True when the root's inputs record exists, belongs to this toolchain and root, was made under
 * the same compile settings, and every probe it holds gets the same answer now (see the module
 * comment). Never throws: anything unreadable or unexpected is `false` (the caller then runs the
 * compile's check).
 * @param root absolute agent root.
 * @param settings the key of the settings a compile would run with now (`compileSettingsKey`;
 *   default: none set). A record made under others is not used: `targets` added to the
 *   configuration change no input file, yet a compile may now refuse.
 */
export function inputsUnchanged(root: string, settings: string = NO_SETTINGS): boolean {
  let record: InputsRecord;
  try {
    record = JSON.parse(fs.readFileSync(path.join(root, INPUTS_RECORD_FILE), "utf8")) as InputsRecord;
  } catch {
    return false;
  }
  try {
    if (record.format !== FORMAT || record.root !== root || record.settings !== settings || !Array.isArray(record.probes) || typeof record.startedAt !== "number") return false;
    if (record.toolchain !== toolchainIdentity()) return false;
    const host = createNodeHost();
    const trustedBefore = record.startedAt - RACY_MARGIN_MS;
    return record.probes.every((probe) => probeHolds(host, probe, trustedBefore));
  } catch {
    return false;
  }
}

/** Deletes the root's inputs record (never throws); the next host command then runs the check. */
export function forgetInputsRecord(root: string): void {
  try {
    fs.rmSync(path.join(root, INPUTS_RECORD_FILE), { force: true });
  } catch {
    // Nothing to forget, or not ours to delete: the record is checked before use anyway.
  }
}

function saveInputsRecord(root: string, record: InputsRecord): void {
  try {
    if (writeFileConfined(root, path.join(root, INPUTS_RECORD_FILE), `${JSON.stringify(record)}\n`, { createFolders: true }) === undefined) ignoreStateDir(root);
  } catch {
    // Only a shortcut: without it the next host command runs the check.
  }
}

/**
 * The layers a compile runs (their files make up the toolchain's identity): the CLI bundle, which
 * holds the compile path both threads run (scripts/build-cli-bundle.mjs), and the layers as `tsc`
 * emitted them: the worker threads' stubs, and the whole compile path after a `tsc` run alone.
 */
const COMPILE_LAYERS = ["cli-bundle", "build", "packaging", "lockfile", "compiler", "contract", "diagnostics", "common"];

/** The other layers a `compile` command runs: its command line, printing, and the authoring API bundled into every tool. */
const PRINTING_LAYERS = ["cli", "runtime-min", "bin"];

let identity: string | undefined;

let wholeIdentity: string | undefined;

/**
 * Identifies the code that computes a lock: Node's version, and the size and mtime of every
 * file of the layers a compile runs (any rebuild or edit changes it), of this package's
 * package.json and `schemas/`, and of the package.json of each of its dependencies. Run from
 * the CLI bundle through its own stubs ({@link bundleStubs}), the files that run are the
 * bundle's folder and the stubs, so those stand for the layers.
 * `whole`: every layer of this package (the command line and the authoring API bundled into
 * every tool too; from the bundle: its folder, the stubs and `runtime-min/`, which packaging
 * reads), for the compile record (`./compile-record.ts`), which replays printed output.
 */
export function toolchainIdentity(whole = false): string {
  if (whole ? wholeIdentity : identity) return (whole ? wholeIdentity : identity)!;
  const hash = createHash("sha256").update(process.version);
  const layersRoot = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
  const pkgRoot = packageRoot();
  // Run from the CLI bundle through its own stubs, the compile path is the bundle's folder and the
  // stubs: the other files `tsc` emitted for those layers do not run (about 200 files not listed
  // and stat'ed by every host command: issue 14 item 3). The authoring API of `whole` is read by
  // packaging from `runtime-min/` whichever code runs.
  const stubs = bundleStubs(layersRoot);
  const layerNames = stubs ? ["cli-bundle", ...(whole ? ["runtime-min"] : [])] : [...COMPILE_LAYERS, ...(whole ? PRINTING_LAYERS : [])];
  const layers = layerNames.map((layer) => path.join(layersRoot, layer));
  const files = [...layers, path.join(pkgRoot, "schemas")].flatMap((dir) => listFilesRecursively(dir, (name) => RUNNING_CODE.test(name)));
  if (stubs) files.push(...stubs);
  files.push(path.join(pkgRoot, "package.json"));
  let dependencies: string[] = [];
  try {
    dependencies = Object.keys((JSON.parse(fs.readFileSync(path.join(pkgRoot, "package.json"), "utf8")) as { dependencies?: Record<string, string> }).dependencies ?? {}).sort();
  } catch {
    hash.update("\0no package.json");
  }
  for (const name of dependencies) files.push(installedManifest(pkgRoot, name) ?? `missing:${name}`);
  updateWithFileStats(hash, files);
  const value = hash.digest("base64url");
  if (whole) wholeIdentity = value;
  else identity = value;
  return value;
}

/** The package.json of the dependency `name` as Node would find it from `from` (walking up `node_modules`). */
function installedManifest(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name, "package.json");
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Files whose content runs or is read by a compile (not declarations or source maps). */
const RUNNING_CODE = /(?<!\.d)\.(?:[cm]?js|[cm]?ts|json)$/;


/**
 * One run of `analyzeEntry` or `analyzeDefinition`: every file it reads goes through the
 * host once, and what it saw (read versions, missing files, symlink targets) is recorded as
 * the result's fingerprint, so a later call can reuse the result when nothing it depended on
 * changed.
 */
import * as path from "node:path";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CompilerHost, ReadResult } from "../../common/host.js";
import { textDigest } from "../../common/probes.js";
import type { JsonDocument } from "./json-module.js";
import type { ParsedModule, SourceStore } from "./source-store.js";

/** What the session saw; a cached result is valid while every entry still holds. */
export type Fingerprint = ReadonlyMap<string, string>;

/**
 * What the session saw, with files identified by a hash of their content instead of their
 * version: valid across processes (the persistent cache), where an mtime proves nothing.
 */
export type ContentFingerprint = readonly (readonly [key: string, state: string])[];

/** A file that could be read, as a module or JSON text. */
export type LoadedFile =
  | { readonly kind: "module"; readonly module: ParsedModule; readonly invalidUtf8: boolean }
  | { readonly kind: "json"; readonly document: JsonDocument; readonly invalidUtf8: boolean };

const READ = "read:";
const REALPATH = "realpath:";

/** Where diagnostics go; a silent evaluator passes one that drops them. */
export interface DiagnosticSink {
  readonly pluginRoot: string;
  report(diagnostic: Diagnostic): void;
}

/** Records reads and diagnostics of one analysis. */
export class AnalysisSession implements DiagnosticSink {
  readonly diagnostics: Diagnostic[] = [];
  readonly #fingerprint = new Map<string, string>();
  readonly #reads = new Map<string, ReadResult>();
  readonly #realpaths = new Map<string, string | undefined>();
  readonly #loaded = new Map<string, LoadedFile>();

  constructor(
    readonly host: CompilerHost,
    readonly store: SourceStore,
    readonly pluginRoot: string,
  ) {}

  /** Reads a file through the host (once per session) and records its state. */
  read(filePath: string): ReadResult {
    const known = this.#reads.get(filePath);
    if (known) return known;
    const result = this.host.read(filePath);
    this.#reads.set(filePath, result);
    this.#fingerprint.set(READ + filePath, readState(result));
    return result;
  }

  /** `host.realpath` (once per session), recorded. */
  realpath(filePath: string): string | undefined {
    if (this.#realpaths.has(filePath)) return this.#realpaths.get(filePath);
    const result = this.host.realpath(filePath);
    this.#realpaths.set(filePath, result);
    this.#fingerprint.set(REALPATH + filePath, result ?? "");
    return result;
  }

  /** The plugin root with symlinks resolved (the root as given when it cannot be resolved). */
  realRoot(): string {
    return this.realpath(this.pluginRoot) ?? path.resolve(this.pluginRoot);
  }

  /**
   * Parses (or reuses) a read file as a module or JSON text; `undefined` when it is not a file.
   * What the session loaded stays loaded for the session, whatever the store keeps.
   */
  load(filePath: string, asJson: boolean): LoadedFile | undefined {
    const key = (asJson ? "json:" : "module:") + filePath;
    const known = this.#loaded.get(key);
    if (known) return known;
    const result = this.read(filePath);
    if (result.kind !== "file") return undefined;
    const loaded: LoadedFile = asJson
      ? { kind: "json", document: this.store.json(filePath, result.version, result.text), invalidUtf8: result.invalidUtf8 }
      : { kind: "module", module: this.store.module(filePath, result.version, result.text), invalidUtf8: result.invalidUtf8 };
    this.#loaded.set(key, loaded);
    return loaded;
  }

  /** Adds a diagnostic to the result. */
  report(diagnostic: Diagnostic): void {
    this.diagnostics.push(diagnostic);
  }

  /** Everything this session saw. */
  fingerprint(): Fingerprint {
    return new Map(this.#fingerprint);
  }

  /** Everything this session saw, with content hashes for files (sorted by key). */
  contentFingerprint(): ContentFingerprint {
    const entries: [string, string][] = [];
    for (const [filePath, result] of this.#reads) entries.push([READ + filePath, contentState(result)]);
    for (const [filePath, result] of this.#realpaths) entries.push([REALPATH + filePath, result ?? ""]);
    return entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  /** Files that were read and exist, sorted by code-unit order. */
  dependencies(): string[] {
    const files: string[] = [];
    for (const [filePath, result] of this.#reads) if (result.kind === "file") files.push(filePath);
    return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** True when every read and symlink the fingerprint recorded is still the same on `host`. */
export function fingerprintHolds(fingerprint: Fingerprint, host: CompilerHost): boolean {
  for (const [key, state] of fingerprint) {
    if (key.startsWith(READ)) {
      if (readState(host.read(key.slice(READ.length))) !== state) return false;
    } else if ((host.realpath(key.slice(REALPATH.length)) ?? "") !== state) {
      return false;
    }
  }
  return true;
}

/**
 * Checks a content fingerprint against `host` (reading each file once). Returns the
 * equivalent version fingerprint (for the in-memory cache) when everything still holds,
 * else `undefined`.
 */
export function verifyContentFingerprint(fingerprint: ContentFingerprint, host: CompilerHost): Fingerprint | undefined {
  const versions = new Map<string, string>();
  for (const [key, state] of fingerprint) {
    if (key.startsWith(READ)) {
      const result = host.read(key.slice(READ.length));
      if (contentState(result) !== state) return undefined;
      versions.set(key, readState(result));
    } else if (key.startsWith(REALPATH)) {
      const result = host.realpath(key.slice(REALPATH.length)) ?? "";
      if (result !== state) return undefined;
      versions.set(key, result);
    } else {
      return undefined;
    }
  }
  return versions;
}

/** Like {@link readState}, with a file's content hash in place of its version. */
function contentState(result: ReadResult): string {
  if (result.kind !== "file") return readState(result);
  return `file:${result.invalidUtf8 ? "!" : ""}${textDigest(result)}`;
}

function readState(result: ReadResult): string {
  switch (result.kind) {
    case "file":
      return `file:${result.invalidUtf8 ? "!" : ""}${result.version}`;
    case "unreadable":
      return `unreadable:${result.reason}`;
    default:
      return result.kind;
  }
}

/**
 * Static analysis of `ai.assemblyline/index.{ts,mts,js,mjs}` entries and tool definition
 * modules (DESIGN §1 and §3, issue 2 item 3). Syntax only: `ts.createSourceFile` of the
 * TypeScript that ts-morph embeds, through one {@link SourceStore} (in the CLI bundle, a copy cut
 * to the parser: scripts/trim-typescript.mjs); no type checker, no Program; plugin code is never
 * imported or run.
 *
 * Files are read only through {@link CompilerHost.read}, so an editor can pass unsaved
 * buffers. Results are kept per file and reused while neither the file nor anything it
 * depends on (imported modules, JSON files, symlink targets, files that were probed and
 * missing) changed version. With {@link StaticAnalyzerOptions.persistent} (compile's
 * `analysis-cache.ts`), results also survive the process, checked by content hashes.
 *
 * @example
 * const analyzer = createStaticAnalyzer(createNodeHost());
 * const { entry, wrapped, diagnostics } = analyzer.analyzeEntry("/p/ai.assemblyline/index.ts", "/p");
 * entry?.value.tools;                       // plain JSON
 * entry?.locations.get("/tools/echo");      // { value: SourceLocation, key: SourceLocation }
 */
import * as path from "node:path";
import { dedupeDiagnostics, createDiagnostic, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { fileStart } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import type { CompilerHost } from "../../common/host.js";
import type { DefinitionAnalysis, EntryAnalysis } from "../model.js";
import { AnalysisSession, fingerprintHolds, verifyContentFingerprint, type ContentFingerprint, type Fingerprint } from "./analysis-session.js";
import { analyzeDefinitionModule } from "./definition-analysis.js";
import { analyzeEntryModule } from "./entry-analysis.js";
import { MAX_NESTING } from "./nesting-limit.js";
import { SourceStore } from "./source-store.js";

/** The static analysis of one compiler host; keeps parsed files and results between calls. */
export interface StaticAnalyzer {
  /**
   * Evaluates the entry's default export to plain JSON with the location of every value and
   * key (JSON Pointers). Never throws: every problem is a diagnostic (AL3xxx) with file, line,
   * column, property path and hint; `entry` is `undefined` when nothing usable was read.
   *
   * @param entryFile absolute path of `ai.assemblyline/index.{ts,mts,js,mjs}`.
   * @param pluginRoot absolute plugin directory; relative imports must stay inside it.
   */
  analyzeEntry(entryFile: string, pluginRoot: string): EntryAnalysis;
  /**
   * Reads a definition module's exports and statically readable `defineTool({...})` calls.
   * Reports only read and syntax problems of the module itself.
   */
  analyzeDefinition(definitionFile: string, pluginRoot: string): DefinitionAnalysis;
}

interface CachedResult<T> {
  readonly fingerprint: Fingerprint;
  readonly result: T;
}

/** Which analysis a persistent record holds. */
export type AnalysisKind = "entry" | "definition";

/**
 * Results kept between processes (`analysis-cache.ts`), identified by kind, file and plugin
 * root and valid while their content fingerprint holds.
 */
export interface PersistentAnalyses {
  /** The stored record, when there is one (its fingerprint is checked by the analyzer). */
  find(kind: AnalysisKind, file: string, pluginRoot: string): { readonly fingerprint: ContentFingerprint; readonly result: unknown } | undefined;
  /** Records a fresh result (or confirms a stored one) for the next process. */
  keep(kind: AnalysisKind, file: string, pluginRoot: string, fingerprint: ContentFingerprint, result: EntryAnalysis | DefinitionAnalysis): void;
  /**
   * False when {@link keep} would drop what it is given (an analysis pool without a cache behind
   * it): the analyzer then does not hash the files of each analysis for it. Default: it keeps.
   */
  keeps?(): boolean;
}

/** Options of {@link createStaticAnalyzer}. */
export interface StaticAnalyzerOptions {
  /** A persistent cache to consult before analysing and to fill after (default: none). */
  readonly persistent?: PersistentAnalyses;
  /**
   * How many parsed modules to keep between analyses (`SourceStore`'s `retain`). Default: all
   * (the editor). A one-shot compile passes `ONE_SHOT_RETENTION`.
   */
  readonly retainModules?: number;
}

/** Creates the analyzer; all reads go through `host`. */
export function createStaticAnalyzer(host: CompilerHost, options: StaticAnalyzerOptions = {}): StaticAnalyzer {
  const store = new SourceStore(options.retainModules === undefined ? {} : { retain: options.retainModules });
  const entries = new Map<string, CachedResult<EntryAnalysis>>();
  const definitions = new Map<string, CachedResult<DefinitionAnalysis>>();
  const persistent = options.persistent;

  const cached = <T extends EntryAnalysis | DefinitionAnalysis>(
    cache: Map<string, CachedResult<T>>,
    kind: AnalysisKind,
    file: string,
    root: string,
    compute: (session: AnalysisSession) => T,
  ): T => {
    const key = `${file}\0${root}`;
    const hit = cache.get(key);
    if (hit && fingerprintHolds(hit.fingerprint, host)) return hit.result;
    const stored = persistent?.find(kind, file, root);
    const versions = stored && verifyContentFingerprint(stored.fingerprint, host);
    if (stored && versions) {
      const result = stored.result as T;
      cache.set(key, { fingerprint: versions, result });
      persistent!.keep(kind, file, root, stored.fingerprint, result);
      return result;
    }
    const session = new AnalysisSession(host, store, root);
    const result = compute(session);
    cache.set(key, { fingerprint: session.fingerprint(), result });
    if (persistent && persistent.keeps?.() !== false) persistent.keep(kind, file, root, session.contentFingerprint(), result);
    return result;
  };

  return {
    analyzeEntry(entryFile, pluginRoot) {
      const file = path.resolve(entryFile);
      return cached(entries, "entry", file, path.resolve(pluginRoot), (session) => {
        const facts = guardStack(session, file, () => analyzeEntryModule(session, file), { entry: undefined, wrapped: false });
        // Written out rather than spread (a spread runs slowly in a cold process; issue 14 item 1).
        return { file, entry: facts.entry, wrapped: facts.wrapped, dependencies: session.dependencies(), diagnostics: finish(session.diagnostics) };
      });
    },
    analyzeDefinition(definitionFile, pluginRoot) {
      const file = path.resolve(definitionFile);
      return cached(definitions, "definition", file, path.resolve(pluginRoot), (session) => {
        const empty = { parsed: false, hasDefaultExport: false, namedExports: [], hasExportStar: false, definedTools: [] };
        const facts = guardStack(session, file, () => analyzeDefinitionModule(session, file), empty);
        return {
          file,
          parsed: facts.parsed,
          hasDefaultExport: facts.hasDefaultExport,
          namedExports: facts.namedExports,
          hasExportStar: facts.hasExportStar,
          definedTools: facts.definedTools,
          dependencies: session.dependencies(),
          diagnostics: finish(session.diagnostics),
        };
      });
    },
  };
}

/**
 * Last line of defence against input that nests deeper than the checks foresee: a stack
 * overflow becomes AL3007 at the start of the file instead of a crash.
 */
function guardStack<T>(session: AnalysisSession, file: string, run: () => T, fallback: T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    session.report(createDiagnostic(Diagnostics.NestedTooDeeply, fileStart(file), [MAX_NESTING]));
    return fallback;
  }
}

/** Drops exact duplicates (one bad import used twice) and sorts (STYLE §6). */
function finish(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return sortDiagnostics(dedupeDiagnostics(diagnostics));
}

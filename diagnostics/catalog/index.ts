/**
 * The diagnostics catalog: every code the toolchain reports, grouped by pipeline stage.
 *
 * | range  | stage                                                          | file                 |
 * |--------|----------------------------------------------------------------|----------------------|
 * | AL1xxx | agent loading: agent.md, surfaces, capability resolution        | `agent.ts`           |
 * | AL2xxx | Agent Plugins v1 package: plugin.json, skills, mcp.json, paths  | `plugin-package.ts`  |
 * | AL3xxx | static analysis of `ai.assemblyline` entries and definitions    | `static-analysis.ts` |
 * | AL4xxx | descriptor validation: schemas, names, definitions, collisions  | `validation.ts`      |
 * | AL47xx | provider profiles (`--target`) and token budgets                | `providers.ts`       |
 * | AL5xxx | config merge and credentials                                    | `config.ts`          |
 * | AL6xxx | plugins.lock                                                    | `lockfile.ts`        |
 * | AL7xxx | packaging (esbuild bundles, artifact)                           | `packaging.ts`       |
 * | AL8xxx | runtime-min (artifact verification, host policy)                | `runtime.ts`         |
 * | AL9xxx | usage and internal failures                                     | `internal.ts`        |
 *
 * Detection code imports `Diagnostics` and calls `createDiagnostic(Diagnostics.X, …)`.
 * `test/diagnostics/catalog.test.ts` fails on a duplicate code, a code outside its stage's
 * range, or a code docs/diagnostics.md does not document; test/setup/diagnostic-coverage.ts fails a
 * whole-suite run when a code is produced by no test.
 */
import { AgentMessages } from "./agent.js";
import { ConfigMessages } from "./config.js";
import { InternalMessages } from "./internal.js";
import { LockfileMessages } from "./lockfile.js";
import { PackagingMessages } from "./packaging.js";
import { PluginPackageMessages } from "./plugin-package.js";
import { ProviderMessages } from "./providers.js";
import { RuntimeMessages } from "./runtime.js";
import { StaticAnalysisMessages } from "./static-analysis.js";
import { ValidationMessages } from "./validation.js";
import type { DiagnosticMessage } from "./types.js";

export type { DiagnosticMessage } from "./types.js";

/** Every catalog entry by name, e.g. `Diagnostics.ManifestUnknownField`. */
export const Diagnostics = {
  ...AgentMessages,
  ...PluginPackageMessages,
  ...StaticAnalysisMessages,
  ...ValidationMessages,
  ...ProviderMessages,
  ...ConfigMessages,
  ...LockfileMessages,
  ...PackagingMessages,
  ...RuntimeMessages,
  ...InternalMessages,
} as const;

/** The stage tables, in pipeline order, with the code prefix each must use. */
export const CatalogStages: readonly { readonly prefix: string; readonly table: Readonly<Record<string, DiagnosticMessage>> }[] = [
  { prefix: "AL1", table: AgentMessages },
  { prefix: "AL2", table: PluginPackageMessages },
  { prefix: "AL3", table: StaticAnalysisMessages },
  { prefix: "AL4", table: ValidationMessages },
  { prefix: "AL4", table: ProviderMessages },
  { prefix: "AL5", table: ConfigMessages },
  { prefix: "AL6", table: LockfileMessages },
  { prefix: "AL7", table: PackagingMessages },
  { prefix: "AL8", table: RuntimeMessages },
  { prefix: "AL9", table: InternalMessages },
];

/** All entries sorted by code (for documentation and the catalog test). */
export function allDiagnosticMessages(): DiagnosticMessage[] {
  return CatalogStages.flatMap((stage) => Object.values(stage.table)).sort((a, b) =>
    a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
  );
}

let byCode: ReadonlyMap<string, DiagnosticMessage> | undefined;

/** The catalog entry of a code, or `undefined` for an unknown code. */
export function diagnosticMessageFor(code: string): DiagnosticMessage | undefined {
  byCode ??= new Map(allDiagnosticMessages().map((message) => [message.code, message]));
  return byCode.get(code);
}

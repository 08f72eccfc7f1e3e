/**
 * What `compile [root...]` works on (issue 10 items 5 and 6): the roots (paths or globs, several
 * compiled in one process), each root's project configuration, and the settings that follow
 * from flags over configuration (flags win).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileStart } from "../common/positions.js";
import type { CompileOptions } from "../build/compile.js";
import { loadProjectConfig } from "../build/project-config/load-project-config.js";
import type { CompileFormat, ProjectConfig } from "../build/project-config/types.js";
import { compileSettingsOf } from "../build/compile-settings.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, relativizeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { configSelection, type ConfigFlags } from "./config-selection.js";
export { configSelection, type ConfigFlags } from "./config-selection.js";
import { detectPackageManager, installAllCommand } from "./add/detect-package-manager.js";
import { npmWorkspaceRootOf } from "./add/install-package.js";
import { shellQuote } from "../common/shell-quote.js";

/** The configuration flags shared by `compile`, `inputs` and the host commands. */

/** One root to compile, with its configuration. */
export interface CompileTarget {
  /** Absolute agent root. */
  readonly root: string;
  /** The root as the user typed it (or as the glob matched it, relative to the working directory). */
  readonly displayRoot: string;
  readonly config: ProjectConfig;
  /** Configuration errors (files relative to the root); the root is not compiled when any. */
  readonly configDiagnostics: readonly Diagnostic[];
}


/**
 * Expands the root arguments: an existing path is a root as typed; an argument with glob
 * characters that is not a path matches folders holding an `agent.md` (sorted); anything else
 * is passed on (the compile reports a missing root, AL1024).
 *
 * @returns the roots (duplicates removed, argument order kept) or an AL9116 diagnostic per glob that matched nothing.
 */
export async function expandRoots(argumentsGiven: readonly string[]): Promise<{ roots: { root: string; displayRoot: string }[]; diagnostics: Diagnostic[] }> {
  const roots: { root: string; displayRoot: string }[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const add = (root: string, displayRoot: string): void => {
    if (seen.has(root)) return;
    seen.add(root);
    roots.push({ root, displayRoot });
  };
  for (const argument of argumentsGiven.length > 0 ? argumentsGiven : ["."]) {
    // tinyglobby only for an argument that names no file: most compiles name a folder.
    const globbing = fs.existsSync(argument) ? undefined : await import("tinyglobby");
    if (!globbing?.isDynamicPattern(argument)) {
      add(path.resolve(argument), argument);
      continue;
    }
    const matches = await globbing.glob(argument, { onlyDirectories: true, absolute: true, expandDirectories: false, ignore: ["**/node_modules/**", "**/.assemblyline/**"] });
    const agents = matches.map((dir) => dir.replace(/[\\/]+$/, "")).filter((dir) => fs.existsSync(path.join(dir, "agent.md"))).sort();
    if (agents.length === 0) diagnostics.push(createDiagnostic(Diagnostics.RootGlobMatchedNothing, fileStart(""), [argument]));
    for (const dir of agents) add(dir, path.relative(process.cwd(), dir) || ".");
  }
  return { roots, diagnostics };
}

/** Loads each root's configuration (errors relative to that root). */
export async function loadTargets(roots: readonly { root: string; displayRoot: string }[], flags: ConfigFlags): Promise<CompileTarget[]> {
  const selection = configSelection(flags);
  const targets: CompileTarget[] = [];
  for (const { root, displayRoot } of roots) {
    const loaded = await loadProjectConfig(root, selection);
    targets.push({ root, displayRoot, config: loaded.config, configDiagnostics: loaded.diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative)) });
  }
  return targets;
}

/** Flags of `compile` that a configuration can also set. */
export interface SettingFlags {
  readonly out?: string;
  /** `--target ID`…: wins over `targets` of the configuration. */
  readonly target?: readonly string[];
  /** `--token-budget N`: wins over `tokenBudget` of the configuration. */
  readonly tokenBudget?: number;
  readonly maxWarnings?: number;
  readonly format?: CompileFormat;
}

/** The output format: the flag, else the first root's configuration, else `pretty`. */
export function outputFormat(flags: SettingFlags, targets: readonly CompileTarget[]): CompileFormat {
  return flags.format ?? targets.find((t) => t.config.format !== undefined)?.config.format ?? "pretty";
}

/** The compile options of one target (flags over its configuration: `build/compile-settings.ts`). */
export function compileOptionsFor(target: CompileTarget, flags: SettingFlags & { check?: boolean; package: boolean; cache?: boolean; format?: string }): CompileOptions {
  const outDir = flags.out !== undefined ? path.resolve(flags.out) : target.config.outDir;
  const settings = compileSettingsOf(target.config, flags);
  return {
    root: target.root,
    check: flags.check === true,
    // Annotations of a stale lock also where the agent writes each change (AL6218): they must land on the pull request's lines.
    ...(flags.check === true && (flags.format === "github" || flags.format === "sarif") ? { placeStaleLock: true } : {}),
    package: flags.package,
    cache: flags.cache !== false,
    displayRoot: target.displayRoot,
    installCommand: installCommandFor(target.root, target.displayRoot),
    rules: target.config.rules,
    ...settings,
    ...(outDir !== undefined ? { outDir } : {}),
  };
}

/** AL9117 for every pair of targets that would write the same artifact directory. */
export function sharedOutDirs(targets: readonly CompileTarget[], options: readonly CompileOptions[]): Diagnostic[] {
  const byDir = new Map<string, string>();
  const out: Diagnostic[] = [];
  targets.forEach((target, i) => {
    const dir = options[i]!.outDir ?? path.join(target.root, ".assemblyline", "build");
    const other = byDir.get(dir);
    if (other !== undefined) out.push(createDiagnostic(Diagnostics.SharedOutDir, fileStart(""), [other, target.displayRoot, path.relative(process.cwd(), dir) || "."]));
    else byDir.set(dir, target.displayRoot);
  });
  return out;
}

/**
 * The command that installs the agent's dependencies, as the AL6008/AL6009 hints print it: the
 * package manager's install, run in the agent root when the root has a `package.json` of its own
 * and is not where the user runs the CLI (`cd agents/bot && npm install`: new-user trial 115, where
 * `add` had written the agent folder's own package.json and `npm install` at the repository root
 * changed nothing); for an npm workspace member, the install at the workspace root.
 */
function installCommandFor(root: string, displayRoot: string): string {
  const manager = detectPackageManager(root).manager;
  const install = installAllCommand(manager);
  // An npm workspace member is installed from the workspace root, whose lockfile lists its
  // dependencies (new-user trial 125: `cd agents/support && npm install` made a nested
  // node_modules and changed the root's lockfile).
  const workspaceRoot = manager === "npm" && fs.existsSync(path.join(root, "package.json")) ? npmWorkspaceRootOf(root) : undefined;
  if (workspaceRoot !== undefined) {
    const shown = path.relative(process.cwd(), workspaceRoot);
    return shown === "" ? install : `cd ${shellQuote(shown)} && ${install}`;
  }
  const elsewhere = displayRoot !== "" && displayRoot !== "." && fs.existsSync(path.join(root, "package.json"));
  return elsewhere ? `cd ${shellQuote(displayRoot)} && ${install}` : install;
}

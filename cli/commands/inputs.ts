/**
 * `assembly-line inputs [root] [--format json]` (DESIGN §7, issue 10 item 6): every file a
 * compile of the root reads, one path per line, relative to the root with `/` separators and
 * sorted (`--format json`: `{ "files": [...] }`), so a build system with remote caching (Nx,
 * Turborepo, Bazel) can declare exact inputs (recipes: `docs/monorepo.md`).
 *
 * The list comes from running the compile itself with a recording host and esbuild's metafile:
 * `agent.md` of every surface, every file of every plugin (their content is hashed into the
 * lock), installed plugin packages, the files tool bundles import, and the project
 * configuration file. Left out: `plugins.lock` and the artifact (outputs), the analysis cache
 * (it never changes a result), and the toolchain's own files. Nothing is written.
 */
import * as path from "node:path";
import { compileAgent } from "../../build/compile.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import { packageRoot } from "../../common/package-root.js";
import { LOCKFILE_NAME } from "../../contract/lockfile-types.js";
import { DEFAULT_ARTIFACT_DIR } from "../../contract/manifest.js";
import { toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { relativizeDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { configSelection, type ConfigFlags } from "../compile-targets.js";
import { hintAgentRootAbove } from "../agent-root-hint.js";
import { printDiagnostics, printJson } from "../output.js";

/** What {@link listInputs} found. */
export interface InputsResult {
  /** POSIX paths relative to the root, sorted by code unit. */
  readonly files: readonly string[];
  /** The compile's diagnostics (files relative to the root). */
  readonly diagnostics: readonly Diagnostic[];
  readonly ok: boolean;
}

/**
 * Lists the files a compile of `root` reads. Runs the front end and packaging without writing
 * anything (a `--check` compile with packaging, without the analysis cache, so every file is read).
 */
export async function listInputs(root: string, flags: ConfigFlags = {}): Promise<InputsResult> {
  const loaded = await loadProjectConfig(root, configSelection(flags));
  if (loaded.diagnostics.length > 0) return { files: [], diagnostics: loaded.diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative)), ok: false };
  const read = new Set<string>();
  if (loaded.config.file) read.add(loaded.config.file);
  const result = await compileAgent({ root, check: true, package: true, cache: false, rules: loaded.config.rules, recordInput: (file) => read.add(file) });
  const toolchain = packageRoot();
  const outputs = [path.join(root, LOCKFILE_NAME), ...[loaded.config.outDir, path.join(root, DEFAULT_ARTIFACT_DIR), path.join(root, ".assemblyline")].filter((d) => d !== undefined).map((d) => d + path.sep)];
  const files = [...read]
    .filter((file) => !isToolchainFile(file, root, toolchain) && !outputs.some((out) => file === out || file.startsWith(out)))
    .map((file) => path.relative(root, file).split(path.sep).join("/"))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // Drift of the lock is not a failure here: `inputs` describes the compile, it does not check it.
  const drift = result.checkReport?.diagnostic?.code;
  const diagnostics = result.diagnostics.filter((d) => d.code !== drift);
  return { files, diagnostics, ok: !diagnostics.some((d) => d.severity === "error") };
}

/**
 * Whether `file` (absolute) is one of the toolchain's own files, which `inputs` leaves out (its
 * version is declared instead: docs/monorepo.md): a file under `toolchainRoot` (the package's
 * folder), except one of the agent's own where the agent lies inside the toolchain's folder (the
 * repository's examples). A toolchain installed inside the agent (`<root>/node_modules/…`) is the
 * toolchain all the same (new-user trial of 6 December: its authoring module, which a plugin's
 * bundle imports, was listed there and not in a monorepo).
 */
export function isToolchainFile(file: string, root: string, toolchainRoot: string): boolean {
  const toolchain = toolchainRoot + path.sep;
  if (!file.startsWith(toolchain)) return false;
  const agentInsideToolchain = (root + path.sep).startsWith(toolchain);
  return !agentInsideToolchain || !file.startsWith(root + path.sep);
}

/** Runs `inputs` and prints the list; resolves to 0, or 1 when the agent has errors (the list is still printed). */
export async function runInputs(rootArgument: string, flags: ConfigFlags & { format: "pretty" | "json" }): Promise<number> {
  const root = path.resolve(rootArgument);
  const result = await listInputs(root, flags);
  const shown = result.ok ? [] : result.diagnostics.filter((d) => d.severity === "error");
  if (flags.format === "json") printJson({ files: result.files, ...(shown.length > 0 ? { diagnostics: shown.map(toJsonDiagnostic) } : {}) });
  else {
    // A root inside an agent (run from plugins/hello/): AL1001's hint names the agent root above.
    printDiagnostics(hintAgentRootAbove(shown, root, rootArgument), root);
    if (result.files.length > 0) process.stdout.write(`${result.files.join("\n")}\n`);
  }
  return result.ok ? 0 : 1;
}

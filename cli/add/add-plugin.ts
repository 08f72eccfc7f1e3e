/**
 * `assembly-line add <plugin> [root] [--as KEY]` as a function (issue 3 item 7; seed "Reusable
 * Tool Packs": "The command adds openui to capabilities:, pins it in plugins.lock, and writes no
 * root wrappers").
 *
 * Order:
 * 1. the project's package manager installs the package with an exact version;
 * 2. `capabilities.<key>` is written into `agent.md` (yaml Document API: comments, order and
 *    formatting kept; written atomically) — unless the package or the edit is refused;
 * 3. `compile` pins name, version and integrity in `plugins.lock`, handing the contract review
 *    of the change (`onReview`) over before the lock is written. When the compile has errors
 *    (typically: the plugin's configSchema requires config the agent has not given yet), the
 *    lock and the artifact are left untouched, the errors say what to add, and the next
 *    `compile` pins the plugin.
 * A folder or tarball outside the agent's repository is added with warning AL6213 (its `file:`
 * path breaks `npm ci` elsewhere: ./outside-repository.ts).
 * The root surface's `agent.md` is edited; subagents select published plugins in their own
 * `agent.md`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { pinsOf } from "../../build/lock-inputs.js";
import { readLockfile } from "../../lockfile/read-lockfile.js";
import type { ContractReview } from "../../lockfile/review-contract.js";
import { createDiagnostic, relativizeDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import { checkWriteTarget, writeFileConfined } from "../../common/confined-write.js";
import { invalidUtf8Location } from "../../common/invalid-utf8.js";
import { createNodeHost, decodeUtf8 } from "../../common/host.js";
import { writeRefusalDiagnostic } from "../../diagnostics/write-refusal.js";
import { brokenLinkHint, brokenLinkReason } from "../../common/broken-link.js";
import { addCapabilityToAgentMd, agentMdProblemsBeforeInstall } from "./add-capability-to-agent-md.js";
import { readPluginName, validateCapabilityKey } from "./capability-key.js";
import { detectPackageManager, installAllCommand, uninstallCommand } from "./detect-package-manager.js";
import { installPackage, type CommandRunner } from "./install-package.js";
import { outsideRepositoryDiagnostic } from "./outside-repository.js";
import { readTarballJson } from "./read-tarball-manifest.js";
import { resolvePluginSpec, type PluginSpec } from "./resolve-plugin-spec.js";
import type { CompileSettings } from "../../build/compile-settings.js";

/** Options of {@link addPlugin}. */
export interface AddPluginOptions {
  /** What to add: `openui`, `@scope/name@1.2.3`, `file:./x.tgz`, a path. */
  readonly spec: string;
  /** Absolute agent root. */
  readonly root: string;
  /** `--as KEY`: the capability key (default: the plugin's plugin.json name). */
  readonly as?: string;
  /** Passed to the package manager (tests install tarballs offline). */
  readonly offline?: boolean;
  readonly run?: CommandRunner;
  /**
   * Receives the contract review (committed lock → new lock) before the new lock is written
   * (issue 11 item 3: `add` and a pack upgrade print it first). Not called when the lock does
   * not change or the compile fails.
   */
  readonly onReview?: (review: ContractReview) => void;
  /**
   * What the project configuration gives the compile that pins the plugin, as `compile` takes it:
   * its compile settings (`rules`, `maxWarnings`, `targets`, `tokenBudget`: `build/compile-settings.ts`)
   * and `outDir`, so `add` never writes a lock `compile` would refuse, nor an artifact where
   * `compile` would not put it.
   */
  readonly compile?: CompileSettings & { readonly outDir?: string };
}

/** What `add` did. */
export interface AddPluginResult {
  readonly ok: boolean;
  /** Root-relative diagnostics of every step. */
  readonly diagnostics: readonly Diagnostic[];
  readonly key?: string;
  readonly package?: { readonly name: string; readonly version: string };
  /** The package manager command that ran; absent when none did (npm had installed the same tarball already). */
  readonly command?: string;
  /** The package manager command that removes what the install added (said when a later step fails). */
  readonly undoCommand?: string;
  /** What the package manager printed (stdout, then stderr) when it failed (AL6202), for the user to read. */
  readonly installOutput?: string;
  readonly agentMdChanged: boolean;
  /**
   * The package and version `plugins.lock` pinned for the key before this add (absent when it
   * pinned none): `add` of another version of a plugin the agent has says "Upgraded",
   * "Downgraded" or "Re-pinned", not "Added" (new-user trial 120).
   */
  readonly previous?: { readonly name: string; readonly version: string };
  /** The compile that pinned the plugin (absent when an earlier step failed). */
  readonly compile?: CompileResult;
}

/** Adds a published plugin to the agent at `options.root`. Never throws for bad input. */
export async function addPlugin(options: AddPluginOptions): Promise<AddPluginResult> {
  const root = options.root;
  const fail = (diagnostic: Diagnostic, extra: Partial<AddPluginResult> = {}): AddPluginResult => ({
    ok: false,
    diagnostics: [relativizeDiagnostic(diagnostic, root, path.relative)],
    agentMdChanged: false,
    ...extra,
  });

  // Not an agent root: refused before anything is installed (run from plugins/hello/, `add` had
  // installed the package there and written a new agent.md inside the plugin).
  const agentFile = path.join(root, "agent.md");
  if (!fs.existsSync(agentFile)) {
    // A link that leads to no file is not "no agent.md": said as compile says it (AL1002).
    const broken = brokenLinkReason(createNodeHost(), agentFile);
    if (broken !== undefined) return fail(createDiagnostic(Diagnostics.AgentFileUnreadable, fileStart(agentFile), [broken], { hint: brokenLinkHint("agent.md") }));
    return fail(createDiagnostic(Diagnostics.AgentFileMissing, fileStart(""), [root]));
  }
  const spec = resolvePluginSpec(options.spec, process.cwd());
  if (!spec.ok) return fail(spec.diagnostic);
  if (options.as !== undefined) {
    const invalid = validateCapabilityKey(options.as);
    if (invalid) return fail(invalid);
  }
  // Checked before installing anything when the key is known: `--as`, or the plugin.json name of a
  // folder or tarball (new-user trial M43c: the check ran after the install had changed package.json
  // and node_modules); again below for a key read from the installed plugin.json.
  const keyBefore = options.as ?? keyBeforeInstall(spec.spec);
  if (keyBefore !== undefined && fs.existsSync(path.join(root, "plugins", keyBefore))) {
    return fail(createDiagnostic(Diagnostics.AddKeyIsLocalPlugin, folderStart(path.join(root, "plugins", keyBefore)), [keyBefore, options.spec]), { key: keyBefore });
  }
  // Everything about agent.md that is known before the install is checked before it (helper-73's
  // report, defect 5: a duplicate key or tab indentation failed only after package.json,
  // the lockfile and node_modules had changed); the edit itself is planned again afterwards.
  // Not UTF-8 (AL1003, as compile says it), or a link `add` would have to write through
  // (AL6301): refused before the install too (helper-73's defects 1 and 2).
  const first = readAgentMd(agentFile);
  if ("diagnostic" in first) return fail(first.diagnostic, keyBefore === undefined ? {} : { key: keyBefore });
  const agentMdBefore = first.text;
  const linked = checkWriteTarget(root, agentFile);
  if (linked) return fail(writeRefusalDiagnostic("agent.md", linked, root));
  const agentMdProblems = agentMdProblemsBeforeInstall(agentMdBefore, keyBefore, packageNameBeforeInstall(spec.spec), agentFile);
  if (agentMdProblems.length > 0) {
    return { ok: false, diagnostics: agentMdProblems.map((d) => relativizeDiagnostic(d, root, path.relative)), agentMdChanged: false, ...(keyBefore === undefined ? {} : { key: keyBefore }) };
  }
  const manager = detectPackageManager(root).manager;
  const installed = installPackage(manager, root, spec.spec, {
    ...(options.offline ? { offline: true } : {}),
    ...(options.run ? { run: options.run } : {}),
    ...(options.as !== undefined ? { key: options.as } : {}),
  });
  if (!installed.ok) return fail(installed.diagnostic, { ...(installed.command ? { command: installed.command } : {}), ...(installed.output ? { installOutput: installed.output } : {}) });
  const pkg = { name: installed.name, version: installed.version };
  // Nothing ran when npm had installed this very tarball already: no install to undo or report.
  const base = installed.alreadyInstalled ? { package: pkg } : { package: pkg, command: installed.command, undoCommand: uninstallCommand(manager, installed.name) };

  let key = options.as;
  if (key === undefined) {
    const named = readPluginName(installed.directory, installed.name);
    if (!named.ok) return fail(named.diagnostic, base);
    key = named.name;
    const invalid = validateCapabilityKey(key);
    if (invalid) return fail(invalid, base);
  }

  // The local folder would win resolution (DESIGN §2): the package would be pinned nowhere.
  if (fs.existsSync(path.join(root, "plugins", key))) {
    return fail(createDiagnostic(Diagnostics.AddKeyIsLocalPlugin, folderStart(path.join(root, "plugins", key)), [key, installed.name]), { ...base, key });
  }
  // Read again: it may have changed during the install.
  const again = readAgentMd(agentFile);
  if ("diagnostic" in again) return fail(again.diagnostic, { ...base, key });
  const { text: before, mode } = again;
  const edited = addCapabilityToAgentMd(before, key, { package: installed.name }, agentFile);
  if (edited.diagnostics.length > 0) {
    return { ok: false, diagnostics: edited.diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative)), agentMdChanged: false, ...base, key };
  }
  if (edited.changed) {
    // Atomic, with the file's permission bits, and never through a link (an agent.md that links
    // out of the agent, or a hard link: helper-73), as every write of the toolchain.
    const refusal = writeFileConfined(root, agentFile, edited.text, { mode });
    if (refusal) return fail(writeRefusalDiagnostic("agent.md", refusal, root), { ...base, key });
  }
  // What the lock pinned for the key before this compile rewrites it (root surface: `.`).
  const previous = pinsOf(readLockfile(path.join(root, "plugins.lock"))).get(".")?.get(key);
  const compile = await compileAgent({
    ...options.compile,
    root,
    acceptInstalled: new Set([`.\0${key}`]),
    installCommand: installAllCommand(manager),
    ...(options.onReview ? { onLockChange: options.onReview } : {}),
  });
  // A `file:` path that leaves the repository breaks `npm ci` elsewhere (helper-78 D8.3): said, not refused.
  const outside = outsideRepositoryDiagnostic(spec.spec, root, installed.name, key);
  // add says it in its own words (AL6213, with the capability's plugins/<key>/): the compile's
  // AL6214 for the same dependency would repeat it.
  const shownOutside = outside && relativizeDiagnostic(outside, root, path.relative);
  const diagnostics = shownOutside
    ? [...compile.diagnostics.filter((d) => !(d.code === Diagnostics.DependencyPathOutsideRepository.code && d.file === shownOutside.file && d.line === shownOutside.line)), shownOutside]
    : compile.diagnostics;
  return { ok: compile.ok, diagnostics, agentMdChanged: edited.changed, ...base, key, ...(previous ? { previous } : {}), compile };
}

/**
 * The npm package name a spec will install, as far as it is known before installing: the
 * registry name as given, or the `name` of a folder's or tarball's package.json; `undefined`
 * when it cannot be read (the installed package's name decides then).
 */
function packageNameBeforeInstall(spec: PluginSpec): string | undefined {
  if (spec.kind === "registry") return spec.name;
  let manifest: Record<string, unknown> | undefined;
  if (spec.kind === "tarball") manifest = readTarballJson(spec.path, "package.json");
  else {
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(spec.path, "package.json"), "utf8")) as Record<string, unknown>;
    } catch {
      manifest = undefined;
    }
  }
  const name = manifest?.["name"];
  return typeof name === "string" && name !== "" ? name : undefined;
}

/**
 * The capability key a folder or tarball spec will have without `--as` (its plugin.json `name`),
 * read before anything is installed; `undefined` for a registry spec or when it cannot be read
 * (the installed plugin.json decides then, and is checked after the install).
 */
function keyBeforeInstall(spec: PluginSpec): string | undefined {
  if (spec.kind === "directory") {
    const named = readPluginName(spec.path, spec.path);
    return named.ok ? named.name : undefined;
  }
  if (spec.kind === "tarball") {
    const name = readTarballJson(spec.path, "plugin.json")?.["name"];
    return typeof name === "string" && name !== "" ? name : undefined;
  }
  return undefined;
}


/**
 * agent.md's text (its byte order mark kept, for the edit to keep it) and permission bits; or
 * AL1003 when it is not UTF-8 (its text would come back with U+FFFD where its bytes were:
 * helper-73), located at the first invalid byte, or AL1002 when it cannot be read.
 */
function readAgentMd(agentFile: string): { readonly text: string; readonly mode: number } | { readonly diagnostic: Diagnostic } {
  try {
    const bytes = fs.readFileSync(agentFile);
    const decoded = decodeUtf8(bytes, { keepBom: true });
    if (decoded.invalidUtf8) return { diagnostic: createDiagnostic(Diagnostics.AgentFileNotUtf8, invalidUtf8Location(agentFile, decoded.text, bytes) ?? fileStart(agentFile)) };
    return { text: decoded.text, mode: fs.statSync(agentFile).mode & 0o7777 };
  } catch (error) {
    return { diagnostic: createDiagnostic(Diagnostics.AgentFileUnreadable, fileStart(agentFile), [String(error)]) };
  }
}

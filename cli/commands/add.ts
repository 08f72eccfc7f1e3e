/**
 * `assembly-line add <plugin> [root] [--as KEY]` (DESIGN §7, issue 3 item 7).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { shellQuote } from "../../common/shell-quote.js";
import { createNodeHost } from "../../common/host.js";
import { repositoryRoot } from "../../compiler/agent/dependency-paths.js";
import { addPlugin } from "../add/add-plugin.js";
import { PACKAGE_MANAGER_LOCKFILES } from "../add/detect-package-manager.js";
import { hintAgentRootAbove } from "../agent-root-hint.js";
import { printDiagnostics } from "../output.js";
import { formatContractReview } from "../../lockfile/format-review.js";
import semver from "semver";
import { fixCommandFor } from "../../lockfile/fix-command.js";
import { loadProjectConfig } from "../../build/project-config/load-project-config.js";
import { relativizeDiagnostic } from "../../diagnostics/diagnostic.js";
import { compileSettingsOf } from "../../build/compile-settings.js";
import { configSelection, type ConfigFlags } from "../config-selection.js";

/**
 * Runs `add`; 0 when the plugin was added and locked, 1 otherwise. The project configuration
 * (searched from the root upwards, or `--config FILE`, or none with `--no-config`, as for `compile`) gives the compile that pins the plugin its
 * compile settings and `outDir`, as `compile` takes them; one that is not valid stops `add`
 * before anything is installed or edited.
 */
export async function runAdd(spec: string, rootArgument: string, flags: { as?: string } & ConfigFlags): Promise<number> {
  const root = path.resolve(rootArgument);
  // `--config FILE` / `--no-config`, as for `compile`.
  const loaded = await loadProjectConfig(root, configSelection(flags));
  if (loaded.diagnostics.length > 0) {
    printDiagnostics(loaded.diagnostics.map((d) => relativizeDiagnostic(d, root, path.relative)), root);
    process.stderr.write("agent.md and plugins.lock were left unchanged, and nothing was installed.\n");
    return 1;
  }
  const result = await addPlugin({
    spec,
    root,
    compile: { ...compileSettingsOf(loaded.config), ...(loaded.config.outDir !== undefined ? { outDir: loaded.config.outDir } : {}) },
    ...(flags.as !== undefined ? { as: flags.as } : {}),
    // The review is printed before plugins.lock is written (issue 11 item 3).
    onReview: (review) => process.stdout.write(formatContractReview(review)),
  });
  // The package manager's own words come first, so AL6202's "read the output above" has some.
  if (result.installOutput) process.stderr.write(result.installOutput.endsWith("\n") ? result.installOutput : `${result.installOutput}\n`);
  // A root inside an agent (run from plugins/hello/): AL1001's hint names the agent root above.
  printDiagnostics(hintAgentRootAbove(result.diagnostics, root, rootArgument), root);
  if (!result.ok) {
    process.stderr.write(
      result.agentMdChanged
        ? `Added capabilities.${result.key} to agent.md, but plugins.lock was not updated: fix the errors above, then run \`${fixCommandFor(rootArgument)}\`${result.undoCommand ? `; or undo the add: remove capabilities.${result.key} from agent.md and run '${result.undoCommand}'` : ""}.\n`
        : result.package && result.command
          ? `agent.md and plugins.lock were left unchanged, but '${result.command}' installed ${result.package.name}@${result.package.version} into package.json and node_modules; undo it with '${result.undoCommand}' if you do not retry.\n`
          : "agent.md and plugins.lock were left unchanged.\n",
    );
    return 1;
  }
  const pkg = result.package!;
  const what = `${result.key} (${pkg.name}@${pkg.version})`;
  process.stdout.write(
    !(result.agentMdChanged || result.compile?.lockChanged)
      ? `${what} is already ${result.command === undefined ? "installed, " : ""}added and pinned; nothing changed.\n`
      : result.previous && !result.agentMdChanged
        ? `${pinChangeLine(result.key!, result.previous, pkg)}\n`
        : `Added ${what}: capabilities.${result.key} in agent.md, pinned in plugins.lock.\n`,
  );
  // The install ran in the agent root: below the repository's root, its package.json is a project
  // of its own that CI must install too (new-user trial 115: the workflow's root `npm ci` did not).
  const repository = repositoryRoot(createNodeHost(), root);
  if (result.command !== undefined && repository !== root) {
    const folder = path.relative(repository, root);
    // A workspace member has no lockfile of its own: the manager recorded the install in the
    // workspace root's, whose install installs it (new-user trial 119).
    const ownLockfile = PACKAGE_MANAGER_LOCKFILES.some(({ file }) => fs.existsSync(path.join(root, file)));
    process.stdout.write(
      ownLockfile
        ? `${pkg.name} is a dependency of ${path.join(folder, "package.json")}, a project of its own below the repository's root: commit it with its package-lock.json, and install it in CI too (\`npm ci --prefix ${shellQuote(folder)}\`, as docs/examples/github-actions.yml does).\n`
        : `${pkg.name} is a dependency of ${path.join(folder, "package.json")}, a workspace package: commit it with the workspace root's lockfile, whose install (\`npm ci\` at the root) installs it.\n`,
    );
  }
  return 0;
}

/** Package name and version. */
type Pin = { readonly name: string; readonly version: string };

/**
 * What an `add` that changed the lock's pin of a key agent.md had already did, in one line:
 * "Upgraded" or "Downgraded" (the same package, semver order), else "Re-pinned" (another package
 * under the key, or the same version with other content: a rebuilt tarball). New-user trial 120:
 * it said "Added".
 */
function pinChangeLine(key: string, previous: Pin, now: Pin): string {
  if (previous.name !== now.name) return `Re-pinned ${key} (${previous.name}@${previous.version} → ${now.name}@${now.version}) in plugins.lock.`;
  const order = semver.valid(previous.version) && semver.valid(now.version) ? semver.compare(now.version, previous.version) : 0;
  if (order === 0) return `Re-pinned ${key} (${now.name}@${now.version}, new content) in plugins.lock.`;
  return `${order > 0 ? "Upgraded" : "Downgraded"} ${key} (${now.name} ${previous.version} → ${now.version}): pinned in plugins.lock.`;
}

/**
 * What the package's bin runs for a host command (`tools`, `search`, `call`, `approve`): the
 * host commands' entry (`../cli/host-main.ts`), as the CLI bundle's host bundle
 * (scripts/build-cli-bundle.mjs; docs/performance.md, "The host bundle"). `loadCompiler` gives
 * the compiler when a command must compile first, `loadSourceMaps` the bundles' source maps for
 * a failed tool's stack: the bin hands in the CLI bundle's.
 */
import type { CompilerLoader } from "../cli/ensure-artifact.js";
import type { SourceMapLoader } from "../cli/source-stacks.js";
import type { EarlySandboxStart } from "../runtime-min/execution/early-start.js";
import { rememberCliStart } from "../common/cli-command.js";

/**
 * Runs the host command in `argv` and resolves to its exit code (see `hostMain`); records the
 * script Node ran first, as `./run.ts` does, for the commands it prints (`common/cli-command.ts`).
 */
export async function runHost(argv: readonly string[], earlyStart: EarlySandboxStart | undefined, loadCompiler: CompilerLoader, loadSourceMaps: SourceMapLoader): Promise<number> {
  rememberCliStart(process.argv[1]);
  const { hostMain } = await import("../cli/host-main.js");
  return hostMain(argv, { loadCompiler, loadSourceMaps, ...(earlyStart === undefined ? {} : { earlyStart }) });
}

/**
 * The `assembly-line` command line (DESIGN §7). Each command is a module in `./commands/`
 * that returns an exit code; this file only wires flags to them.
 *
 * Exit codes: 0 success (warnings allowed), 1 the input has errors or `--check` found drift,
 * 2 usage or internal failure.
 */
import { Command, CommanderError, Option } from "commander";
import { runCompile } from "./commands/compile.js";
import { runValidate } from "./commands/validate.js";
import { toolVersion } from "./version.js";

/** Output formats of `compile`. */
const COMPILE_FORMATS = ["pretty", "json", "sarif", "github"] as const;

/**
 * Runs the CLI with `argv` (without `node` and the script path) and resolves to the exit code.
 * Never throws: an internal failure is printed and becomes exit code 2.
 */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name("assembly-line")
    .description("Compile, lock, package and run agents built from Agent Plugins v1 packages.")
    .version(toolVersion(), "-v, --version")
    .exitOverride()
    .showHelpAfterError("(run 'assembly-line --help' for usage)")
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) });

  program
    .command("compile")
    .description("Check the agent, write plugins.lock and package the tools into the artifact.")
    .argument("[root]", "agent root (the folder with agent.md)", ".")
    .option("--check", "write nothing; fail when plugins.lock is missing, stale or hand-edited")
    .option("--out <dir>", "artifact directory (default: <root>/.assemblyline/build)")
    .option("--no-package", "skip packaging: check and lock only")
    .addOption(new Option("--format <format>", "output format").choices(COMPILE_FORMATS).default("pretty"))
    .action(async (root: string, options: { check?: boolean; out?: string; package: boolean; format: (typeof COMPILE_FORMATS)[number] }) => {
      exitCode = await runCompile(root, options);
    });

  program
    .command("validate")
    .description("Check one plugin package on its own (for plugin authors, before publishing).")
    .argument("<pluginDir>", "the plugin root (the folder with plugin.json)")
    .addOption(new Option("--format <format>", "output format").choices(["pretty", "json"]).default("pretty"))
    .action((pluginDir: string, options: { format: "pretty" | "json" }) => {
      exitCode = runValidate(pluginDir, options);
    });

  try {
    await program.parseAsync(argv, { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help" ? 0 : 2;
    }
    process.stderr.write(`assembly-line: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return 2;
  }
}

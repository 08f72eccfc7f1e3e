// A separate host process for runtime tests: `assembly-line call|approve|tools|search` from the sources.
import { Command } from "commander";
import { registerCatalogCommands, registerRuntimeCommands } from "../../../cli/commands/host-commands.js";

const program = new Command("assembly-line");
registerRuntimeCommands(program);
registerCatalogCommands(program);
await program.parseAsync(process.argv);

#!/usr/bin/env node
/** Entry point of the `assembly-line` binary: runs the CLI and exits with its code. */
import { main } from "../cli/main.js";

process.exitCode = await main(process.argv.slice(2));

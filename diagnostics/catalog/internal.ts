/** Diagnostics of usage and internal failures. */
import { defineMessages } from "./types.js";
import { WorkflowMessages } from "./workflow.js";

export const InternalMessages = defineMessages({
  UsageError: {
    code: "AL9001",
    severity: "error",
    message: "The command line is not valid: {0}.",
    hint: "Run '{cli} --help' (or '<command> --help') for usage.",
    docs: "The command line could not be understood (unknown option, missing argument, bad value); exit code 2.",
  },
  InternalError: {
    code: "AL9002",
    severity: "error",
    message: "Internal error: {0}",
    hint: "This is a bug in assembly-line, not in your agent; please report it with the command you ran.",
    docs: "Something failed that no input should be able to cause; exit code 2.",
  },
  ...WorkflowMessages,
});

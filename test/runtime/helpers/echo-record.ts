/**
 * Test helper: the record of a finished `echo` call as the state store journals it
 * (`StateStore.journalCall`, docs/runtime.md "Tenth round"), for the call journal's tests.
 */
import type { JournaledCall } from "../../../runtime-min/state/run-journal.js";
import type { Json } from "../../../runtime-min/sandbox/json-copy.js";

/** An `ok` echo call `callId` whose input and output are `{ message: callId }` (or `output`), with its started and completed events. */
export function echoRecord(callId: string, output: Json = { message: callId }): Omit<JournaledCall, "seq"> {
  return {
    callId,
    surface: ".",
    tool: "echo",
    inputJson: JSON.stringify({ message: callId }),
    status: "ok",
    runtimeBoundary: "sandbox",
    output,
    events: [
      { type: "tool.execution_started", data: { tool: "echo", callId } },
      { type: "tool.execution_completed", data: { tool: "echo", callId } },
    ],
  };
}

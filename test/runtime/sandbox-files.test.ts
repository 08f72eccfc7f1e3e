/**
 * `ctx.getSandbox()` file work (seed "Execution Model": a sandbox tool can exchange large file
 * contents through it): text and exact bytes, through a real sandbox process and the bridge.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    { name: "bytes_round_trip", file: "probes.ts", factory: "bytesRoundTrip" },
    { name: "parallel_exchanges", file: "probes.ts", factory: "parallelExchanges" },
  ]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

describe("ctx.getSandbox() files", () => {
  it("writes and reads exact bytes (a Uint8Array) as well as text", async () => {
    const result = await runtime.call({ tool: "bytes_round_trip", input: {}, runId: "bytes-run" });
    expect(result.status).toBe("ok");
    expect(result.output).toEqual({
      bytes: [0, 13, 10, 255, 65],
      textAsBytes: [108, 105, 110, 101, 13, 10],
      text: "line\r\n",
      refused: "sandbox.writeFile(path, contents) needs a string path and string or Uint8Array contents.",
      // The host's error code crosses the bridge with its message (new-user trial E6's left-over).
      missing: { message: "The file 'data/none.txt' does not exist in the workspace.", code: "ENOENT" },
    });
    const onDisk = fs.readFileSync(path.join(agent.root, ".assemblyline/runs/bytes-run/workspace/data/blob.bin"));
    expect([...onDisk]).toEqual([0, 13, 10, 255, 65]);
  });

  it("runs a call's file exchanges one at a time, in the order the tool started them, whatever fails (helper-65 C1)", async () => {
    const result = await runtime.call({ tool: "parallel_exchanges", input: { rounds: 20 }, runId: "parallel-run" });
    expect(result.status, result.error).toBe("ok");
    // Each read comes after the write the tool started just before it, so it always finds the file.
    expect(result.output).toEqual(["rejected", ...Array.from({ length: 20 }, (_, i) => [null, `content ${i}`]).flat()]);
  });
});

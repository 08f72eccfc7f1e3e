/**
 * Issue 12 item 6: `state.db` deleted (or replaced) during a call. Before: the call returned ok,
 * every recorded state was gone, and a retry ran a recorded `ctx.step` body again. Now the
 * store notices at its next write and the run ends as `state_store_failure`; a 0-byte
 * `state.db` is refused instead of silently re-created.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "../runtime/helpers/agent-fixture.js";
import { pollFor } from "../runtime/helpers/sandbox-processes.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "step_then_wait", file: "hostile.ts", factory: "stepThenWait" },
  ]);
});

afterAll(() => agent?.cleanup());

const stateDb = () => path.join(agent.root, ".assemblyline/state.db");
const workspace = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId, "workspace");
const removeDb = () => {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(stateDb() + suffix, { force: true });
};

describe("state.db vanishing during a run", () => {
  for (const how of ["deleted", "replaced"] as const) {
    it(`state.db ${how} mid-call ends the run as state_store_failure, and the retry does not repeat the step`, async () => {
      const runtime = await openRuntime({ root: agent.root });
      const runId = `vanish-${how}`;
      try {
        const pending = runtime.call({ tool: "step_then_wait", input: {}, runId, callId: "c1" });
        await pollFor(() => (fs.existsSync(path.join(workspace(runId), "ready.txt")) ? true : undefined));
        removeDb();
        if (how === "replaced") fs.writeFileSync(stateDb(), "");
        fs.writeFileSync(path.join(workspace(runId), "go.txt"), "go");
        const result = await pending;
        expect(result.status).toBe("failed");
        expect(result.failure).toEqual({ kind: "control_plane", reason: "state_store_failure", runCanContinue: false });
        expect(result.error).toContain(how === "deleted" ? "was deleted while the runtime was using it" : "was replaced by another file");
        expect(fs.readFileSync(path.join(workspace(runId), "effects.txt"), "utf8")).toBe("charged\n");
      } finally {
        await runtime.close();
        removeDb();
      }
    });
  }

  it("a 0-byte state.db is refused, not silently re-created", async () => {
    removeDb();
    fs.mkdirSync(path.dirname(stateDb()), { recursive: true });
    fs.writeFileSync(stateDb(), "");
    await expect(openRuntime({ root: agent.root })).rejects.toMatchObject({ reason: "state_store_failure", message: expect.stringContaining("is empty (0 bytes)") });
    expect(fs.statSync(stateDb()).size).toBe(0);
    removeDb();
    const fresh = await openRuntime({ root: agent.root });
    expect((await fresh.call({ tool: "echo", input: { message: "hi" } })).status).toBe("ok");
    await fresh.close();
    expect(fs.statSync(stateDb()).size).toBeGreaterThan(0);
  });
});

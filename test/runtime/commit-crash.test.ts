/**
 * Issue 14 item 2 ("No contract test weakened"): run state survives a crash of the host. The
 * host is SIGKILLed inside the commit of a call's result, and at arbitrary moments of a stream
 * of calls; afterwards state.db is intact, every call the host returned is recorded with its
 * result and both of its events (a result is committed before it is returned: no batching or
 * deferred commit can lose it), nothing is recorded half, and a new host continues the run.
 */
import { spawn, spawnSync } from "node:child_process";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { pollFor } from "./helpers/sandbox-processes.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
const host = path.join(import.meta.dirname, "helpers", "commit-crash-host.ts");
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
});

afterAll(() => agent?.cleanup());

const returnedIn = (stdout: string) => [...stdout.matchAll(/^returned (c\d+)$/gm)].map((match) => match[1]!);

/** What state.db holds for `runId`, checked for integrity and for calls recorded half. */
function recorded(runId: string): Map<string, { status: string; output: string | null; attempts: number }> {
  const db = new Database(path.join(agent.root, ".assemblyline/state.db"), { readonly: true });
  try {
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const calls = db.prepare("SELECT call_id, status, output_json, attempts FROM calls WHERE run_id = ?").all(runId) as { call_id: string; status: string; output_json: string | null; attempts: number }[];
    const events = db.prepare("SELECT call_id, type FROM events WHERE run_id = ? ORDER BY seq").all(runId) as { call_id: string; type: string }[];
    for (const call of calls) {
      // A recorded call has its result and exactly its two events: the commit was all or nothing.
      expect(call.status).toBe("ok");
      expect(events.filter((event) => event.call_id === call.call_id).map((event) => event.type)).toEqual(["tool.execution_started", "tool.execution_completed"]);
    }
    expect(new Set(events.map((event) => event.call_id))).toEqual(new Set(calls.map((call) => call.call_id)));
    return new Map(calls.map((call) => [call.call_id, { status: call.status, output: call.output_json, attempts: call.attempts }]));
  } finally {
    db.close();
  }
}

/** Retries `callId` in a new host once the dead host's lease (2 s) expired (AL8028 until then); returns its result. */
async function retry(runId: string, callId: string, message: string) {
  const runtime = await openRuntime({ root: agent.root });
  try {
    for (;;) {
      try {
        return await runtime.call({ tool: "echo", input: { message }, runId, callId });
      } catch (error) {
        if ((error as { code?: string }).code !== "AL8028") throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    await runtime.close();
  }
}

describe("a host killed mid-commit", () => {
  it("killed inside the commit of its 5th result: calls 1–4 are recorded whole, call 5 not at all, and its retry is its first attempt", async () => {
    const runId = "inside-commit";
    const run = spawnSync(process.execPath, ["--import", loader, host, agent.root, runId, "inside-commit", "5"], { encoding: "utf8", timeout: 120_000 });
    expect(run.signal).toBe("SIGKILL");
    expect(returnedIn(run.stdout)).toEqual(["c1", "c2", "c3", "c4"]);
    const calls = recorded(runId);
    expect([...calls.keys()].sort()).toEqual(["c1", "c2", "c3", "c4"]);
    expect(calls.get("c4")).toEqual({ status: "ok", output: '{"message":"m4"}', attempts: 1 });
    const again = await retry(runId, "c5", "m5");
    expect(again).toMatchObject({ status: "ok", output: { message: "m5" } });
    expect(recorded(runId).get("c5")).toEqual({ status: "ok", output: '{"message":"m5"}', attempts: 1 });
  });

  it("killed at arbitrary moments of a stream of calls: every call it returned is recorded, with its result", async () => {
    for (const [round, delayMs] of [100, 350, 800].entries()) {
      const runId = `until-killed-${round}`;
      const child = spawn(process.execPath, ["--import", loader, host, agent.root, runId, "until-killed"], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
      // Wait for the first returned call (start-up is not what is measured), then kill after `delayMs`.
      await pollFor(() => (returnedIn(stdout).length > 0 ? true : undefined), 60_000);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      child.kill("SIGKILL");
      expect(await exited).toBe("SIGKILL");
      const returned = returnedIn(stdout);
      const calls = recorded(runId);
      for (const callId of returned) expect(calls.get(callId)).toEqual({ status: "ok", output: JSON.stringify({ message: `m${callId.slice(1)}` }), attempts: 1 });
      // At most the call in flight was committed without being reported.
      expect(calls.size - returned.length).toBeGreaterThanOrEqual(0);
      expect(calls.size - returned.length).toBeLessThanOrEqual(1);
      // The run continues in a new host.
      const next = `c${calls.size + 1}`;
      expect(await retry(runId, next, `m${calls.size + 1}`)).toMatchObject({ status: "ok" });
    }
  });
});

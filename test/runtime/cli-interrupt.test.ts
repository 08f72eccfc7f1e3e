/**
 * Ctrl-C (SIGINT) or SIGTERM of `call` and `approve` (new-user trial 112, C2 and C3): the run is
 * free for the next command at once (the lease released, not left to expire: AL8028 before), the
 * interrupted call's retry command is printed, and an approved call that never finished says how
 * to finish it.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { seedTools } from "../helpers/support-agent.js";
import { repoRoot } from "../helpers/temp-tree.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { runSourceCliJson, runSourceCli, sourceCliArgs } from "./helpers/run-source-cli.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    { name: "hang", file: "hostile.ts", factory: "hang" },
    { name: "gated_hang", file: "hostile.ts", factory: "hang", needsApproval: { reason: "Waits for ever.", sideEffect: "external" } },
    { name: "gated_echo", file: seedTools.echo, needsApproval: { reason: "Echoes, at a price.", sideEffect: "external" } },
  ]);
});

afterAll(() => agent?.cleanup());

/** Whether some host holds run `runId`'s progress lease (the call has started). */
function leaseHeld(runId: string): boolean {
  const db = new Database(path.join(agent.root, ".assemblyline/state.db"), { readonly: true });
  try {
    return (db.prepare("SELECT lease_owner FROM runs WHERE run_id = ?").get(runId) as { lease_owner: string | null } | undefined)?.lease_owner != null;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

/** Starts `assembly-line ...args`, waits until it holds `runId`'s lease, sends `signal`, and resolves with its exit code and stderr. */
async function interrupt(args: readonly string[], runId: string, signal: NodeJS.Signals): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, sourceCliArgs(args), { cwd: repoRoot, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  try {
    await vi.waitFor(() => expect(leaseHeld(runId)).toBe(true), { timeout: 30_000, interval: 50 });
    child.kill(signal);
    return { code: await exited, stderr };
  } finally {
    child.kill("SIGKILL");
  }
}

describe("an interrupted call or approve", () => {
  it("Ctrl-C frees the run at once and prints the call's retry command (exit 130)", async () => {
    const { code, stderr } = await interrupt(["call", "hang", agent.root, "--run", "int-run", "--call", "c1", "--input", '{"n":1}'], "int-run", "SIGINT");
    expect(code).toBe(130);
    expect(stderr).toContain("assembly-line: interrupted (SIGINT); the call c1 of run int-run did not finish. The run is free for the next command.");
    expect(stderr).toMatch(/retry it \(its finished steps replay\): .*assembly-line call hang .* --run int-run --call c1 --input '\{"n":1\}'/);
    expect(leaseHeld("int-run")).toBe(false);
    // The next command in the run is not refused (AL8028) by the interrupted one's lease.
    const next = runSourceCliJson("call", "echo", agent.root, "--run", "int-run", "--input", '{"message":"next"}', "--format", "json");
    expect(next.json).toMatchObject({ status: "ok", output: { message: "next" } });
  });

  it("SIGTERM does the same (exit 143), and names the call id it generated", async () => {
    const { code, stderr } = await interrupt(["call", "hang", agent.root, "--run", "term-run", "--input", "{}"], "term-run", "SIGTERM");
    expect(code).toBe(143);
    expect(stderr).toMatch(/interrupted \(SIGTERM\); the call (call_\S+) of run term-run did not finish/);
    expect(stderr).toMatch(/--run term-run --call call_\S+ --input '\{\}'/);
    expect(leaseHeld("term-run")).toBe(false);
  });

  it("an approve interrupted while the call runs: a second approve says how to finish it", async () => {
    const pending = runSourceCliJson("call", "gated_hang", agent.root, "--run", "gate-run", "--call", "g1", "--input", '{"x":2}', "--format", "json");
    expect(pending.json.status).toBe("approval_required");
    const { code, stderr } = await interrupt(["approve", "g1", agent.root, "--run", "gate-run"], "gate-run", "SIGINT");
    expect(code).toBe(130);
    expect(stderr).toMatch(/the call g1 of run gate-run did not finish.*\n {2}retry it .*call gated_hang .*--run gate-run --call g1 --input '\{"x":2\}'/);
    const again = runSourceCli("approve", "g1", agent.root, "--run", "gate-run");
    expect(again.status).toBe(1);
    expect(again.stdout).toContain("the process that ran it was interrupted");
    expect(again.stdout).toMatch(/ {2}finish it \(the approval stands\): .*assembly-line call gated_hang .*--run gate-run --call g1 --input '\{"x":2\}'\n$/);
  });

  it("a call approved and finished: a later approve or deny says it was decided, and offers no command that would run it again (new-user trial 125)", () => {
    const pending = runSourceCliJson("call", "gated_echo", agent.root, "--run", "done-run", "--call", "d1", "--input", '{"message":"once"}', "--format", "json");
    expect(pending.json.status).toBe("approval_required");
    const approved = runSourceCliJson("approve", "d1", agent.root, "--run", "done-run", "--format", "json");
    expect(approved.json).toMatchObject({ status: "ok", output: { message: "once" } });
    for (const extra of [[], ["--deny"]]) {
      const again = runSourceCli("approve", "d1", agent.root, "--run", "done-run", ...extra);
      expect(again.stdout).not.toContain("finish it");
      expect(again.stdout).not.toContain("assembly-line call gated_echo");
    }
  });
});

/**
 * A shell command ends with the call that started it (host-file review of 5 December, H6): an unawaited
 * `ctx.getSandbox().exec` loop outlived its call, `runtime.close()` and the host process, and
 * raced the next call's file work on the same run. Now the call's end, the runtime's close and
 * (where util-linux `setpriv` is found) the host's death each end it.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHELL_COMMANDS_AT_ONCE } from "../../runtime-min/execution/call-session.js";
import { openRuntime, probeShellIsolation } from "../../runtime-min/index.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

const LOOP = "while :; do echo beat >> beat.txt; sleep 0.05; done";
let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "shell_background", file: "shell.ts", factory: "shellBackground" },
    { name: "shell", file: "shell.ts", factory: "shell" },
    { name: "shell_parallel", file: "shell.ts", factory: "shellParallel" },
  ]);
}, 120_000);

afterAll(() => agent?.cleanup());

const beats = (runId: string): number => {
  const file = path.join(agent.root, ".assemblyline", "runs", runId, "workspace", "beat.txt");
  return fs.existsSync(file) ? fs.statSync(file).size : 0;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether the loop of `runId` has stopped: no new beat in 600 ms (it beats every 50 ms). */
async function stopped(runId: string): Promise<boolean> {
  await sleep(300);
  const before = beats(runId);
  await sleep(600);
  return beats(runId) === before;
}

describe("a shell command a tool left running", () => {
  it("ends when its call finishes", async () => {
    const runtime = await openRuntime({ root: agent.root });
    try {
      expect(await runtime.call({ tool: "shell_background", input: { command: LOOP, waitFor: "beat.txt" }, runId: "after-call" })).toMatchObject({ status: "ok" });
      expect(beats("after-call")).toBeGreaterThan(0);
      expect(await stopped("after-call")).toBe(true);
    } finally {
      await runtime.close();
    }
  }, 120_000);

  it("ends when the runtime closes during its call", async () => {
    const runtime = await openRuntime({ root: agent.root });
    const call = runtime.call({ tool: "shell_background", input: { command: LOOP, hang: true }, runId: "on-close" });
    for (let waited = 0; beats("on-close") === 0 && waited < 60_000; waited += 50) await sleep(50);
    expect(beats("on-close")).toBeGreaterThan(0);
    await runtime.close();
    await call.catch(() => undefined);
    expect(await stopped("on-close")).toBe(true);
  }, 120_000);

  it("ends with its whole process group on a timeout, also without isolation (only the shell was killed: a '… & wait' left its loop running)", async () => {
    const runtime = await openRuntime({ root: agent.root, shellIsolation: "off" });
    try {
      const result = await runtime.call({ tool: "shell", input: { command: `( ${LOOP} ) & wait`, timeoutMs: 1500 }, runId: "timeout-off" });
      expect(result).toMatchObject({ status: "failed" });
      expect(result.error).toContain("stopped after 1500 ms");
      expect(beats("timeout-off")).toBeGreaterThan(0);
      expect(await stopped("timeout-off")).toBe(true);
    } finally {
      await runtime.close();
    }
  }, 120_000);

  it("dies with a host that is killed during its call", async () => {
    // Isolated shell commands and util-linux setpriv are there on this project's CI machine (as for test/runtime/shell-isolation.test.ts).
    const probe = await probeShellIsolation();
    expect(probe.available && probe.tools.setpriv, JSON.stringify(probe)).toBeTruthy();
    const runtimeModule = path.resolve(import.meta.dirname, "..", "..", "runtime-min", "index.ts");
    const host = path.join(agent.root, "host.ts");
    fs.writeFileSync(
      host,
      `import { openRuntime } from ${JSON.stringify(runtimeModule)};
const runtime = await openRuntime({ root: process.cwd() });
await runtime.call({ tool: "shell_background", input: { command: ${JSON.stringify(LOOP)}, hang: true }, runId: "host-killed" });
`,
    );
    const child = spawn(process.execPath, ["--import", path.join(import.meta.dirname, "helpers", "ts-loader.mjs"), host], { cwd: agent.root, stdio: "ignore" });
    for (let waited = 0; beats("host-killed") === 0 && waited < 60_000; waited += 50) await sleep(50);
    expect(beats("host-killed")).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(await stopped("host-killed")).toBe(true);
  }, 120_000);
});

describe("many shell commands at once", () => {
  it(`a call runs at most ${SHELL_COMMANDS_AT_ONCE} at a time; the others wait their turn, and all run (helper-65 E5: one process tree per command)`, async () => {
    const runtime = await openRuntime({ root: agent.root });
    try {
      const command = "echo start >> log.txt; sleep 0.3; echo end >> log.txt";
      const result = await runtime.call({ tool: "shell_parallel", input: { command, count: 12 }, runId: "parallel" });
      expect(result, result.error).toMatchObject({ status: "ok", output: { exitCodes: Array(12).fill(0) } });
      const log = fs.readFileSync(path.join(agent.root, ".assemblyline", "runs", "parallel", "workspace", "log.txt"), "utf8").trim().split("\n");
      expect(log.filter((line) => line === "start")).toHaveLength(12);
      let running = 0;
      let most = 0;
      for (const line of log) {
        running += line === "start" ? 1 : -1;
        most = Math.max(most, running);
      }
      expect(most).toBeLessThanOrEqual(SHELL_COMMANDS_AT_ONCE);
      expect(most).toBeGreaterThan(1);
    } finally {
      await runtime.close();
    }
  }, 120_000);
});

/**
 * How a call starts (issue 14 item 3; docs/performance.md): the sandbox process of a call that
 * will run its tool starts before the input check, so it boots while the host checks (and loads
 * ajv, which the runtime loads with the first check, not when it opens). The checks, their
 * order and their results are unchanged; a call refused by them leaves the started process
 * warm for its run, and closing the runtime ends it. And how it ends: an idle process is killed
 * at once when its worker closes, without waiting for it to see the doorbell close, so a
 * one-shot `call` does not wait for the child's own exit. And the call a host announces
 * (`RuntimeOptions.firstCall`, which the CLI's `call` passes): `openRuntime` starts its process
 * before it loads SQLite and opens the state database, under the rule the call itself applies.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { runCallCommand } from "../../cli/commands/runtime-commands.js";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { AuthoredExecutor } from "../../runtime-min/execution/execute-authored.js";
import { InputValidator } from "../../runtime-min/execution/validate-input.js";
import { prepareChildSource } from "../../runtime-min/sandbox/child-script.js";
import { SandboxWorker } from "../../runtime-min/sandbox/sandbox-worker.js";
import { WorkerPool } from "../../runtime-min/sandbox/worker-pool.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { seedTools } from "../helpers/support-agent.js";
import { repoRoot } from "../helpers/temp-tree.js";
import { deriveIdempotencyKey } from "../../runtime-min/sandbox/tool-context.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { alive } from "./helpers/sandbox-processes.js";

// Run from sources, the entry's text is bundled on first use, which a start then awaits; from
// dist/ it is read at once (test/runtime/child-script.test.ts). Bundled here first, every start
// below finds it known, as a built host does.
beforeAll(async () => {
  await prepareChildSource();
}, 60_000);

let agent: AgentFixture | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await runtime?.close();
  runtime = undefined;
  agent?.cleanup();
  agent = undefined;
});

/** Records, in order, each sandbox acquisition, each sandbox process's spawn, each return from a prewarm, each opening of a state store and each input check of the runtime. */
function recordSteps(): { steps: string[]; started: SandboxWorker[] } {
  const steps: string[] = [];
  const started: SandboxWorker[] = [];
  const acquire = WorkerPool.prototype.acquire;
  vi.spyOn(WorkerPool.prototype, "acquire").mockImplementation(function (this: WorkerPool, ...args: Parameters<WorkerPool["acquire"]>) {
    steps.push(`acquire ${args[0].runId}`);
    return acquire.apply(this, args);
  });
  const validate = InputValidator.prototype.validate;
  vi.spyOn(InputValidator.prototype, "validate").mockImplementation(function (this: InputValidator, ...args: Parameters<InputValidator["validate"]>) {
    steps.push("validate");
    return validate.apply(this, args);
  });
  const prewarm = AuthoredExecutor.prototype.prewarm;
  vi.spyOn(AuthoredExecutor.prototype, "prewarm").mockImplementation(function (this: AuthoredExecutor, ...args: Parameters<AuthoredExecutor["prewarm"]>) {
    prewarm.apply(this, args);
    steps.push("prewarm returned");
  });
  const open = StateStore.open.bind(StateStore);
  vi.spyOn(StateStore, "open").mockImplementation((...args: Parameters<typeof StateStore.open>) => {
    steps.push("open state store");
    return open(...args);
  });
  const start = SandboxWorker.start.bind(SandboxWorker);
  vi.spyOn(SandboxWorker, "start").mockImplementation(async (options) => {
    steps.push("spawn");
    const worker = await start(options);
    started.push(worker);
    return worker;
  });
  return { steps, started };
}

describe("a call's start", () => {
  it("starts the tool's sandbox process before the input check; a refused input keeps its words and the next call of the run uses that process", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordSteps();
    runtime = await openRuntime({ root: agent.root });
    const refused = await runtime.call({ tool: "echo", input: { message: 3 }, runId: "run-a" });
    expect(refused).toMatchObject({ status: "failed", failure: { kind: "invalid_input", runCanContinue: true } });
    expect(refused.status === "failed" && refused.error).toBe("Input for tool 'echo' does not match its inputSchema: `message` must be a string, but it is a number.");
    // The spawn itself comes before the check, in the caller's turn: the entry's text is known
    // (read once per process), so the spawn does not wait for the host to finish loading ajv.
    expect(steps).toEqual(["open state store", "acquire run-a", "spawn", "prewarm returned", "validate"]);
    const ok = await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-a" });
    expect(ok).toMatchObject({ status: "ok", output: { message: "hi" } });
    // One process for the run: the one the refused call started.
    expect(started).toHaveLength(1);
    const pid = started[0]!.pid!;
    expect(alive(pid)).toBe(true);
    await runtime.close();
    runtime = undefined;
    expect(started[0]!.alive).toBe(false);
  }, 60_000);

  it("starts no sandbox process for a call that will not run its tool now (unknown tool, a gate asking for approval)", async () => {
    agent = await createAgent([{ name: "record_note", file: seedTools.recordNote }]);
    const { steps } = recordSteps();
    runtime = await openRuntime({ root: agent.root });
    expect(await runtime.call({ tool: "no_such_tool", input: {}, runId: "run-b" })).toMatchObject({ status: "failed", failure: { kind: "invalid_input" } });
    expect(await runtime.call({ tool: "record_note", input: { note: "x" }, runId: "run-b" })).toMatchObject({ status: "approval_required" });
    expect(steps.filter((step) => step.startsWith("acquire"))).toEqual([]);
  }, 60_000);
});

describe("the call a host announces (firstCall)", () => {
  it("starts its sandbox process before the state store opens, and the call joins that process", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordSteps();
    runtime = await openRuntime({ root: agent.root, firstCall: { tool: "echo", runId: "run-a" } });
    expect(steps).toEqual(["acquire run-a", "spawn", "prewarm returned", "open state store"]);
    const result = await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-a" });
    expect(result).toMatchObject({ status: "ok", output: { message: "hi" }, runId: "run-a" });
    // No second start: the call found the announced one, warm or still starting.
    expect(steps.filter((step) => step.startsWith("acquire") || step === "spawn")).toEqual(["acquire run-a", "spawn"]);
    expect(started).toHaveLength(1);
  }, 60_000);

  it("starts nothing for a call that would not run its tool now, and the call answers as it would unannounced", async () => {
    agent = await createAgent([
      { name: "echo", file: seedTools.echo },
      { name: "record_note", file: seedTools.recordNote },
      { name: "search", file: "search.ts", factory: "createSearchTool", config: { limit: 20, index: "products" }, requiredConfig: ["SEARCH_API_URL"] },
    ]);
    const { steps } = recordSteps();
    const announced: { tool: string; runId: string; surface?: string }[] = [
      { tool: "no_such_tool", runId: "run-b" },
      { tool: "record_note", runId: "run-b" },
      { tool: "search", runId: "run-b" },
      { tool: "echo", runId: "run-b", surface: "subagents/nobody" },
      { tool: "echo", runId: "../run-b" },
    ];
    for (const firstCall of announced) {
      const plain = await openRuntime({ root: agent.root });
      const expected = await plain.call({ tool: firstCall.tool, input: { message: "hi" }, runId: firstCall.runId, ...(firstCall.surface ? { surface: firstCall.surface } : {}) }).catch((error: Error) => error.message);
      await plain.close();
      steps.length = 0;
      runtime = await openRuntime({ root: agent.root, firstCall });
      expect(steps, JSON.stringify(firstCall)).toEqual(["open state store"]);
      const actual = await runtime.call({ tool: firstCall.tool, input: { message: "hi" }, runId: firstCall.runId, ...(firstCall.surface ? { surface: firstCall.surface } : {}) }).catch((error: Error) => error.message);
      // Same outcome; generated call ids and events' times aside.
      expect(typeof actual === "string" ? actual : actual.status, JSON.stringify(firstCall)).toEqual(typeof expected === "string" ? expected : expected.status);
      expect(steps.filter((step) => step.startsWith("acquire")), JSON.stringify(firstCall)).toEqual([]);
      await runtime.close();
      runtime = undefined;
    }
  }, 120_000);

  it("is what the CLI's call passes: with a generated run id or --run, the process starts before the state store opens", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordSteps();
    for (const run of [undefined, "run-cli"]) {
      steps.length = 0;
      const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"cli"}', ...(run === undefined ? {} : { run }), format: "json" });
      expect(output.exitCode).toBe(0);
      const result = JSON.parse(output.stdout) as { status: string; runId: string; output: unknown };
      expect(result).toMatchObject({ status: "ok", output: { message: "cli" } });
      if (run !== undefined) expect(result.runId).toBe(run);
      // The call's own prewarm then finds that process: no second acquisition.
      expect(steps.filter((step) => step !== "validate")).toEqual([`acquire ${result.runId}`, "spawn", "prewarm returned", "open state store", "prewarm returned"]);
    }
    expect(started).toHaveLength(2);
    expect(started.every((worker) => !worker.alive)).toBe(true);
  }, 60_000);

  it("starts nothing when the announced run's workspace cannot be made: openRuntime opens, and the call reports its own failure", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    // A file where the run's folder goes.
    fs.mkdirSync(path.join(agent.root, ".assemblyline", "runs"), { recursive: true });
    fs.writeFileSync(path.join(agent.root, ".assemblyline", "runs", "run-f"), "");
    const { steps } = recordSteps();
    runtime = await openRuntime({ root: agent.root, firstCall: { tool: "echo", runId: "run-f" } });
    expect(steps).toEqual(["open state store"]);
    await expect(runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-f" })).rejects.toThrow();
    expect(await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-g" })).toMatchObject({ status: "ok" });
  }, 60_000);

  it("a bad --call is refused before the runtime opens: no workspace for the generated run", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"cli"}', call: "../bad", format: "json" });
    expect(output.exitCode).toBe(2);
    expect(JSON.parse(output.stdout)).toMatchObject({ status: "failed", diagnostics: [{ code: "AL8022" }] });
    expect(fs.existsSync(path.join(agent.root, ".assemblyline", "runs"))).toBe(false);
  }, 60_000);

  it("ends the started process when the state database cannot be opened, and reports the database's failure", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const stateDb = path.join(agent.root, ".assemblyline", "state.db");
    fs.mkdirSync(path.dirname(stateDb), { recursive: true });
    fs.writeFileSync(stateDb, "");
    const { steps, started } = recordSteps();
    await expect(openRuntime({ root: agent.root, firstCall: { tool: "echo", runId: "run-a" } })).rejects.toThrow(/is empty \(0 bytes\)/);
    expect(steps).toEqual(["acquire run-a", "spawn", "prewarm returned", "open state store"]);
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(false);
    expect(alive(started[0]!.pid!)).toBe(false);
  }, 60_000);
});

describe("what a start loads", () => {
  it("importing the runtime does not load SQLite; opening its state store does (so a firstCall's process starts first)", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const runtimeModule = pathToFileURL(path.join(repoRoot, "dist", "runtime-min", "index.js")).href;
    const script = `
      import { createRequire } from "node:module";
      const cache = createRequire(import.meta.url).cache;
      const sqlite = () => Object.keys(cache).some((file) => file.includes("/node_modules/better-sqlite3/"));
      const { openRuntime } = await import(${JSON.stringify(runtimeModule)});
      const afterImport = sqlite();
      const runtime = await openRuntime({ root: process.argv[1], shellIsolation: "off" });
      const afterOpen = sqlite();
      await runtime.close();
      console.log(JSON.stringify({ afterImport, afterOpen }));`;
    // The built runtime (npm test builds first), in a process of its own: this one has loaded SQLite already.
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script, agent.root], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ afterImport: false, afterOpen: true });
  }, 60_000);

  it("the sandbox process loads node:crypto only for the tool's first idempotency key", async () => {
    agent = await createAgent([{ name: "module_list", file: "module-list.ts" }]);
    runtime = await openRuntime({ root: agent.root });
    const result = await runtime.call({ tool: "module_list", input: {}, runId: "run-m", callId: "call-m" });
    expect(result).toMatchObject({ status: "ok", output: { before: false, after: true, key: deriveIdempotencyKey("run-m", "call-m", "once") } });
  }, 60_000);
});

describe("closing a sandbox worker", () => {
  it("kills an idle child at once, even one that could not see the doorbell close (stopped), and resolves once it exited", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { started } = recordSteps();
    runtime = await openRuntime({ root: agent.root });
    expect(await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-a" })).toMatchObject({ status: "ok" });
    const [worker] = started;
    const pid = worker!.pid!;
    // The launcher's group, the Node child with it: none of them runs until a signal ends them.
    process.kill(-pid, "SIGSTOP");
    // A grace period longer than the test's timeout: only a kill at once lets this resolve.
    await worker!.close(120_000);
    expect(worker!.alive).toBe(false);
    expect(alive(pid)).toBe(false);
  }, 20_000);
});

/**
 * How a call starts (issue 14 item 3; docs/performance.md): the sandbox process of a call that
 * will run its tool starts before the input check, so it boots while the host checks (and loads
 * ajv, which the runtime loads with the first check, not when it opens). The checks, their
 * order and their results are unchanged; a call refused by them leaves the started process
 * warm for its run, and closing the runtime ends it. With `firstCall` (the `call` command),
 * the process starts earlier still: before the runtime opens state.db.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCallCommand } from "../../cli/commands/runtime-commands.js";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { ControlPlaneError } from "../../runtime-min/failures.js";
import { StateStore } from "../../runtime-min/state/state-store.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { InputValidator } from "../../runtime-min/execution/validate-input.js";
import { SandboxWorker } from "../../runtime-min/sandbox/sandbox-worker.js";
import { WorkerPool } from "../../runtime-min/sandbox/worker-pool.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { alive } from "./helpers/sandbox-processes.js";

let agent: AgentFixture | undefined;
let runtime: Runtime | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await runtime?.close();
  runtime = undefined;
  agent?.cleanup();
  agent = undefined;
});

/** Records, in order, each sandbox acquisition and each input check of the runtime. */
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
  const start = SandboxWorker.start.bind(SandboxWorker);
  vi.spyOn(SandboxWorker, "start").mockImplementation(async (options) => {
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
    expect(steps).toEqual(["acquire run-a", "validate"]);
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

/**
 * Records, in order, each sandbox start (when it begins, before the process is ready) and each
 * opening of a state database; `started` collects the workers once they are ready.
 */
function recordOpenSteps(): { steps: string[]; started: SandboxWorker[] } {
  const steps: string[] = [];
  const started: SandboxWorker[] = [];
  const start = SandboxWorker.start.bind(SandboxWorker);
  vi.spyOn(SandboxWorker, "start").mockImplementation(async (options) => {
    steps.push(`start ${path.basename(path.dirname(options.workspace))}`);
    const worker = await start(options);
    started.push(worker);
    return worker;
  });
  const open = StateStore.open.bind(StateStore);
  vi.spyOn(StateStore, "open").mockImplementation((...args: Parameters<typeof StateStore.open>) => {
    steps.push("open state.db");
    return open(...args);
  });
  return { steps, started };
}

describe("the first call's start (RuntimeOptions.firstCall)", () => {
  it("starts the first call's sandbox process before state.db is opened, and the call uses that process", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordOpenSteps();
    runtime = await openRuntime({ root: agent.root, firstCall: { tool: "echo", runId: "run-first" } });
    expect(steps).toEqual(["start run-first", "open state.db"]);
    const ok = await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-first" });
    expect(ok).toMatchObject({ status: "ok", output: { message: "hi" }, runId: "run-first" });
    expect(steps).toEqual(["start run-first", "open state.db"]);
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(true);
    await runtime.close();
    runtime = undefined;
    expect(started[0]!.alive).toBe(false);
  }, 60_000);

  it("the `call` command names the run before the runtime opens, so the process starts before state.db", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordOpenSteps();
    const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"cli"}', format: "json" });
    expect(output.exitCode, output.stdout + output.stderr).toBe(0);
    const result = JSON.parse(output.stdout) as { status: string; output: unknown; runId: string };
    expect(result).toMatchObject({ status: "ok", output: { message: "cli" } });
    expect(result.runId).toMatch(/^run_[0-9a-f]{36}$/);
    expect(steps).toEqual([`start ${result.runId}`, "open state.db"]);
    // The command closed its runtime: the process it started has ended.
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(false);
  }, 60_000);

  it("starts nothing early for a call that would not start its process now (approval gate, missing host config, unknown tool or surface, bad run id, direct)", async () => {
    agent = await createAgent([
      { name: "echo", file: seedTools.echo },
      { name: "record_note", file: seedTools.recordNote },
      { name: "configured", file: seedTools.echo, requiredConfig: ["API_BASE"] },
    ]);
    const { steps } = recordOpenSteps();
    const hints = [
      { tool: "record_note", runId: "run-gate" },
      { tool: "configured", runId: "run-config" },
      { tool: "no_such_tool", runId: "run-unknown" },
      { tool: "echo", surface: "subagents/none", runId: "run-surface" },
      { tool: "echo", runId: "../escape" },
    ];
    for (const firstCall of hints) {
      const opened = await openRuntime({ root: agent.root, firstCall });
      await opened.close();
    }
    const direct = await openRuntime({ root: agent.root, execution: "direct", firstCall: { tool: "echo", runId: "run-direct" } });
    await direct.close();
    expect(steps.filter((step) => step.startsWith("start"))).toEqual([]);
    expect(fs.existsSync(path.join(agent.root, ".assemblyline", "runs"))).toBe(false);
  }, 60_000);

  it("when state.db cannot be opened, the started process ends and the new run's folder is removed", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps, started } = recordOpenSteps();
    vi.mocked(StateStore.open).mockImplementation(() => {
      steps.push("open state.db");
      throw new ControlPlaneError("state_store_failure", "state.db is unavailable (test)");
    });
    await expect(openRuntime({ root: agent.root, firstCall: { tool: "echo", runId: "run-lost" } })).rejects.toThrow("state.db is unavailable (test)");
    expect(steps).toEqual(["start run-lost", "open state.db"]);
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(false);
    expect(fs.existsSync(path.join(agent.root, ".assemblyline", "runs", "run-lost"))).toBe(false);
  }, 60_000);
});

/** Opens and closes a runtime once, as a first host command does: the verified bundle copies exist afterwards. */
async function loadOnce(root: string): Promise<void> {
  await (await openRuntime({ root })).close();
}

describe("the `call` command's early start (runtime-min/execution/first-call-sandbox.ts)", () => {
  it("starts the sandbox process before the artifact check, and openRuntime adopts it", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await loadOnce(agent.root);
    const { steps, started } = recordOpenSteps();
    const ensureArtifact = async (): Promise<never[]> => {
      steps.push("artifact check");
      return [];
    };
    const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"early"}', format: "json" }, { ensureArtifact });
    expect(output.exitCode, output.stdout + output.stderr).toBe(0);
    const result = JSON.parse(output.stdout) as { runId: string };
    expect(result).toMatchObject({ status: "ok", output: { message: "early" } });
    expect(steps).toEqual([`start ${result.runId}`, "artifact check", "open state.db"]);
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(false);
  }, 60_000);

  it("a check that changes the tool's bundle: the early process ends unused, and the call runs the new bundle in a process of its own", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const other = await createAgent([{ name: "echo", file: "search.ts", factory: "createSearchTool", config: { limit: 2, index: "other" } }]);
    await loadOnce(agent.root);
    try {
      const { steps, started } = recordOpenSteps();
      const target = agent;
      const ensureArtifact = async (): Promise<never[]> => {
        steps.push("artifact check");
        // What a recompile that changes the tool leaves: another lock and artifact.
        fs.rmSync(target.artifactDir, { recursive: true, force: true });
        fs.cpSync(other.artifactDir, target.artifactDir, { recursive: true });
        fs.copyFileSync(other.lockFile, target.lockFile);
        return [];
      };
      const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"query":"q"}', format: "json" }, { ensureArtifact });
      expect(output.exitCode, output.stdout + output.stderr).toBe(0);
      const result = JSON.parse(output.stdout) as { runId: string };
      expect(result).toMatchObject({ status: "ok", output: { factoryConfig: { limit: 2, index: "other" }, query: "q" } });
      expect(steps).toEqual([`start ${result.runId}`, "artifact check", `start ${result.runId}`, "open state.db"]);
      expect(started).toHaveLength(2);
      expect(started.map((worker) => worker.alive)).toEqual([false, false]);
    } finally {
      other.cleanup();
    }
  }, 60_000);

  it("a failed artifact check: the early process ends and the run folder made for it is removed", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await loadOnce(agent.root);
    const { steps, started } = recordOpenSteps();
    const ensureArtifact = async () => {
      steps.push("artifact check");
      return [createDiagnostic(Diagnostics.ArtifactMissing, { file: "agent.md", line: 1, column: 1 }, [".assemblyline/build"])];
    };
    const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"x"}', format: "json" }, { ensureArtifact });
    expect(output.exitCode).toBe(1);
    expect(steps).toHaveLength(2);
    expect(steps[1]).toBe("artifact check");
    expect(steps[0]).toMatch(/^start run_/);
    expect(started).toHaveLength(1);
    expect(started[0]!.alive).toBe(false);
    expect(fs.existsSync(path.join(agent.root, ".assemblyline", "runs")) ? fs.readdirSync(path.join(agent.root, ".assemblyline", "runs")) : []).toEqual([]);
  }, 60_000);

  it("starts nothing before the artifact check when the bundle has no verified copy yet (the first host process after a compile)", async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const { steps } = recordOpenSteps();
    const ensureArtifact = async (): Promise<never[]> => {
      steps.push("artifact check");
      return [];
    };
    const output = await runCallCommand({ tool: "echo", root: agent.root, input: '{"message":"late"}', format: "json" }, { ensureArtifact });
    expect(output.exitCode, output.stdout + output.stderr).toBe(0);
    const result = JSON.parse(output.stdout) as { runId: string };
    expect(steps).toEqual(["artifact check", `start ${result.runId}`, "open state.db"]);
  }, 60_000);
});

/**
 * The sandbox boundary (issue 4 item 4): separate warm processes, an allowlisted environment
 * with no host secrets (checked in process.env, /proc/self/environ and from the host through
 * /proc/<pid>/environ), Node's permission model, the file-backed bridge with large payloads, a
 * killed sandbox, and `direct` execution in the host.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openRuntime, SANDBOX_ENV_ALLOWLIST, type Runtime } from "../../runtime-min/index.js";
import { EnvelopeBridge } from "../../runtime-min/sandbox/bridge.js";
import { MAX_CALL_SETUPS, type CallRequest } from "../../runtime-min/sandbox/protocol.js";
import { PAUSE_AFTER_IDLE_MS, SandboxWorker } from "../../runtime-min/sandbox/sandbox-worker.js";
import { deriveIdempotencyKey } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { sandboxPidsIn } from "./helpers/sandbox-processes.js";

const SECRET = "sk-live-5ecret-do-not-leak";
const probe = (name: string, factory = name, extra: object = {}) => ({ name, file: "probes.ts", factory, ...extra });
let agent: AgentFixture;
let runtime: Runtime;
const saved = { SECRET_TOKEN: process.env.SECRET_TOKEN, NODE_OPTIONS: process.env.NODE_OPTIONS, NODE_PROBE: process.env.NODE_PROBE };

beforeAll(async () => {
  process.env.SECRET_TOKEN = SECRET;
  process.env.NODE_OPTIONS = "--no-deprecation";
  process.env.NODE_PROBE = SECRET;
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    probe("env_probe", "envProbe"),
    probe("write_outside", "writeOutside"),
    probe("write_outside_uncaught", "writeOutsideUncaught"),
    probe("slow"),
    probe("big_file", "bigFile"),
    probe("emitter"),
    probe("keys"),
    probe("pid"),
    probe("forge_doorbell", "forgeDoorbell"),
    probe("config_probe", "configProbe"),
  ]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const workspaceOf = (runId: string) => fs.realpathSync(path.join(agent.root, ".assemblyline/runs", runId, "workspace"));

describe("sandbox environment", () => {
  it("hides host secrets and NODE_* variables from the tool, its shell and /proc", async () => {
    const result = await runtime.call({ tool: "env_probe", input: {}, runId: "env-run" });
    expect(result.status).toBe("ok");
    const seen = result.output as { pid: number; envKeys: string[]; secret: string | null; environ: string; shell: string; cwd: string; workspace: string; execArgv: string[] };
    expect(seen.pid).not.toBe(process.pid);
    expect(seen.secret).toBeNull();
    const allowed = new Set([...SANDBOX_ENV_ALLOWLIST, "HOME", "TMPDIR"]);
    expect(seen.envKeys.filter((key) => !allowed.has(key))).toEqual([]);
    // NODE_EXTRA_CA_CERTS is the one NODE_* variable kept (CA paths; sandbox-tls.test.ts).
    expect(seen.envKeys.some((key) => key.startsWith("NODE_") && key !== "NODE_EXTRA_CA_CERTS")).toBe(false);
    // Under the permission model /proc/self/environ is not readable at all; either way no secret.
    expect(seen.environ).not.toContain(SECRET);
    expect(seen.environ).not.toMatch(/(^|\n)NODE_(?!EXTRA_CA_CERTS=)/);
    expect(seen.shell).not.toContain(SECRET);
    expect(seen.shell).not.toMatch(/(^|\n)NODE_(?!EXTRA_CA_CERTS=)/);
    expect(seen.shell).toContain(`HOME=${workspaceOf("env-run")}`);
    expect(seen.cwd).toBe(workspaceOf("env-run"));
    expect(seen.workspace).toBe(workspaceOf("env-run"));
    // From the host: the live sandbox process's own environment block (the tool's own pid is 1,
    // in its PID namespace; the host finds it by its working directory).
    const [hostPid] = sandboxPidsIn(workspaceOf("env-run"));
    expect(hostPid).toBeDefined();
    const environ = fs.readFileSync(`/proc/${hostPid}/environ`, "utf8").split("\0").filter(Boolean);
    expect(environ.join("\n")).not.toContain(SECRET);
    expect(environ.filter((entry) => entry.startsWith("NODE_") && !entry.startsWith("NODE_EXTRA_CA_CERTS="))).toEqual([]);
    expect(environ.map((entry) => entry.slice(0, entry.indexOf("="))).filter((key) => !allowed.has(key))).toEqual([]);
    if (runtime.sandboxPermissionModel) {
      expect(seen.environ).toBe("unreadable: ERR_ACCESS_DENIED");
      expect(seen.execArgv.some((flag) => flag === "--permission" || flag === "--experimental-permission")).toBe(true);
    }
  });

  it("confines file writes to the run's workspace under the permission model", async () => {
    const outside = path.join(agent.root, "escaped.txt");
    const denied = await runtime.call({ tool: "write_outside", input: { target: outside }, runId: "fs-run" });
    const inside = await runtime.call({ tool: "write_outside", input: { target: "inside.txt" }, runId: "fs-run" });
    expect(inside.output).toEqual({ wrote: true, code: null });
    expect(fs.readFileSync(path.join(workspaceOf("fs-run"), "inside.txt"), "utf8")).toBe("escaped");
    if (runtime.sandboxPermissionModel) {
      expect(denied.output).toEqual({ wrote: false, code: "ERR_ACCESS_DENIED" });
      expect(fs.existsSync(outside)).toBe(false);
    }
  });

  it("says what the permission model refused, and where the rule is documented (helper-78 D8.6: Node's bare 'Access to this API has been restricted')", async () => {
    // Every Node this package supports (engines: >= 20.19) has the permission model, so the refusal is always there to word.
    expect(runtime.sandboxPermissionModel).toBe(true);
    const outside = path.join(agent.root, "escaped-uncaught.txt");
    const denied = await runtime.call({ tool: "write_outside_uncaught", input: { target: outside }, runId: "fs-run" });
    expect(denied).toMatchObject({ status: "failed", failure: { kind: "execution_error" } });
    expect(denied.error).toBe(
      `Access to this API has been restricted: the host's sandbox policy refused writing '${outside}' (FileSystemWrite). ` +
        `A sandboxed tool may write only in its run's workspace (ctx.getSandbox().workspace, its current folder); see "What a sandboxed tool may use" in docs/host-policy.md.`,
    );
    expect(fs.existsSync(outside)).toBe(false);
  });
});

describe("warm sandbox processes", () => {
  it("reuses one process per run and bundle, and never shares it across runs", async () => {
    const first = await runtime.call({ tool: "pid", input: {}, runId: "warm-a" });
    const second = await runtime.call({ tool: "pid", input: {}, runId: "warm-a" });
    const other = await runtime.call({ tool: "pid", input: {}, runId: "warm-b" });
    const instanceOf = (result: { output?: unknown }) => (result.output as { instance: string }).instance;
    expect(instanceOf(second)).toBe(instanceOf(first));
    expect(instanceOf(other)).not.toBe(instanceOf(first));
    expect(sandboxPidsIn(workspaceOf("warm-a"))).toHaveLength(1);
    expect(sandboxPidsIn(workspaceOf("warm-a"))).not.toContain(process.pid);
  });

  it("a warm process adds no event listeners per call (issue 14 item 2: ref/unref of its closed stdin leaked one per call)", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      // Node warns once 11 listeners of one event are on one emitter.
      for (let i = 0; i < 30; i++) expect((await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId: "listeners-run" })).status).toBe("ok");
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning").map((warning) => warning.message)).toEqual([]);
  });

  it("a stream of calls to a warm process arms the idle pause's timer once, not once per call (issue 14 item 2)", async () => {
    expect((await runtime.call({ tool: "echo", input: { message: "warm" }, runId: "pause-timer-run" })).status).toBe("ok");
    const timers = vi.spyOn(globalThis, "setTimeout");
    const started = performance.now();
    let delays: unknown[];
    try {
      for (let i = 0; i < 30; i++) expect((await runtime.call({ tool: "echo", input: { message: `m${i}` }, runId: "pause-timer-run" })).status).toBe("ok");
    } finally {
      delays = timers.mock.calls.map(([, delay]) => delay);
      timers.mockRestore();
    }
    const pauseTimers = delays.filter((delay) => delay === PAUSE_AFTER_IDLE_MS).length;
    // One timer per PAUSE_AFTER_IDLE_MS of calls at most (it fires and is armed again on a slow machine); per call, 30.
    expect(pauseTimers).toBeLessThanOrEqual(1 + Math.floor((performance.now() - started) / PAUSE_AFTER_IDLE_MS));
    expect(pauseTimers).toBeLessThan(30);
  });

  it("a sandbox killed mid-call fails that call as execution_error; the next call gets a fresh process", async () => {
    const runId = "kill-run";
    const pending = runtime.call({ tool: "slow", input: { ms: 120_000 }, runId, callId: "victim" });
    const pidFile = path.join(agent.root, ".assemblyline/runs", runId, "workspace/pid.txt");
    // The tool has started once it wrote its (namespace) pid; the host-side pid is found by cwd.
    await waitFor(() => (fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8") !== "" ? true : undefined));
    const [pid] = sandboxPidsIn(workspaceOf(runId));
    expect(pid).toBeDefined();
    expect(pid).not.toBe(process.pid);
    process.kill(pid!, "SIGKILL");
    const result = await pending;
    expect(result.status).toBe("failed");
    expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
    expect(result.error).toContain("The sandbox process was killed by SIGKILL before the call finished; no result was recorded.");
    expect(result.events.map((event) => event.type)).toEqual(["tool.execution_started", "tool.execution_failed"]);
    const next = await runtime.call({ tool: "slow", input: { ms: 1 }, runId, callId: "after" });
    expect(next.status).toBe("ok");
    expect(sandboxPidsIn(workspaceOf(runId))).not.toContain(pid);
  });

  it("a tool that forges a doorbell line is stopped; the host keeps running", async () => {
    const runId = "forge-run";
    const before = await runtime.call({ tool: "pid", input: {}, runId });
    const forged = await runtime.call({ tool: "forge_doorbell", input: {}, runId });
    expect(forged).toMatchObject({ status: "failed", failure: { kind: "execution_error", runCanContinue: true } });
    expect(forged.error).toContain("The sandbox process broke the bridge protocol (The bridge received a doorbell for '../../etc/passwd 10', which is not an envelope of the other side.) and was stopped");
    const after = await runtime.call({ tool: "pid", input: {}, runId });
    expect(after.status).toBe("ok");
    expect((after.output as { instance: string }).instance).not.toBe((before.output as { instance: string }).instance);
  });
});

describe("call setups", () => {
  it("sends a tool's unchanging call fields once per sandbox process; a new config object is sent again; both sides drop old setups in step (issue 14 item 2)", async () => {
    const published: { [key: string]: unknown }[] = [];
    const publish = EnvelopeBridge.prototype.publish;
    const publishSpy = vi.spyOn(EnvelopeBridge.prototype, "publish").mockImplementation(function (this: EnvelopeBridge, message, options) {
      if ((message as { kind?: unknown }).kind === "call") published.push(message as { [key: string]: unknown });
      return publish.call(this, message, options);
    });
    const requests = new Map<string, { worker: SandboxWorker; request: Omit<CallRequest, "kind" | "id"> }>();
    const call = SandboxWorker.prototype.call;
    const callSpy = vi.spyOn(SandboxWorker.prototype, "call").mockImplementation(function (this: SandboxWorker, request, handler) {
      requests.set(request.toolName, { worker: this, request });
      return call.call(this, request, handler);
    });
    try {
      const results = [];
      for (const [i, tool] of ["config_probe", "pid", "config_probe", "pid"].entries()) results.push(await runtime.call({ tool, input: {}, runId: "setup-run", callId: `s${i}` }));
      expect(results.map((result) => result.status)).toEqual(["ok", "ok", "ok", "ok"]);
      // One process serves both tools (one bundle); each tool's setup crossed with its first call only.
      expect(published.map((message) => [message.setup, "setupFields" in message])).toEqual([[1, true], [2, true], [1, false], [2, false]]);
      expect(published.every((message) => !("bundlePath" in message) && !("ctxConfig" in message))).toBe(true);
      expect(results[2]).toMatchObject({ output: { ctxConfig: {}, frozen: true, toolCallId: "s2" } });
      const { worker, request } = requests.get("config_probe")!;
      // A config that is not the same object is sent again, so the child always sees the host's.
      for (let i = 0; i < MAX_CALL_SETUPS + 8; i++) {
        const outcome = await worker.call({ ...request, toolCallId: `fresh${i}`, ctxConfig: { n: i } }, async () => undefined);
        expect(outcome).toEqual({ ok: true, output: { ctxConfig: { n: i }, frozen: true, toolCallId: `fresh${i}` }, modelOutput: { ctxConfig: { n: i }, frozen: true, toolCallId: `fresh${i}` } });
      }
      // The first setups were dropped on both sides meanwhile: naming them again sends them again.
      published.length = 0;
      expect(await runtime.call({ tool: "config_probe", input: {}, runId: "setup-run", callId: "s-again" })).toMatchObject({ status: "ok", output: { ctxConfig: {}, toolCallId: "s-again" } });
      expect(published.map((message) => "setupFields" in message)).toEqual([true]);
    } finally {
      publishSpy.mockRestore();
      callSpy.mockRestore();
    }
  });
});

describe("bridge", () => {
  it("moves an 8 MB file through ctx.getSandbox() intact", async () => {
    const bytes = 8 * 1024 * 1024;
    const result = await runtime.call({ tool: "big_file", input: { bytes }, runId: "big-run" });
    expect(result.status).toBe("ok");
    expect(result.output).toMatchObject({ length: bytes, same: true });
    expect(fs.statSync(path.join(workspaceOf("big-run"), "data/big.txt")).size).toBe(bytes);
  });

  it("records tool events, steps and runtime events in order, in the call result and in state.db", async () => {
    const result = await runtime.call({ tool: "emitter", input: {}, runId: "order-run", callId: "e1" });
    expect(result.output).toEqual({
      forged: "ctx.emit cannot record 'tool.execution_completed': event types starting with 'tool.' are recorded by the runtime itself. Use your own prefix, e.g. 'note.recorded'.",
    });
    const expected = [
      { type: "tool.execution_started", tool: "emitter", callId: "e1", surface: ".", runtimeBoundary: "sandbox" },
      { type: "probe.first", n: 1 },
      { type: "durable_step.recorded", tool: "emitter", callId: "e1", key: "probe-step" },
      { type: "probe.second", n: 2 },
      { type: "tool.execution_completed", tool: "emitter", callId: "e1" },
    ];
    expect(result.events).toEqual(expected);
    expect(runtime.events("order-run")).toEqual(expected);
  });
});

describe("ctx", () => {
  it("derives idempotency keys from run and call, and returns step results as their JSON round trip", async () => {
    const first = await runtime.call({ tool: "keys", input: {}, runId: "keys-run", callId: "k1" });
    const out = first.output as Record<string, unknown>;
    expect(out.a).toBe(deriveIdempotencyKey("keys-run", "k1", "a"));
    expect(out.again).toBe(out.a);
    expect(out.b).not.toBe(out.a);
    expect(out.runs).toBe(1);
    expect(out.first).toEqual({ at: "1970-01-01T00:00:00.000Z", nested: { kept: 1 } });
    expect(out.second).toEqual(out.first);
    expect(out.nothing).toBe("undefined");
    expect([out.runId, out.toolCallId]).toEqual(["keys-run", "k1"]);
    const retry = await runtime.call({ tool: "keys", input: {}, runId: "keys-run", callId: "k1" });
    expect((retry.output as Record<string, unknown>).a).toBe(out.a);
    expect((retry.output as Record<string, unknown>).runs).toBe(0);
    const another = await runtime.call({ tool: "keys", input: {}, runId: "keys-run", callId: "k2" });
    expect((another.output as Record<string, unknown>).a).not.toBe(out.a);
  });
});

describe("direct execution", () => {
  it("runs reviewed bundles in the host and reports runtimeBoundary host", async () => {
    const direct = await openRuntime({ root: agent.root, execution: "direct" });
    try {
      const echo = await direct.call({ tool: "echo", input: { message: "hi" }, callId: "d1" });
      expect(echo.output).toEqual({ message: "hi" });
      expect(echo.events[0]).toEqual({ type: "tool.execution_started", tool: "echo", callId: "d1", surface: ".", runtimeBoundary: "host" });
      const pid = await direct.call({ tool: "pid", input: {} });
      expect((pid.output as { pid: number }).pid).toBe(process.pid);
      const keys = await direct.call({ tool: "keys", input: {}, runId: "direct-keys", callId: "k1" });
      expect((keys.output as Record<string, unknown>).a).toBe(deriveIdempotencyKey("direct-keys", "k1", "a"));
    } finally {
      await direct.close();
    }
  });
});

async function waitFor<T>(probeValue: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = probeValue();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a Node without the permission model", () => {
  it("warns AL8030 that sandboxes run without file-system restrictions", async () => {
    // Node 20.19+ always has the permission model, so the test hides its flags the way an older
    // Node would not list them (detectPermissionSupport reads allowedNodeEnvironmentFlags).
    const real = Object.getOwnPropertyDescriptor(process, "allowedNodeEnvironmentFlags")!;
    const flags = new Set([...process.allowedNodeEnvironmentFlags].filter((flag) => !flag.includes("permission")));
    Object.defineProperty(process, "allowedNodeEnvironmentFlags", { value: flags, configurable: true });
    let old: Runtime | undefined;
    try {
      old = await openRuntime({ root: agent.root });
    } finally {
      Object.defineProperty(process, "allowedNodeEnvironmentFlags", real);
    }
    try {
      expect(old.sandboxPermissionModel).toBe(false);
      expect(old.warnings.filter((warning) => warning.code === "AL8030")).toMatchObject([
        { severity: "warning", message: `Node ${process.version} has no permission model, so sandbox processes run without file-system restrictions.` },
      ]);
      expect(runtime.warnings.map((warning) => warning.code)).not.toContain("AL8030");
    } finally {
      await old.close();
    }
  });
});

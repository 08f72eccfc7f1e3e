/**
 * Issue 12: a sandboxed tool cannot touch its host, and every call ends. Each test first shows
 * the break it guards against where that can be shown safely (the unhardened launch through
 * `setSandboxLaunchTools`), then the hardened behaviour: a tool that signals the host, its
 * process group or PID 1; a killed host whose busy child is gone; an endless loop ended by the
 * deadline (API and `call --deadline`); memory, result and event limits; network "none".
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime, type RuntimeOptions } from "../../runtime-min/index.js";
import { DEFAULT_HOST_LIMITS } from "../../runtime-min/host-limits.js";
import { probeProcessIsolation, sandboxLaunch, setSandboxLaunchTools } from "../../runtime-min/sandbox/process-isolation.js";
import { LINK_GUARD_SCRIPT } from "../../runtime-min/sandbox/link-guard.js";
import { tempDir } from "../helpers/temp-tree.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";
import { runSourceCli, sourceCliArgs } from "./helpers/run-source-cli.js";
import { alive, descendantsOf, pollFor, sandboxPidsIn } from "./helpers/sandbox-processes.js";

const hostile = (name: string, factory: string) => ({ name, file: "hostile.ts", factory });
let agent: AgentFixture;
const opened: Runtime[] = [];

beforeAll(async () => {
  agent = await createAgent([
    { name: "echo", file: seedTools.echo },
    hostile("signaller", "signaller"),
    hostile("spin", "spin"),
    hostile("hang", "hang"),
    hostile("hog", "hog"),
    hostile("buffer_hog", "bufferHog"),
    hostile("big_result", "bigResult"),
    { name: "big_result", file: "hostile.ts", factory: "bigResult", surface: "subagents/researcher" },
    hostile("big_event", "bigEvent"),
    hostile("connect", "connect"),
    hostile("whoami", "whoami"),
  ]);
});

afterAll(async () => {
  setSandboxLaunchTools(undefined);
  for (const runtime of opened) await runtime.close();
  agent?.cleanup();
});

async function open(options: Omit<RuntimeOptions, "root"> = {}): Promise<Runtime> {
  const runtime = await openRuntime({ root: agent.root, ...options });
  opened.push(runtime);
  return runtime;
}

const workspaceOf = (runId: string) => path.join(agent.root, ".assemblyline/runs", runId, "workspace");

describe("a sandboxed tool cannot reach its host's processes", () => {
  it("reproduction: launched as before this hardening, a tool can signal the host process", async () => {
    setSandboxLaunchTools({ setpriv: undefined, unshare: undefined, prlimit: undefined });
    try {
      const runtime = await open();
      // Signal 0 only checks that the host could be signalled (SIGKILL would end this test run).
      const result = await runtime.call({ tool: "signaller", input: { target: process.pid, signal: 0 } });
      expect(result.output).toMatchObject({ sent: true });
      expect(runtime.warnings.map((warning) => warning.code)).toContain("AL8060");
      // Without a mount namespace no socket folder is hidden either (helper-89 finding 2).
      expect(runtime.warnings.find((warning) => warning.code === "AL8060")?.message).toContain("connect to every Unix socket the host user may");
    } finally {
      setSandboxLaunchTools(undefined);
    }
  });

  it("says the socket folders are not hidden when the namespaces come without the link guard (AL8063)", async () => {
    const { setpriv, unshare, prlimit } = (await probeProcessIsolation()).tools;
    expect(unshare).toBeDefined();
    expect((await open()).warnings.map((warning) => warning.code)).not.toContain("AL8063");
    setSandboxLaunchTools({ setpriv, unshare, prlimit });
    try {
      const warnings = (await open()).warnings;
      expect(warnings.map((warning) => warning.code)).not.toContain("AL8060");
      expect(warnings.find((warning) => warning.code === "AL8063")?.message).toMatch(/^Sandbox processes run without their link guard on this host \(.+\), so an authored tool's process connects to every Unix socket the host user may, under network "none" too/);
    } finally {
      setSandboxLaunchTools(undefined);
    }
  });

  it("cannot signal the host process, PID 1 or anything outside its own PID namespace", async () => {
    const runtime = await open();
    expect(runtime.warnings.map((warning) => warning.code)).not.toContain("AL8060");
    const seen = await runtime.call({ tool: "whoami", input: {} });
    expect(seen.output).toEqual({ pid: 1, ppid: 0 });
    const host = await runtime.call({ tool: "signaller", input: { target: process.pid, signal: "SIGSTOP" } });
    expect(host.output).toMatchObject({ sent: false, code: "ESRCH" });
    // PID 1 is the tool's own process here, which ignores signals it has no handler for.
    const init = await runtime.call({ tool: "signaller", input: { target: "init", signal: "SIGKILL" } });
    expect(init.output).toMatchObject({ pid: 1, sent: true });
    const after = await runtime.call({ tool: "echo", input: { message: "still here" } });
    expect(after).toMatchObject({ status: "ok", output: { message: "still here" } });
  });

  it("`call` survives a tool that SIGKILLs or SIGSTOPs its parent and its process group", () => {
    for (const [target, signal] of [["parent", "SIGKILL"], ["parent", "SIGSTOP"], ["group", "SIGKILL"]]) {
      const run = runSourceCli("call", "signaller", agent.root, "--input", JSON.stringify({ target, signal }), "--format", "json");
      // The host printed one JSON object and exited normally: the signal reached only the sandbox.
      expect(run.status, `${target} ${signal}: ${run.stderr}`).not.toBeNull();
      const result = JSON.parse(run.stdout) as { status: string; failure?: { kind: string } };
      expect(["ok", "failed"]).toContain(result.status);
      if (result.status === "failed") expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
    }
  });

  it("a killed host takes its busy sandbox child with it", async () => {
    const runId = "orphan-run";
    const host = spawn(process.execPath, sourceCliArgs(["call", "spin", agent.root, "--input", "{}", "--run", runId, "--format", "json"]), {
      stdio: "ignore",
    });
    const hostExited = new Promise((resolve) => host.once("exit", resolve));
    const [child] = await pollFor(() => {
      const found = fs.existsSync(workspaceOf(runId)) ? sandboxPidsIn(workspaceOf(runId)) : [];
      return found.length > 0 ? found : undefined;
    }, 60_000);
    const family = descendantsOf(host.pid!);
    expect(family).toContain(child);
    host.kill("SIGKILL");
    await hostExited;
    const killedAt = Date.now();
    await pollFor(() => (family.every((pid) => !alive(pid)) ? true : undefined), 10_000);
    // Measured for the closing note: the kernel's parent-death signal acts at once.
    console.info(`sandbox child gone ${Date.now() - killedAt} ms after its host was SIGKILLed`);
  });
});

describe("everything the sandbox runs is verified or not on disk", () => {
  it("no entry script is written, and one planted where it used to be is never run", async () => {
    // Before: `.assemblyline/sandbox/child-<hash>.mjs` ran in every sandbox child, so code
    // prepended to it ran with every call. Plant such a script: it must never run.
    const planted = path.join(agent.root, ".assemblyline/sandbox/child-0123456789abcdef.mjs");
    const marker = path.join(agent.root, "planted-ran.txt");
    fs.mkdirSync(path.dirname(planted), { recursive: true });
    fs.writeFileSync(planted, `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
    const runtime = await open();
    const result = await runtime.call({ tool: "echo", input: { message: "hi" }, runId: "entry-run" });
    expect(result.status).toBe("ok");
    expect(fs.existsSync(marker)).toBe(false);
    const [child] = sandboxPidsIn(workspaceOf("entry-run"));
    const argv = fs.readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0");
    // The script comes from stdin (`-`); no argument names a script file.
    expect(argv).toContain("--input-type=module");
    expect(argv).toContain("-");
    expect(argv.filter((arg) => !arg.startsWith("--") && (arg.endsWith(".mjs") || arg.endsWith(".js")))).toEqual([]);
  });
});

describe("every call ends", () => {
  it("the default deadline applies to every host (5 minutes unless set)", async () => {
    const runtime = await open();
    expect(runtime.limits).toEqual(DEFAULT_HOST_LIMITS);
    expect(DEFAULT_HOST_LIMITS.deadlineMs).toBe(300_000);
  });

  it("an endless loop is ended by the host's deadline as a control-plane failure", async () => {
    const runtime = await open({ deadlineMs: 1500 });
    const runId = "spin-run";
    const result = await runtime.call({ tool: "spin", input: {}, runId });
    expect(result.status).toBe("failed");
    expect(result.failure).toEqual({ kind: "control_plane", reason: "deadline_exceeded", runCanContinue: false });
    expect(result.error).toContain("The operation deadline of 1500 ms passed");
    expect(result.error).toContain("--deadline MS");
    await pollFor(() => (sandboxPidsIn(workspaceOf(runId)).length === 0 ? true : undefined), 10_000);
  });

  it("`call --deadline` ends a call that never resolves (exit 2, deadline_exceeded)", () => {
    const run = runSourceCli("call", "hang", agent.root, "--input", "{}", "--deadline", "1000", "--format", "json");
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "failed", failure: { kind: "control_plane", reason: "deadline_exceeded" } });
  });

  it("bad limits are refused up front (AL8062), on the API and the CLI", async () => {
    await expect(open({ deadlineMs: 0 })).rejects.toMatchObject({ code: "AL8062", message: expect.stringContaining("deadlineMs 0 is not valid") });
    await expect(open({ memoryMb: 1.5 })).rejects.toMatchObject({ code: "AL8062" });
    await expect(open({ network: "off" as never })).rejects.toMatchObject({ code: "AL8062", message: expect.stringContaining("host, none") });
    const run = runSourceCli("call", "echo", agent.root, "--input", "{}", "--deadline", "soon", "--format", "json");
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout).diagnostics[0]).toMatchObject({ code: "AL8062" });
    // A number out of range names the flag typed, with the runtime's range (new-user review: it named deadlineMs).
    const zero = runSourceCli("call", "echo", agent.root, "--input", "{}", "--deadline", "0", "--format", "json");
    expect(zero.status).toBe(2);
    expect(JSON.parse(zero.stdout).diagnostics[0]).toMatchObject({ code: "AL8062", message: "--deadline '0' is not valid: it must be a whole number of milliseconds from 1 to 2147483647." });
  });
});

describe("resource limits", () => {
  it("a tool over its memory limit fails with execution_error naming memoryMb", async () => {
    const runtime = await open({ memoryMb: 64 });
    const result = await runtime.call({ tool: "hog", input: {} });
    expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
    expect(result.error).toContain("limit of 64 MiB");
    expect(result.error).toContain("--memory-mb");
  });

  it.runIf(process.platform === "linux")("memory outside the heap (Buffers) is bounded too: the process's data size is 2 × memoryMb + 256 MiB (the link guard's ulimit -d, or prlimit), and the run goes on", async () => {
    // util-linux, like setpriv and unshare: the launch has it here.
    expect((await probeProcessIsolation()).tools.prlimit).toMatch(/\/prlimit$/);
    const runtime = await open({ memoryMb: 64 });
    const result = await runtime.call({ tool: "buffer_hog", input: {}, runId: "buffers" });
    expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
    // The allocation past the limit fails in the tool, or the process stops: either way the call ends.
    // A refused Buffer names the limit too (new-user trial 112, C9).
    expect(result.error).toMatch(/Array buffer allocation failed \(the sandbox process's memory is bounded by the host: 384 MiB in all for a JavaScript heap of 64 MiB, memoryMb; .*--memory-mb MB|limit of 64 MiB of JavaScript heap \(memoryMb; 384 MiB of memory in all\)/);
    expect(await runtime.call({ tool: "echo", input: { message: "after" }, runId: "buffers" })).toMatchObject({ status: "ok" });
  }, 60_000);

  it("a heap hog at 512 MiB still meets the heap limit first, not the data size (which at 512 + 256 MiB it sometimes met: SIGSEGV)", async () => {
    const runtime = await open({ memoryMb: 512 });
    const result = await runtime.call({ tool: "hog", input: {} });
    expect(result.failure).toEqual({ kind: "execution_error", runCanContinue: true });
    expect(result.error).toContain("limit of 512 MiB of JavaScript heap (memoryMb; 1280 MiB of memory in all)");
  }, 60_000);

  it("the launch puts prlimit innermost, right before the program, and only with a limit", () => {
    const tools = { setpriv: "/usr/bin/setpriv", unshare: "/usr/bin/unshare", prlimit: "/usr/bin/prlimit" };
    const launch = sandboxLaunch(tools, ["--flag", "-"], "host", "/usr/bin/node", 320);
    expect([launch.command, ...launch.args]).toEqual([
      "/usr/bin/setpriv", "--pdeathsig", "KILL", "--",
      "/usr/bin/unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child", "--",
      "/usr/bin/prlimit", `--data=${320 * 1024 * 1024}`, "--", "/usr/bin/node", "--flag", "-",
    ]);
    expect(sandboxLaunch(tools, ["-"], "host", "/usr/bin/node").args).not.toContain("/usr/bin/prlimit");
    expect(sandboxLaunch({ ...tools, prlimit: undefined }, ["-"], "host", "/usr/bin/node", 320).args).not.toContain("--data=335544320");
  });

  it("under the link guard its shell sets the data size (ulimit -d, KiB), and prlimit is not started", () => {
    const workspace = tempDir("al-guard-launch-");
    const tableDir = path.join(workspace, "bridge");
    fs.mkdirSync(tableDir, { mode: 0o700 });
    const tools = { setpriv: undefined, unshare: "/usr/bin/unshare", prlimit: "/usr/bin/prlimit", mount: "/usr/bin/mount" };
    const launch = sandboxLaunch(tools, ["-"], "host", "/usr/bin/node", 320, { workspace, keep: [], tableDir });
    expect(launch.args).not.toContain("/usr/bin/prlimit");
    const script = launch.args.indexOf(LINK_GUARD_SCRIPT);
    expect(launch.args.slice(script + 1, script + 7)).toEqual(["link-guard", "/usr/bin/mount", path.join(tableDir, ".link-guard", "fstab"), workspace, String(320 * 1024), "/usr/bin/node"]);
    expect(LINK_GUARD_SCRIPT).toContain('ulimit -d "$4"');
  });

  it("an oversized result is refused as execution_error naming maxResultBytes, in the sandbox and in direct mode", async () => {
    for (const execution of ["sandbox", "direct"] as const) {
      const runtime = await open({ maxResultBytes: 10_000, execution });
      const small = await runtime.call({ tool: "big_result", input: { bytes: 100 } });
      expect(small.status, execution).toBe("ok");
      const result = await runtime.call({ tool: "big_result", input: { bytes: 50_000 }, runId: `big-${execution}`, callId: "big" });
      expect(result.failure, execution).toEqual({ kind: "execution_error", runCanContinue: true });
      expect(result.error).toContain("over the host's limit of 10000 bytes (maxResultBytes)");
      expect(result.error).toContain("--max-result-bytes");
      expect(runtime.callRecord(`big-${execution}`, "big")?.output).toBeUndefined();
    }
  });

  it("the refusal of an oversized result names the file tool of the call's surface (helper-78 D8.5: root agents were sent to handoff_artifact)", async () => {
    for (const execution of ["sandbox", "direct"] as const) {
      const runtime = await open({ maxResultBytes: 10_000, execution });
      const root = await runtime.call({ tool: "big_result", input: { bytes: 50_000 }, runId: `big-root-${execution}` });
      expect(root.error, execution).toContain("the model reads it in parts with read; deliver_artifact gives it to the user)");
      expect(root.error, execution).not.toContain("handoff_artifact");
      const subagent = await runtime.call({ tool: "big_result", input: { bytes: 50_000 }, runId: `big-sub-${execution}`, surface: "subagents/researcher" });
      expect(subagent.failure, execution).toEqual({ kind: "execution_error", runCanContinue: true });
      expect(subagent.error, execution).toContain("the model reads it in parts with read; handoff_artifact hands it to the parent agent)");
      expect(subagent.error, execution).not.toContain("deliver_artifact");
    }
  });

  it("an oversized event is refused (the tool's emit rejects; nothing is recorded)", async () => {
    const runtime = await open({ maxEventBytes: 1000 });
    const result = await runtime.call({ tool: "big_event", input: { bytes: 5000 } });
    expect(result.output).toMatchObject({ emitted: false, error: expect.stringContaining("limit of 1000 bytes per event (maxEventBytes)") });
    expect(result.events.map((event) => event.type)).not.toContain("probe.big");
    const fine = await runtime.call({ tool: "big_event", input: { bytes: 10 } });
    expect(fine.output).toEqual({ emitted: true });
  });

  it("network \"none\" cuts sandboxed tools off the network; \"host\" does not", async () => {
    const server = net.createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      const shared = await open({ network: "host" });
      expect((await shared.call({ tool: "connect", input: { port } })).output).toEqual({ connected: true });
      const cut = await open({ network: "none" });
      expect((await cut.call({ tool: "connect", input: { port } })).output).toMatchObject({ connected: false });
    } finally {
      server.close();
    }
  });

  it("network \"none\" on a host that cannot enforce it refuses to open (AL8061)", async () => {
    setSandboxLaunchTools({ setpriv: undefined, unshare: undefined, prlimit: undefined });
    try {
      await expect(open({ network: "none" })).rejects.toMatchObject({ code: "AL8061" });
    } finally {
      setSandboxLaunchTools(undefined);
    }
  });
});

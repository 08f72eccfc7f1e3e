/**
 * Hostile tool code against the host past the sandbox's process isolation (helper-89's review of
 * the runtime): a setuid file planted in the workspace (finding 1), descriptors the host
 * inherited without close-on-exec (finding 3), Unix sockets by path (finding 2), shell commands
 * without process or memory limits (finding 8), and tool code that outlives its call (finding 5).
 * Real sandbox processes, namespaces and mounts, as this project's CI machine has them.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWorkspace, PRIVATE_FOLDER_MODE } from "../../runtime-min/execution/workspace.js";
import { processDataLimitMb } from "../../runtime-min/host-limits.js";
import { openRuntime } from "../../runtime-min/index.js";
import { SHELL_PROCESS_LIMIT } from "../../runtime-min/sandbox/shell-isolation.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;

beforeAll(async () => {
  agent = await createAgent([
    { name: "shell", file: "shell.ts", factory: "shell" },
    { name: "setuid", file: "escape.ts", factory: "setuid" },
    { name: "descriptor", file: "escape.ts", factory: "descriptor" },
    { name: "unix_socket", file: "escape.ts", factory: "unixSocket" },
    { name: "background", file: "escape.ts", factory: "background" },
  ]);
  // Temporary folders are made 0700; an agent root is usually a 0755 folder of a home or a checkout.
  fs.chmodSync(agent.root, 0o755);
  fs.chmodSync(path.join(agent.root, ".assemblyline"), 0o755);
}, 120_000);

afterAll(() => agent?.cleanup());

const modeOf = (file: string): number => fs.statSync(file).mode & 0o7777;
const runsDir = (): string => path.join(agent.root, ".assemblyline", "runs");
const isRoot = process.getuid?.() === 0;

describe("a setuid file a tool plants in its workspace (finding 1)", () => {
  it("makes runs/ and each run's folder 0700 whatever the umask, and tightens a looser one of ours", () => {
    const stateDir = path.join(tempDir("al-escape-"), ".assemblyline");
    fs.mkdirSync(path.join(stateDir, "runs", "old"), { recursive: true, mode: 0o755 });
    fs.chmodSync(path.join(stateDir, "runs"), 0o755);
    fs.chmodSync(path.join(stateDir, "runs", "old"), 0o777);
    const saved = process.umask(0o002);
    try {
      ensureWorkspace(stateDir, "old");
      ensureWorkspace(stateDir, "new");
    } finally {
      process.umask(saved);
    }
    expect(modeOf(path.join(stateDir, "runs"))).toBe(PRIVATE_FOLDER_MODE);
    expect(modeOf(path.join(stateDir, "runs", "old"))).toBe(PRIVATE_FOLDER_MODE);
    expect(modeOf(path.join(stateDir, "runs", "new"))).toBe(PRIVATE_FOLDER_MODE);
  });

  it.each([
    { via: "Node's chmod", tool: "setuid", input: { file: "planted" } },
    { via: "a shell's chmod 4755", tool: "shell", input: { command: "cp /bin/sh planted && chmod 4755 planted" } },
  ])("is out of every other user's reach ($via)", async ({ tool, input }) => {
    const runId = `suid-${tool}`;
    const runtime = await openRuntime({ root: agent.root });
    try {
      expect(await runtime.call({ tool, input, runId })).toMatchObject({ status: "ok" });
    } finally {
      await runtime.close();
    }
    const planted = path.join(runsDir(), runId, "workspace", "planted");
    // The bit is there (the host user's own file); what matters is that no one else reaches it.
    expect(modeOf(planted) & 0o4000).toBe(0o4000);
    expect(modeOf(runsDir())).toBe(PRIVATE_FOLDER_MODE);
    expect(modeOf(path.dirname(path.dirname(planted)))).toBe(PRIVATE_FOLDER_MODE);
    if (isRoot) {
      // As another user (nobody), which the review's file ran as euid 0. Through a shell of that
      // user: `setpriv` itself still holds root's capabilities when it execs its argument.
      const other = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c", '"$0" -c "id -u"', planted], { encoding: "utf8" });
      expect(other.stderr).toMatch(/Permission denied/);
      expect(other.status).toBe(126);
    }
  }, 60_000);
});

describe("a descriptor the host inherited without close-on-exec (finding 3)", () => {
  it("never reaches the tool's process or its shell: at its number they find an empty, read-only /dev/null", async () => {
    const secret = "host-only secret: TOPSECRET-100";
    const outside = path.join(tempDir("al-escape-fd-"), "outside.txt");
    fs.writeFileSync(outside, `${secret}\n`, { mode: 0o600 });
    const runtimeModule = path.resolve(import.meta.dirname, "..", "..", "runtime-min", "index.ts");
    const host = path.join(agent.root, "fd-host.ts");
    fs.writeFileSync(
      host,
      `import { openRuntime } from ${JSON.stringify(runtimeModule)};
const runtime = await openRuntime({ root: process.cwd() });
const result = await runtime.call({ tool: "descriptor", input: { fd: 100, text: "written-by-tool" }, runId: "fd" });
await runtime.close();
process.stdout.write(JSON.stringify(result));
`,
    );
    // The host holds the file at fd 100, read-write, without close-on-exec (spawn's dup2 drops the flag).
    const fd = fs.openSync(outside, "a+");
    let stdout = "";
    try {
      const stdio: ("ignore" | "pipe" | "inherit" | number)[] = ["ignore", "pipe", "inherit"];
      while (stdio.length < 100) stdio.push("ignore");
      stdio.push(fd);
      const child = spawn(process.execPath, ["--import", path.join(import.meta.dirname, "helpers", "ts-loader.mjs"), host], { cwd: agent.root, stdio });
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      expect(await new Promise((resolve) => child.on("exit", resolve))).toBe(0);
    } finally {
      fs.closeSync(fd);
    }
    const result = JSON.parse(stdout) as { status: string; output: Record<string, { ok?: boolean; value?: string; stdout?: string }> };
    expect(result.status).toBe("ok");
    expect(fs.readFileSync(outside, "utf8")).toBe(`${secret}\n`);
    expect(JSON.stringify(result.output)).not.toContain("TOPSECRET");
    expect(result.output.write).toMatchObject({ ok: false, code: "EBADF" });
    expect(result.output.shell?.stdout).toMatch(/100 -> \/dev\/null/);
  }, 120_000);
});

describe("a Unix socket of the host, by path (finding 2)", () => {
  const answer = "host service answered: SECRET=host-only-data";

  it.each(["none", "host"] as const)("is out of the tool's own process's reach and its shell's under network %j", async (network) => {
    // A host service in the host's /tmp, private to the host user (the folder 0700, the socket 0600).
    const folder = tempDir("al-escape-uds-");
    const socketPath = path.join(folder, "host.sock");
    const net = await import("node:net");
    const server = net.createServer((socket) => socket.end(`${answer}\n`));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    fs.chmodSync(socketPath, 0o600);
    const runtime = await openRuntime({ root: agent.root, network });
    try {
      const tool = await runtime.call({ tool: "unix_socket", input: { path: socketPath }, runId: `uds-${network}` });
      expect(tool.status, tool.error).toBe("ok");
      expect(tool.output).toMatchObject({ connected: false, code: "ENOENT" });
      const shell = await runtime.call({ tool: "shell", input: { command: `test -e '${socketPath}' && echo visible || echo hidden` }, runId: `uds-shell-${network}` });
      expect(shell.status, shell.error).toBe("ok");
      // Under the host's network too: the shell hides /tmp with the link guard's table (keeping the resolver's configuration).
      expect((shell.output as { stdout: string }).stdout).toBe("hidden\n");
    } finally {
      await runtime.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

describe("a shell command's processes and memory (finding 8)", () => {
  it("runs under a process-count limit and the sandbox process's data size: a 1.5 GiB allocation is refused under memoryMb 16", async () => {
    const runtime = await openRuntime({ root: agent.root, memoryMb: 16 });
    try {
      const allocate = `${process.execPath} -e 'Buffer.alloc(1536 * 2 ** 20, 1); console.log("allocated")'`;
      const result = await runtime.call({ tool: "shell", input: { command: `grep -E '^Max (processes|data size)' /proc/self/limits; ${allocate} 2>&1 | grep -q allocated && echo ALLOCATED || echo refused` }, runId: "shell-limits" });
      expect(result.status, result.error).toBe("ok");
      const stdout = (result.output as { stdout: string }).stdout;
      expect(stdout).toMatch(new RegExp(`^Max processes +${SHELL_PROCESS_LIMIT} +${SHELL_PROCESS_LIMIT} `, "m"));
      const dataBytes = processDataLimitMb(16) * 1024 * 1024;
      expect(stdout).toMatch(new RegExp(`^Max data size +${dataBytes} +${dataBytes} `, "m"));
      expect(stdout).toMatch(/^refused$/m);
    } finally {
      await runtime.close();
    }
  }, 60_000);
});

/**
 * Where the bound holds: `RLIMIT_NPROC` for a host user other than root; a PID namespace's own
 * `pid_max` (Linux 6.14) for root, whom the kernel exempts from `RLIMIT_NPROC`. A root host on an
 * older kernel has no bound (documented in docs/host-policy.md), so there is nothing to check.
 */
const [kernelMajor = 0, kernelMinor = 0] = os.release().split(".").map(Number);
const processLimitHolds = !isRoot || kernelMajor > 6 || (kernelMajor === 6 && kernelMinor >= 14);

describe.runIf(processLimitHolds)("a fork bomb in a shell command (finding 8, also for a host running as root)", () => {
  it("fails with the resource error at the process limit, and the host runs the next command", async () => {
    const runtime = await openRuntime({ root: agent.root });
    try {
      // A bounded bomb (3000 forked shells, each waiting to open a FIFO no one writes) stands in
      // for :(){ :|:& };: so that a missing limit cannot take the machine down. dash gives up at
      // the first fork that fails.
      const bomb = "mkfifo hold; (i=0; while [ $i -lt 3000 ]; do read -r _ < hold & i=$((i+1)); done) 2>bomb.err; status=$?";
      // Counted with builtins only (a glob): while the waiting shells hold every PID, nothing can fork.
      const count = "set -- /proc/[0-9]*; echo \"processes $#\"; read -r line < bomb.err; echo \"$line\" >&2; exit $status";
      // First the bomb raises its PID namespace's pid_max, which it may: the bound is its parent's.
      const raise = "{ echo 4194304 > /proc/sys/kernel/pid_max; } 2>/dev/null || :";
      const result = await runtime.call({ tool: "shell", input: { command: `${raise}; ${bomb}; ${count}` }, runId: "fork-bomb" });
      expect(result.status, result.error).toBe("ok");
      const { stdout, stderr, exitCode } = result.output as { stdout: string; stderr: string; exitCode: number };
      expect(stderr).toMatch(/Cannot fork|Resource temporarily unavailable/);
      expect(exitCode).not.toBe(0);
      const processes = Number(/^processes (\d+)$/m.exec(stdout)?.[1]);
      expect(processes).toBeLessThanOrEqual(SHELL_PROCESS_LIMIT);
      // The bomb really ran up to the bound (its waiting shells are all still there).
      expect(processes).toBeGreaterThan(SHELL_PROCESS_LIMIT / 2);
      const next = await runtime.call({ tool: "shell", input: { command: "echo still here" }, runId: "fork-bomb" });
      expect(next.output).toMatchObject({ stdout: "still here\n", exitCode: 0 });
    } finally {
      await runtime.close();
    }
  }, 120_000);
});

describe("tool code that outlives its call in the warm sandbox process (finding 5)", () => {
  const beats = (runId: string): number => {
    const file = path.join(runsDir(), runId, "workspace", "beat.txt");
    return fs.existsSync(file) ? fs.statSync(file).size : 0;
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it("stops when its call returns, while the process stays warm for the run's next call", async () => {
    const runtime = await openRuntime({ root: agent.root });
    try {
      expect(await runtime.call({ tool: "background", input: {}, runId: "leftover" })).toMatchObject({ status: "ok", output: { started: true } });
      // Paused once idle for PAUSE_AFTER_IDLE_MS (100 ms): measured from well after that.
      await sleep(600);
      const before = beats("leftover");
      // The interval beats every 50 ms while it runs.
      await sleep(800);
      expect(beats("leftover")).toBe(before);
      // The warm process serves the run's next call.
      expect(await runtime.call({ tool: "unix_socket", input: { path: "/nonexistent.sock" }, runId: "leftover" })).toMatchObject({ status: "ok", output: { connected: false } });
    } finally {
      await runtime.close();
    }
  }, 60_000);
});

/**
 * Isolation of shell commands (issue 4: `ctx.getSandbox()` is "for isolated file/shell work in
 * the run's workspace" and sees "nothing from the host's secrets"; issue 5: `bash` runs in the
 * run's sandbox with the same environment allowlist). Every check goes through both paths to
 * the shell: a real authored tool calling `ctx.getSandbox().exec` in its sandbox process, and
 * the core `bash` tool — with real processes, namespaces and mounts.
 *
 * The isolated-path tests need util-linux `unshare` and unprivileged user namespaces, which
 * this project's CI machine has; where they are missing, the suite fails in `beforeAll` with
 * the probe's reason instead of passing silently. The policy tests force the probe to fail
 * with `setUnshareCommand` (a nonexistent binary).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { putBlob } from "../../runtime-min/core-tools/blob-store.js";
import { handoffReceiptPath } from "../../runtime-min/core-tools/handoffs.js";
import { ensureWorkspace, execInWorkspace, ShellIsolationSetupError } from "../../runtime-min/execution/workspace.js";
import { openRuntime, probeShellIsolation, RuntimeError, SANDBOX_ENV_ALLOWLIST, type CallResult, type Runtime, type ShellIsolationPolicy } from "../../runtime-min/index.js";
import { chooseBridgeRoot } from "../../runtime-min/sandbox/bridge-root.js";
import { HOST_SECRET_FILES, hostHomeFolders, RESOLVER_CONFIGURATION, SHELL_COMMAND_GUARD, writeLinkGuardTable } from "../../runtime-min/sandbox/link-guard.js";
import { ISOLATION_FAILURE_EXIT_CODE, isolatedShellArgs, isolationFailureOf, setUnshareCommand, SHELL_ISOLATION_SETUP, shellGuardPaths, type ShellIsolationTools } from "../../runtime-min/sandbox/shell-isolation.js";
import { journalEpoch } from "../../runtime-min/state/run-journal.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

const SECRET = "sk-live-shell-5ecret-never-visible";
const shellTool = (name: string, factory: string) => ({ name, file: "shell.ts", factory });
let agent: AgentFixture;
let runtime: Runtime;
/** A host process whose real environment block (/proc/<pid>/environ) holds the secret. */
let secretHolder: ChildProcess;
const savedSecret = process.env.SHELL_TEST_SECRET;

beforeAll(async () => {
  process.env.SHELL_TEST_SECRET = SECRET;
  secretHolder = spawn("sleep", ["600"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", SHELL_TEST_SECRET: SECRET }, stdio: "ignore" });
  agent = await createAgent([shellTool("shell", "shell"), shellTool("shell_catching", "shellCatching"), shellTool("shell_then_files", "shellThenFiles")]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  secretHolder?.kill("SIGKILL");
  agent?.cleanup();
  for (const folder of madeFolders) fs.rmSync(folder, { recursive: true, force: true });
  if (savedSecret === undefined) delete process.env.SHELL_TEST_SECRET;
  else process.env.SHELL_TEST_SECRET = savedSecret;
});

type ShellOutput = { stdout: string; stderr: string; exitCode: number };

/** The two ways to the shell, with one call each on `runId`. */
const paths = [
  { via: "ctx.getSandbox().exec", call: (on: Runtime, command: string, runId: string, timeoutMs?: number) => on.call({ tool: "shell", input: timeoutMs === undefined ? { command } : { command, timeoutMs }, runId }) },
  { via: "bash", call: (on: Runtime, command: string, runId: string, timeoutMs?: number) => on.call({ tool: "bash", input: timeoutMs === undefined ? { command } : { command, timeoutMs }, runId }) },
] as const;

/** Runs `command` through both paths (one run each) and returns each path's output. */
async function runBoth(on: Runtime, command: string, runPrefix: string): Promise<{ via: string; runId: string; output: ShellOutput }[]> {
  const results = [];
  for (const { via, call } of paths) {
    const runId = `${runPrefix}-${via === "bash" ? "bash" : "authored"}`;
    const result = await call(on, command, runId);
    expect(result, `${via}: ${result.error ?? ""}`).toMatchObject({ status: "ok" });
    results.push({ via, runId, output: result.output as ShellOutput });
  }
  return results;
}

const workspaceOf = (runId: string) => fs.realpathSync(path.join(agent.root, ".assemblyline/runs", runId, "workspace"));
const stateDirOf = () => fs.realpathSync(path.join(agent.root, ".assemblyline"));
/** `text` as one single-quoted shell word (any bytes but NUL, newlines included). */
const sq = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The probe's tools (isolation is available on this project's CI machine). */
async function isolationTools(): Promise<ShellIsolationTools> {
  const probe = await probeShellIsolation();
  if (!probe.available) throw new Error(probe.reason);
  return probe.tools;
}

/**
 * A state directory (`<parent>/<prefix>XXXXXX/.assemblyline`) with run `run-a`'s workspace and
 * the private data the shell of `run-a` must not see: run `run-b`'s file and a `state.db`.
 */
function stateDirWithTwoRuns(parent: string, prefix: string): { base: string; stateDir: string; own: string; otherFile: string; stateDb: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, prefix)));
  const stateDir = path.join(base, ".assemblyline");
  const own = ensureWorkspace(stateDir, "run-a");
  const otherFile = path.join(ensureWorkspace(stateDir, "run-b"), "secret.txt");
  fs.writeFileSync(otherFile, `${SECRET}-run-b\n`);
  const stateDb = path.join(stateDir, "state.db");
  fs.writeFileSync(stateDb, `${SECRET}-state-db\n`);
  return { base, stateDir, own, otherFile, stateDb };
}

/** Folders the tests made outside any agent (removed at the end). */
const madeFolders: string[] = [];

/** A `mount` that does what `real` does but refuses every table (`-T`): the setup's second step fails. */
function failingTableMount(real: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-failing-mount-"));
  madeFolders.push(dir);
  const wrapper = path.join(dir, "mount");
  fs.writeFileSync(wrapper, `#!/bin/sh\nfor arg; do [ "$arg" = -T ] && { echo "no table for you" >&2; exit 32; }; done\nexec ${real} "$@"\n`, { mode: 0o755 });
  return wrapper;
}

/** A shell loop printing `VISIBLE <path>` (and the contents) of each of `paths` it can reach. */
const reachable = (paths: readonly string[]) => `for t in ${paths.map(sq).join(" ")}; do cat -- "$t" 2>/dev/null; test -e "$t" && echo "VISIBLE $t"; done`;

/**
 * Prints what the shell can see of processes and environments (scanned inside the shell). The
 * scan of every process comes first: `bash` keeps the end of a long output, and on a busy host
 * the unisolated scan alone can exceed it.
 */
function processScan(): string {
  return [
    "echo ---all; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\"; done",
    `echo ---holder; tr '\\0' '\\n' < /proc/${secretHolder.pid}/environ`,
    'echo "ppid=$PPID"',
    'echo "pids=$(cd /proc && echo [0-9]*)"',
    `echo "host=$(test -e /proc/${process.pid} && echo visible || echo hidden)"`,
    `echo "holder=$(test -e /proc/${secretHolder.pid} && echo visible || echo hidden)"`,
    "echo ---parent; tr '\\0' '\\n' < /proc/$PPID/environ",
    "echo ---self; tr '\\0' '\\n' < /proc/self/environ; echo ---end",
  ].join("\n");
}

/** Host pids whose command line contains `marker`, polled until none is left (at most ~10 s). */
async function survivorsAfterSettling(marker: string): Promise<string[]> {
  const find = () =>
    fs
      .readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(marker);
        } catch {
          return false;
        }
      });
  let survivors = find();
  for (let attempt = 0; attempt < 200 && survivors.length > 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    survivors = find();
  }
  return survivors;
}

function envKeysOf(stdout: string): string[] {
  const self = stdout.slice(stdout.indexOf("---self\n") + "---self\n".length, stdout.indexOf("---end"));
  return self.split("\n").filter(Boolean).map((entry) => entry.slice(0, entry.indexOf("="))).sort();
}

describe("isolated shell commands (util-linux unshare; available on this project's CI machine)", () => {
  beforeAll(() => {
    const status = runtime.shellIsolation;
    if (!status.isolated) {
      throw new Error(
        `Shell isolation is unavailable on this machine, so the isolated-path tests cannot run: ${status.unavailableReason ?? "(no reason)"}. ` +
          "They need Linux with util-linux unshare and mount and unprivileged user namespaces (as on the CI machine).",
      );
    }
  });

  it("the runtime reports isolation under the default policy, without a warning", () => {
    expect(runtime.shellIsolation).toEqual({ policy: "auto", isolated: true });
    expect(runtime.warnings.map((warning) => warning.code).filter((code) => code === "AL8031" || code === "AL8032")).toEqual([]);
  });

  it("the shell sees no host process and no host secret: not the parent's environ, not any /proc/*/environ", async () => {
    // Precondition: the secret really is in a live host process's environment block.
    expect(fs.readFileSync(`/proc/${secretHolder.pid}/environ`, "utf8")).toContain(SECRET);
    expect(process.env.SHELL_TEST_SECRET).toBe(SECRET);
    for (const { via, runId, output } of await runBoth(runtime, processScan(), "scan")) {
      const seen = `${output.stdout}\n${output.stderr}`;
      expect(seen, via).not.toContain(SECRET);
      expect(output.stdout, via).toContain("ppid=0\n");
      expect(output.stdout, via).toContain("host=hidden\n");
      expect(output.stdout, via).toContain("holder=hidden\n");
      const pids = /pids=(.*)\n/.exec(output.stdout)![1]!.split(" ");
      expect(pids, via).not.toContain(String(process.pid));
      expect(pids, via).not.toContain(String(secretHolder.pid));
      expect(pids.length, `${via}: only the command's own processes`).toBeLessThan(10);
      const allowed = new Set([...SANDBOX_ENV_ALLOWLIST, "HOME", "TMPDIR", "PWD"]);
      expect(envKeysOf(output.stdout).filter((key) => !allowed.has(key)), via).toEqual([]);
      expect(output.stdout, via).toContain(`HOME=${workspaceOf(runId)}\n`);
      expect(output.stdout, via).toContain(`TMPDIR=${path.join(workspaceOf(runId), ".tmp")}\n`);
    }
  });

  it("writes inside the workspace work; writes anywhere else fail read-only", async () => {
    const outsideRoot = path.join(agent.root, "escaped.txt");
    const outsideTmp = path.join(os.tmpdir(), `al-shell-escaped-${process.pid}.txt`);
    const command = [
      "echo inside > inside.txt && echo inside-ok",
      "mkdir -p sub/dir && echo deep > sub/dir/deep.txt && echo deep-ok",
      "echo tmp > \"$TMPDIR/t.txt\" && echo tmpdir-ok",
      `echo out > '${outsideRoot}' && echo outside-root-WROTE`,
      `echo out > '${outsideTmp}' && echo outside-tmp-WROTE`,
      "echo out > ../../../../escaped-relative.txt && echo relative-WROTE",
      "touch /escaped-at-root && echo root-WROTE",
      "exit 0",
    ].join("\n");
    for (const { via, runId, output } of await runBoth(runtime, command, "writes")) {
      expect(output.stdout, via).toBe("inside-ok\ndeep-ok\ntmpdir-ok\n");
      expect(output.stderr, via).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(workspaceOf(runId), "inside.txt"), "utf8"), via).toBe("inside\n");
      expect(fs.readFileSync(path.join(workspaceOf(runId), "sub/dir/deep.txt"), "utf8"), via).toBe("deep\n");
    }
    expect(fs.existsSync(outsideRoot)).toBe(false);
    expect(fs.existsSync(outsideTmp)).toBe(false);
    expect(fs.existsSync(path.join(agent.root, "..", "escaped-relative.txt"))).toBe(false);
    expect(fs.existsSync("/escaped-at-root")).toBe(false);
  });

  it("the sandbox bridge directory (and /dev/shm) cannot be written", async () => {
    const bridgeRoot = chooseBridgeRoot(path.join(agent.root, ".assemblyline")) as string;
    const planted = path.join(bridgeRoot, `planted-${process.pid}.json`);
    const command = [`echo forged > '${planted}' && echo bridge-WROTE`, `echo x > /dev/shm/al-planted-${process.pid} && echo shm-WROTE`, "exit 0"].join("\n");
    for (const { via, output } of await runBoth(runtime, command, "bridge")) {
      expect(output.stdout, via).toBe("");
      expect(output.stderr, via).toMatch(/Read-only file system/);
    }
    expect(fs.existsSync(planted)).toBe(false);
    expect(fs.existsSync(`/dev/shm/al-planted-${process.pid}`)).toBe(false);
  });

  it("a symbolic link in the workspace that points outside cannot be written through (nor read: the agent root lies in the hidden /tmp here)", async () => {
    const target = path.join(agent.root, "link-target.txt");
    fs.writeFileSync(target, "original\n");
    for (const { via, call } of paths) {
      const runId = `symlink-${via === "bash" ? "bash" : "authored"}`;
      // The run's workspace exists once the run made a call; plant the links from the host.
      await call(runtime, "true", runId);
      fs.symlinkSync(target, path.join(workspaceOf(runId), "to-target"));
      fs.symlinkSync(agent.root, path.join(workspaceOf(runId), "to-root"));
      const result = await call(runtime, "echo changed > to-target; echo new > to-root/planted.txt; cat to-target", runId);
      expect(result.status, via).toBe("ok");
      const output = result.output as ShellOutput;
      // The agent root is in the host's /tmp, which the command never sees (an empty read-only tmpfs).
      expect(os.tmpdir(), "precondition: the fixture lies in /tmp").toBe("/tmp");
      expect(output.stdout, via).toBe("");
      expect(output.stderr, via).toMatch(/No such file or directory/);
    }
    expect(fs.readFileSync(target, "utf8")).toBe("original\n");
    expect(fs.existsSync(path.join(agent.root, "planted.txt"))).toBe(false);
  });

  it("a link the command leaves in the workspace does not lead the tool's own process out of it (review F0: Node's permission model follows links)", async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "al-shell-link-"));
    try {
      fs.writeFileSync(path.join(outside, "secret.txt"), "host secret\n");
      const cases = [
        { command: `ln -s ${sq(outside)} out`, write: "out/pwned.txt", read: "out/secret.txt", written: path.join(outside, "pwned.txt") },
        // Relative: ../.. from the workspace is the state directory, which the shell cannot see but the process could.
        { command: "ln -s ../.. state", write: "state/pwned.txt", read: "state/state.db", written: path.join(stateDirOf(), "pwned.txt") },
        { command: "ln -s / hostroot", write: `hostroot${outside}/pwned-root.txt`, read: `hostroot${outside}/secret.txt`, written: path.join(outside, "pwned-root.txt") },
      ];
      for (const [index, { command, write, read, written }] of cases.entries()) {
        const result = await runtime.call({ tool: "shell_then_files", input: { command, write, read }, runId: `link-escape-${index}` });
        expect(result.status, result.error ?? "").toBe("ok");
        const output = result.output as { shell: ShellOutput; wrote: { ok: boolean; code?: string }; read: { ok: boolean; code?: string } };
        expect(output.shell.exitCode, command).toBe(0);
        expect(output.wrote, command).toEqual({ ok: false, code: "ELOOP" });
        expect(output.read, command).toEqual({ ok: false, code: "ELOOP" });
        expect(fs.existsSync(written), command).toBe(false);
      }
      // A link a command of an earlier call left is not followed by a later call's process either.
      const later = await runtime.call({ tool: "shell_then_files", input: { command: "true", write: "out/pwned.txt", read: "out/secret.txt" }, runId: "link-escape-0" });
      expect((later.output as { read: unknown }).read).toEqual({ ok: false, code: "ELOOP" });
      // Files and folders of the workspace itself work as before.
      const plain = await runtime.call({ tool: "shell_then_files", input: { command: "mkdir -p sub && echo hi > sub/a.txt", write: "sub/b.txt", read: "sub/a.txt" }, runId: "link-escape-plain" });
      expect(plain.output).toMatchObject({ wrote: { ok: true }, read: { ok: true, value: "hi\n" } });
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it("network \"none\" reaches the shell too: its command has no network (review N4: curl from exec got through)", async () => {
    const offline = await openRuntime({ root: agent.root, network: "none" });
    try {
      // /proc/net/dev lists the devices of the command's network namespace: only the loopback (down).
      const command = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '";
      for (const { via, call } of paths) {
        const result = await call(offline, command, `net-none-${via === "bash" ? "bash" : "authored"}`);
        expect(result.status, `${via}: ${result.error ?? ""}`).toBe("ok");
        expect((result.output as ShellOutput).stdout, via).toBe("lo\n");
      }
    } finally {
      await offline.close();
    }
    // Under the default policy the host's devices are there.
    const online = await paths[0].call(runtime, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '", "net-host");
    expect((online.output as ShellOutput).stdout.trim().split("\n").length).toBeGreaterThan(1);
  });

  it("the command cannot undo its isolation: unmounting /proc or remounting read-write is refused", async () => {
    const escaped = path.join(agent.root, "escaped-after-remount.txt");
    const command = [
      "umount /proc 2>/dev/null; umount -l /proc 2>/dev/null",
      "for m in $(cut -d ' ' -f 5 /proc/self/mountinfo); do mount -o remount,bind,rw \"$m\" 2>/dev/null; done",
      `echo x > '${escaped}' 2>/dev/null && echo remount-WROTE`,
      `test -e /proc/${process.pid} && echo host-VISIBLE`,
      "exit 0",
    ].join("\n");
    for (const { via, output } of await runBoth(runtime, command, "undo")) {
      expect(output.stdout, via).toBe("");
    }
    expect(fs.existsSync(escaped)).toBe(false);
  });

  describe("the state directory (<root>/.assemblyline) is hidden but for the run's own workspace", () => {
    const otherRun = "hidden-other-run";
    const marker = `${SECRET}-in-state-db`;
    let planted: { blob: string; handoff: string; bridgeFile: string };

    beforeAll(async () => {
      const stateDir = stateDirOf();
      // Another run's workspace file, and a full result in state.db (what toModelOutput may hide).
      const other = await runtime.call({ tool: "bash", input: { command: `echo '${SECRET}-other-workspace' > secret.txt; echo ${marker}` }, runId: otherRun });
      expect(other).toMatchObject({ status: "ok", output: { stdout: `${marker}\n` } });
      const blob = await putBlob(stateDir, Buffer.from(`${SECRET}-blob\n`));
      const handoff = handoffReceiptPath(stateDir, otherRun, "report.txt");
      fs.mkdirSync(path.dirname(handoff), { recursive: true });
      fs.writeFileSync(handoff, `{"secret":"${SECRET}-handoff"}\n`);
      const bridgeFile = path.join(chooseBridgeRoot(stateDir) as string, `planted-${process.pid}.json`);
      fs.writeFileSync(bridgeFile, `{"secret":"${SECRET}-bridge"}\n`);
      planted = { blob: path.join(stateDir, "blobs", "sha512", blob.sha512), handoff, bridgeFile };
    });

    afterAll(() => {
      if (planted) fs.rmSync(planted.bridgeFile, { force: true });
    });

    it("other runs' workspaces, state.db, the blob store, handoffs and the bridge cannot be read, by relative or absolute path", async () => {
      const stateDir = stateDirOf();
      const stateDb = path.join(stateDir, "state.db");
      // Preconditions: every target really exists on the host and holds its secret.
      expect(fs.readFileSync(path.join(workspaceOf(otherRun), "secret.txt"), "utf8")).toContain(SECRET);
      expect(fs.readFileSync(planted.blob, "utf8")).toContain(SECRET);
      expect(fs.readFileSync(planted.handoff, "utf8")).toContain(SECRET);
      expect(fs.readFileSync(planted.bridgeFile, "utf8")).toContain(SECRET);
      const dbFiles = fs.readdirSync(stateDir).filter((name) => name.startsWith("state.db"));
      expect(dbFiles.map((name) => fs.readFileSync(path.join(stateDir, name)).includes(marker)), "state.db (or its WAL) holds the full result").toContain(true);
      const relative = (target: string) => path.join("../../..", path.relative(stateDir, target));
      const targets = [path.join(workspaceOf(otherRun), "secret.txt"), stateDb, `${stateDb}-wal`, planted.blob, planted.handoff, path.join(stateDir, "blobs"), path.join(stateDir, "handoffs")];
      const command = [
        reachable([...targets, ...targets.map(relative), planted.bridgeFile, path.dirname(planted.bridgeFile)]),
        `grep -a -l ${sq(marker)} ../../../state.db* ${sq(stateDb)}* 2>/dev/null`,
        `echo "state: $(ls -A ${sq(stateDir)} | tr '\\n' ' ')"`,
        `echo "runs: $(ls -A ../.. | tr '\\n' ' ')"`,
        `echo "shm: $(ls -A /dev/shm | tr '\\n' ' ')"`,
        "echo own > own.txt && cat own.txt && rm own.txt && echo removed",
      ].join("\n");
      for (const { via, runId, output } of await runBoth(runtime, command, "hidden-state")) {
        expect(`${output.stdout}\n${output.stderr}`, via).not.toContain(SECRET);
        expect(output.stdout, via).toBe(`state: runs \nruns: ${runId} \nshm: \nown\nremoved\n`);
        expect(fs.existsSync(path.join(workspaceOf(runId), "own.txt")), via).toBe(false);
      }
    });

    it("`..` from the workspace walks only through empty directories and never reaches state.db", async () => {
      const command = [
        'd=.; i=0; while [ $i -lt 16 ]; do d=$d/..; for f in state.db .assemblyline/state.db; do test -e "$d/$f" && echo "REACHED $d/$f"; done; i=$((i+1)); done',
        "(cd ../../.. && echo \"$(ls -A | tr '\\n' ' ')\" && cd .. && ls -A .assemblyline)",
        "(cd -P /proc/self/cwd/.. && ls -A)",
      ].join("\n");
      for (const { via, output } of await runBoth(runtime, command, "dotdot")) {
        expect(output.stdout, via).toBe("runs \nruns\nworkspace\n");
        expect(output.exitCode, `${via}: ${output.stderr}`).toBe(0);
      }
    });

    it("the command cannot reveal it: unmounting its tmpfs or bind-mounting an ancestor without its cover is refused", async () => {
      const stateDir = stateDirOf();
      const command = [
        `umount -l ${sq(stateDir)} 2>/dev/null; umount ${sq(stateDir)} 2>/dev/null`,
        "mkdir -p m1 m2 m3",
        `mount --bind / m1 2>/dev/null; mount --bind ${sq(agent.root)} m2 2>/dev/null; mount --rbind ${sq(agent.root)} m3 2>/dev/null`,
        reachable([path.join(stateDir, "state.db"), `m1${path.join(stateDir, "state.db")}`, "m2/.assemblyline/state.db", "m3/.assemblyline/state.db", path.join(workspaceOf(otherRun), "secret.txt")]),
        "exit 0",
      ].join("\n");
      for (const { via, output } of await runBoth(runtime, command, "reveal")) {
        expect(`${output.stdout}\n${output.stderr}`, via).not.toContain(SECRET);
        expect(output.stdout, via).toBe("");
      }
    });
  });

  it("a timeout kills every process of the command, background ones included", async () => {
    for (const { via, call } of paths) {
      const marker = via === "bash" ? "987.654321" : "987.123456";
      const result: CallResult = await call(runtime, `sleep ${marker} & sleep ${marker}`, `timeout-${via === "bash" ? "bash" : "authored"}`, 500);
      expect(result.status, via).toBe("failed");
      expect(result.failure, via).toEqual({ kind: "execution_error", runCanContinue: true });
      expect(result.error, via).toContain("was stopped after 500 ms");
      // The kill reaches the namespace's processes asynchronously (SIGKILL of `unshare`, then
      // --kill-child, then the PID namespace's teardown); they must all be gone within seconds
      // (untouched, they would sleep for 16 minutes).
      expect(await survivorsAfterSettling(marker), via).toEqual([]);
    }
  });

  it("under the default (host) network too, host sockets in /tmp, /var/tmp and /dev/shm are out of reach, and the resolver's configuration is read", async () => {
    const servers: net.Server[] = [];
    const sockets = [path.join(fs.mkdtempSync(path.join(os.tmpdir(), "al-shell-sock-")), "host.sock"), path.join(fs.mkdtempSync("/var/tmp/al-shell-sock-"), "host.sock"), path.join(fs.mkdtempSync("/dev/shm/al-shell-sock-"), "host.sock")];
    madeFolders.push(...sockets.map((socket) => path.dirname(socket)));
    try {
      for (const socket of sockets) {
        const server = net.createServer((connection) => connection.end("reached\n"));
        await new Promise<void>((resolve) => server.listen(socket, resolve));
        servers.push(server);
      }
      const resolverTarget = fs.realpathSync(RESOLVER_CONFIGURATION);
      const command = [`for s in ${sockets.map(sq).join(" ")}; do test -e "$s" && echo "VISIBLE $s"; done`, `cat ${RESOLVER_CONFIGURATION} ${sq(resolverTarget)} > /dev/null && echo resolver-read`].join("\n");
      for (const { via, runId, output } of await runBoth(runtime, command, "host-sockets")) {
        expect(output.stdout, `${via}: ${output.stderr}`).toBe("resolver-read\n");
        // The mount table's private folder (beside the workspace) went with the command. The
        // run's call journal (docs/runtime.md, tenth round) is the only other name allowed there.
        expect(fs.readdirSync(path.dirname(workspaceOf(runId))).filter((name) => journalEpoch(name) === undefined), via).toEqual(["workspace"]);
      }
    } finally {
      await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });

  it("keeps the resolver's configuration where a link leads into a hidden folder (systemd-resolved's /run/systemd/resolve), read-only, hiding its neighbours", async () => {
    const tools = await isolationTools();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-resolver-")));
    madeFolders.push(base);
    const resolveDir = path.join(base, "run", "systemd", "resolve");
    const target = path.join(resolveDir, "stub-resolv.conf");
    const socket = path.join(resolveDir, "io.systemd.Resolve");
    fs.mkdirSync(resolveDir, { recursive: true });
    fs.writeFileSync(target, "nameserver 127.0.0.53\n");
    fs.writeFileSync(path.join(resolveDir, "resolv.conf"), "nameserver 192.0.2.1\n");
    // `/etc/resolv.conf` of this test: a link into the hidden /tmp, like systemd-resolved's into /run.
    const resolver = path.join(base, "etc-resolv.conf");
    fs.symlinkSync(target, resolver);
    const server = net.createServer((connection) => connection.end("reached\n"));
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const stateDir = path.join(base, "agent", ".assemblyline");
      const workspace = ensureWorkspace(stateDir, "run-a");
      const command = [`cat ${sq(target)}`, `ls -A ${sq(resolveDir)}`, `test -e ${sq(socket)} && echo SOCKET-VISIBLE`, `echo x >> ${sq(target)} || echo read-only`, "echo w > written && echo written"].join("\n");
      for (const network of ["host", "none"] as const) {
        const run = { workspace, stateDir, command, network };
        const tableDir = fs.mkdtempSync(path.join(path.dirname(workspace), ".shell-"));
        const table = writeLinkGuardTable(shellGuardPaths(run, tableDir, process.env, resolver), ["/bin/sh", tools.unshare, tools.mount], process.env, SHELL_COMMAND_GUARD);
        const result = spawnSync(tools.unshare, isolatedShellArgs(tools, run, table), { cwd: workspace, encoding: "utf8" });
        fs.rmSync(tableDir, { recursive: true, force: true });
        if (network === "host") {
          expect(result.stdout, result.stderr).toBe("nameserver 127.0.0.53\nstub-resolv.conf\nread-only\nwritten\n");
          expect(result.stderr).toMatch(/Read-only file system/);
        } else {
          // Under network "none" nothing is kept: the folder is hidden whole.
          expect(result.stdout, result.stderr).toBe("read-only\nwritten\n");
        }
      }
      expect(fs.readFileSync(target, "utf8")).toBe("nameserver 127.0.0.53\n");
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("removes the table folders a killed host left beside the workspace, not a live host's", async () => {
    const tools = await isolationTools();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-stale-table-")));
    madeFolders.push(base);
    const workspace = ensureWorkspace(path.join(base, ".assemblyline"), "run-a");
    const runDir = path.dirname(workspace);
    // No process has a pid above pid_max (at most 2^22), so this host is gone.
    const stale = path.join(runDir, ".shell-999999999-abcdef");
    const live = path.join(runDir, `.shell-${process.pid}-Ab12Cd`);
    for (const folder of [stale, live]) {
      fs.mkdirSync(path.join(folder, ".link-guard"), { recursive: true });
      fs.writeFileSync(path.join(folder, ".link-guard", "fstab"), "");
    }
    const result = await execInWorkspace(workspace, "true", 10_000, tools);
    expect(result.exitCode).toBe(0);
    expect(fs.readdirSync(runDir).sort()).toEqual([path.basename(live), "workspace"]);
  });

  it("an unshare for the command's namespaces that cannot be run is a setup failure (125 and the marker), not the command's 127", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-setup-"));
    const workspace = path.join(dir, "ws");
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(dir, "fstab"), "");
    fs.writeFileSync(path.join(dir, "not-executable"), "#!/bin/sh\n", { mode: 0o644 });
    const setup = (unshare: string) =>
      spawnSync("unshare", ["--user", "--map-root-user", "--mount", "--", "/bin/sh", "-c", SHELL_ISOLATION_SETUP, "setup", "mount", path.join(dir, "fstab"), workspace, unshare, "echo ran", "1025"], { encoding: "utf8" });
    try {
      for (const unshare of [path.join(dir, "missing"), path.join(dir, "not-executable"), workspace]) {
        const run = setup(unshare);
        expect(run.stdout, unshare).toBe("");
        expect(run.status, run.stderr).toBe(ISOLATION_FAILURE_EXIT_CODE);
        expect(isolationFailureOf(run.status!, run.stderr), unshare).toBe(`could not run ${unshare} for the command's own namespaces: it is not an executable file`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps exit codes, stdout and stderr as results", async () => {
    for (const { via, output } of await runBoth(runtime, "printf 'out'; printf 'err' >&2; exit 3", "exit-code")) {
      expect(output, via).toMatchObject({ stdout: "out", stderr: "err", exitCode: 3 });
    }
  });

  it("hides the state directory when the agent root's path has spaces, tabs, newlines and backslashes (escaped in mountinfo)", async () => {
    const tools = await isolationTools();
    const { base, stateDir, own, otherFile, stateDb } = stateDirWithTwoRuns(os.tmpdir(), "al-odd root\\x\tt\nnl-");
    try {
      const command = [
        "echo hi > inside.txt && cat inside.txt",
        reachable([otherFile, stateDb, "../../run-b/workspace/secret.txt", "../../../state.db"]),
        `ls -A ${sq(stateDir)}`,
        "touch ../beside.txt",
      ].join("\n");
      const result = await execInWorkspace(own, command, 10_000, tools);
      expect(`${result.stdout}\n${result.stderr}`).not.toContain(SECRET);
      expect(result.stdout).toBe("hi\nruns\n");
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(own, "inside.txt"), "utf8")).toBe("hi\n");
      expect(fs.existsSync(path.join(path.dirname(own), "beside.txt"))).toBe(false);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("hides a state directory inside /dev/shm too (the workspace is staged elsewhere)", async () => {
    const tools = await isolationTools();
    const { base, stateDir, own, otherFile, stateDb } = stateDirWithTwoRuns("/dev/shm", "al-shm-state-");
    try {
      const command = ["echo hi > inside.txt && cat inside.txt", reachable([otherFile, stateDb, "../../run-b/workspace/secret.txt"]), `ls -A ${sq(stateDir)}`, "ls -A /dev/shm"].join("\n");
      const result = await execInWorkspace(own, command, 10_000, tools);
      expect(`${result.stdout}\n${result.stderr}`).not.toContain(SECRET);
      expect(result.stdout).toBe(`hi\nruns\n${path.basename(base)}\n`);
      expect(fs.readFileSync(path.join(own, "inside.txt"), "utf8")).toBe("hi\n");
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });

  it("hides $XDG_RUNTIME_DIR (where the bridge lives when it is set), also when it holds the state directory", async () => {
    const tools = await isolationTools();
    const saved = process.env.XDG_RUNTIME_DIR;
    const runtimeDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-xdg-")));
    const bridgeFile = path.join(runtimeDir, "assembly-line-bridge", "envelope.json");
    fs.mkdirSync(path.dirname(bridgeFile));
    fs.writeFileSync(bridgeFile, `${SECRET}-xdg\n`);
    try {
      process.env.XDG_RUNTIME_DIR = runtimeDir;
      const { stateDir, own, otherFile, stateDb } = stateDirWithTwoRuns(runtimeDir, "agent-");
      const command = ["echo hi > inside.txt && cat inside.txt", reachable([bridgeFile, otherFile, stateDb]), `ls -A ${sq(stateDir)}`, `ls -A ${sq(runtimeDir)}`].join("\n");
      const result = await execInWorkspace(own, command, 10_000, tools);
      expect(`${result.stdout}\n${result.stderr}`).not.toContain(SECRET);
      expect(result.stdout).toBe(`hi\nruns\n${path.basename(path.dirname(stateDir))}\n`);
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
      fs.rmSync(runtimeDir, { recursive: true, force: true });
    }
  });

  const brokenSetups = [
    { what: "mount fails", tools: (tools: ShellIsolationTools) => ({ ...tools, mount: "/bin/false" }), workspace: "layout", reason: /could not remount the mounts read-only/ },
    { what: "a line of the link guard's table fails", tools: (tools: ShellIsolationTools) => ({ ...tools, mount: failingTableMount(tools.mount) }), workspace: "layout", reason: /could not mount the link guard's table .*\/\.shell-[^/]+\/\.link-guard\/fstab .*no table for you/ },
    { what: "the workspace is not <stateDir>/runs/<runId>/workspace", tools: (tools: ShellIsolationTools) => tools, workspace: "bare", reason: /is not <stateDir>\/runs\/<runId>\/workspace/ },
  ] as const;
  it.each(brokenSetups)("a setup that fails never runs the command (ShellIsolationSetupError with the setup's reason): $what", async ({ tools, workspace: shape, reason }) => {
    const probed = await isolationTools();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-setup-fail-")));
    try {
      const workspace = shape === "layout" ? ensureWorkspace(path.join(base, ".assemblyline"), "run-a") : base;
      const run = execInWorkspace(workspace, "echo ran > ran.txt", 10_000, tools(probed));
      await expect(run).rejects.toBeInstanceOf(ShellIsolationSetupError);
      await expect(run).rejects.toThrow(reason);
      expect(fs.existsSync(path.join(workspace, "ran.txt"))).toBe(false);
      // The mount table's private folder goes with the command.
      if (shape === "layout") expect(fs.readdirSync(path.dirname(workspace))).toEqual(["workspace"]);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("without isolation (shellIsolation: \"off\") the shell is the host's child — what isolation prevents", () => {
  it("sees the host as its parent and the secret of another host process", async () => {
    const off = await openRuntime({ root: agent.root, shellIsolation: "off" });
    try {
      expect(off.shellIsolation).toEqual({ policy: "off", isolated: false });
      expect(off.warnings.map((warning) => warning.code).filter((code) => code === "AL8031" || code === "AL8032")).toEqual([]);
      const result = await off.call({ tool: "bash", input: { command: processScan() }, runId: "off-scan" });
      const output = result.output as ShellOutput;
      expect(output.stdout).toContain(`ppid=${process.pid}\n`);
      expect(output.stdout).toContain("holder=visible\n");
      expect(output.stdout).toContain(SECRET);
    } finally {
      await off.close();
    }
  });
});

describe("shellIsolation policy when this host cannot isolate (probe forced to fail)", () => {
  const missing = "/nonexistent/assembly-line-test/unshare";
  beforeAll(() => setUnshareCommand(missing));
  afterAll(() => setUnshareCommand(undefined));

  async function withRuntime(policy: ShellIsolationPolicy | undefined, body: (on: Runtime) => Promise<void>): Promise<void> {
    const on = await openRuntime(policy === undefined ? { root: agent.root } : { root: agent.root, shellIsolation: policy });
    try {
      await body(on);
    } finally {
      await on.close();
    }
  }

  it("\"required\": every shell request fails with configuration_error naming what the host must provide; the command never runs", async () => {
    await withRuntime("required", async (on) => {
      expect(on.shellIsolation).toMatchObject({ policy: "required", isolated: false, unavailableReason: expect.stringContaining(missing) });
      const warnings = on.warnings.filter((warning) => warning.code === "AL8032");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toContain(missing);
      for (const tool of ["bash", "shell", "shell_catching"]) {
        const runId = `required-${tool.replace("_", "-")}`;
        const result = await on.call({ tool, input: { command: "echo ran > ran.txt" }, runId });
        expect(result.status, tool).toBe("failed");
        // shell_catching swallows the exec error, yet the call still fails.
        expect(result.failure, tool).toEqual({ kind: "configuration_error", runCanContinue: true });
        expect(result.error, tool).toContain('shellIsolation: "required"');
        expect(result.error, tool).toContain("util-linux `unshare`");
        expect(result.error, tool).toContain("unprivileged user namespaces");
        expect(result.events.at(-1), tool).toMatchObject({ type: "tool.execution_failed", kind: "configuration_error" });
        expect(fs.existsSync(path.join(workspaceOf(runId), "ran.txt")), tool).toBe(false);
      }
    });
  });

  it("\"auto\" (the default): one AL8031 warning with the probe's reason, and commands still run", async () => {
    await withRuntime(undefined, async (on) => {
      expect(on.shellIsolation).toMatchObject({ policy: "auto", isolated: false, unavailableReason: expect.stringContaining(missing) });
      const warnings = on.warnings.filter((warning) => warning.code === "AL8031" || warning.code === "AL8032");
      expect(warnings.map((warning) => [warning.code, warning.severity])).toEqual([["AL8031", "warning"]]);
      expect(warnings[0]!.message).toContain("run without process or file-system isolation");
      expect(warnings[0]!.message).toContain(missing);
      for (const tool of ["bash", "shell"]) {
        const runId = `auto-${tool}`;
        const result = await on.call({ tool, input: { command: "echo ran > ran.txt; echo $PPID" }, runId });
        expect(result.status, tool).toBe("ok");
        expect((result.output as ShellOutput).stdout, tool).toBe(`${process.pid}\n`);
        expect(fs.readFileSync(path.join(workspaceOf(runId), "ran.txt"), "utf8"), tool).toBe("ran\n");
      }
    });
  });

  it("\"off\": commands run without a warning (the host's explicit choice)", async () => {
    await withRuntime("off", async (on) => {
      expect(on.shellIsolation).toEqual({ policy: "off", isolated: false });
      expect(on.warnings.filter((warning) => warning.code === "AL8031" || warning.code === "AL8032")).toEqual([]);
      const result = await on.call({ tool: "bash", input: { command: "echo ran" }, runId: "off-runs" });
      expect(result).toMatchObject({ status: "ok", output: { exitCode: 0, stdout: "ran\n" } });
    });
  });

  it("an unknown policy is refused with AL8033 (host option only)", async () => {
    const opening = openRuntime({ root: agent.root, shellIsolation: "sometimes" as ShellIsolationPolicy });
    await expect(opening).rejects.toBeInstanceOf(RuntimeError);
    await expect(opening).rejects.toMatchObject({ code: "AL8033", message: expect.stringContaining('"sometimes"') });
  });
});

describe("probe of an older unshare without --kill-child", () => {
  let dir: string;
  beforeAll(async () => {
    const current = await probeShellIsolation();
    if (!current.available) throw new Error(`Shell isolation is unavailable on this machine: ${current.reason}`);
    const real = current.tools.unshare;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-old-unshare-"));
    // Refuses --kill-child as util-linux < 2.32 does, and is otherwise the real unshare.
    fs.writeFileSync(
      path.join(dir, "unshare"),
      `#!/bin/sh\nfor arg; do if [ "$arg" = --kill-child ]; then echo "unshare: unrecognized option '--kill-child'" >&2; exit 1; fi; done\nexec ${real} "$@"\n`,
      { mode: 0o755 },
    );
    setUnshareCommand(path.join(dir, "unshare"));
  });
  afterAll(() => {
    setUnshareCommand(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("still isolates, without --kill-child", async () => {
    const probe = await probeShellIsolation();
    expect(probe).toEqual({ available: true, tools: { unshare: path.join(dir, "unshare"), mount: expect.stringMatching(/\/mount$/), killChild: false, setpriv: expect.stringMatching(/\/setpriv$/), prlimit: expect.stringMatching(/\/prlimit$/) } });
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-old-unshare-ws-")));
    const workspace = ensureWorkspace(path.join(base, ".assemblyline"), "run-a");
    try {
      if (!probe.available) throw new Error(probe.reason);
      const result = await execInWorkspace(workspace, "echo in > in.txt; touch ../beside.txt; echo $PPID", 10_000, probe.tools);
      expect(result.stdout).toBe("0\n");
      expect(result.stderr).toMatch(/Read-only file system/);
      expect(fs.readFileSync(path.join(workspace, "in.txt"), "utf8")).toBe("in\n");
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("what a shell command's link guard keeps (shellGuardPaths)", () => {
  const run = { workspace: "/home/a/agent/.assemblyline/runs/r/workspace", stateDir: "/home/a/agent/.assemblyline", command: "true" };

  it("hides the agent root and the homes, keeps the resolver's configuration under the host's network only, and the certificates the host names under both", () => {
    const env = { SSL_CERT_FILE: "/tmp/proxy-ca.pem", NODE_EXTRA_CA_CERTS: "relative.pem" };
    expect(shellGuardPaths(run, "/t", env)).toEqual({ workspace: run.workspace, keep: ["/tmp/proxy-ca.pem", RESOLVER_CONFIGURATION], tableDir: "/t", hide: ["/home/a/agent", ...hostHomeFolders(env)], cover: HOST_SECRET_FILES });
    expect(shellGuardPaths({ ...run, network: "none" }, "/t", env).keep).toEqual(["/tmp/proxy-ca.pem"]);
    expect(shellGuardPaths({ ...run, keep: ["/tmp/x"] }, "/t", {}).keep).toEqual([RESOLVER_CONFIGURATION, "/tmp/x"]);
  });

  it("keeps the PATH folders inside the homes and the agent root, not the home itself nor one in the state directory, and the programs' folders", () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-guard-home-")));
    madeFolders.push(home);
    const inHome = { workspace: `${home}/agent/.assemblyline/runs/r/workspace`, stateDir: `${home}/agent/.assemblyline`, command: "true" };
    const env = { HOME: home, PATH: `${home}/.nvm/versions/node/v20/bin:${home}:/usr/bin:${home}/agent/node_modules/.bin:${home}/agent/.assemblyline/runs/r/bin:relative/bin` };
    expect(shellGuardPaths(inHome, "/t", env).hide).toEqual([`${home}/agent`, ...hostHomeFolders(env)]);
    expect(hostHomeFolders(env)).toContain(home);
    expect(shellGuardPaths(inHome, "/t", env).keep).toEqual([RESOLVER_CONFIGURATION, `${home}/.nvm/versions/node/v20/bin`, `${home}/agent/node_modules/.bin`]);
    expect(shellGuardPaths(inHome, "/t", env, undefined, ["/bin/sh", `${home}/tools/unshare`]).keep).toEqual([RESOLVER_CONFIGURATION, `${home}/.nvm/versions/node/v20/bin`, `${home}/agent/node_modules/.bin`, "/bin", `${home}/tools`]);
    // The agent root `/`: the state directory alone is hidden.
    expect(shellGuardPaths({ workspace: "/.assemblyline/runs/r/workspace", stateDir: "/.assemblyline", command: "true" }, "/t", {}).hide![0]).toBe("/.assemblyline");
  });

  it("refuses a workspace outside its state directory", () => {
    expect(() => shellGuardPaths({ ...run, stateDir: "/home/a/other/.assemblyline" }, "/t", {})).toThrow(/is not inside the state directory/);
  });
});

/**
 * The early start of a call's sandbox process (`runtime-min/execution/early-start.ts`; issue 14
 * item 3): what the runtime remembers of an announced call's process, when a host may start
 * that process before it opens the runtime, when the runtime adopts it (only when it would launch
 * exactly that process), and what happens to a process or a run folder nobody adopts.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { rememberSandboxStart, SANDBOX_START_FILE, startSandboxEarly, type EarlySandboxStart, type SandboxStartEntry } from "../../runtime-min/execution/early-start.js";
import { verifiedCopyName } from "../../runtime-min/artifact/verified-copy.js";
import { seedTools } from "../helpers/support-agent.js";
import { createAgent } from "./helpers/agent-fixture.js";
import { fixSandboxLaunchTools, holdFixtures } from "./helpers/held-fixtures.js";
import { alive, pollFor } from "./helpers/sandbox-processes.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { runCli } from "../helpers/run-cli.js";

fixSandboxLaunchTools();
const held = holdFixtures();

function startsFile(root: string): string {
  return path.join(root, SANDBOX_START_FILE);
}

function remembered(root: string): Record<string, SandboxStartEntry> {
  return (JSON.parse(fs.readFileSync(startsFile(root), "utf8")) as { starts: Record<string, SandboxStartEntry> }).starts;
}

/** Resolves once process `pid` is gone (a killed process takes a moment to end). */
async function ended(pid: number): Promise<boolean> {
  return pollFor(() => (alive(pid) ? undefined : true), 10_000);
}

/** Opens a runtime whose announced call is `echo` in `runId`, runs that call and closes the runtime. */
async function callEcho(root: string, runId: string, options: { earlyStart?: EarlySandboxStart; memoryMb?: number } = {}): Promise<unknown> {
  const opened = await openRuntime({ root, firstCall: { tool: "echo", runId }, ...options });
  try {
    return await opened.call({ tool: "echo", input: { message: "hi" }, runId });
  } finally {
    await opened.close();
  }
}

/** Resolves once the early process reported ready on its doorbell (it then waits for a call). */
function readyOf(start: EarlySandboxStart): Promise<void> {
  const doorbell = (start as unknown as { spawned: { child: { stdio: Socket[] } } }).spawned.child.stdio[3]!;
  return new Promise((resolve) => doorbell.once("readable", () => resolve()));
}

describe("what the runtime remembers", () => {
  it("keeps, per surface and tool, what an announced call started, and rewrites nothing when a call starts the same again", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    expect(fs.existsSync(startsFile(held.agent.root))).toBe(false);
    expect(await callEcho(held.agent.root, "run-a")).toMatchObject({ status: "ok" });
    const starts = remembered(held.agent.root);
    expect(Object.keys(starts)).toEqual([".\u0000echo"]);
    expect(starts[".\u0000echo"]).toEqual({ bundlePath: expect.stringMatching(/\/\.assemblyline\/bundles\/[0-9a-f]{64}\.mjs$/), memoryMb: 1024, maxResultBytes: 8388608, network: "host" });
    const before = fs.statSync(startsFile(held.agent.root));
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" });
    expect(held.early).toBeDefined();
    expect(await callEcho(held.agent.root, held.early!.runId, { earlyStart: held.early! })).toMatchObject({ status: "ok" });
    const after = fs.statSync(startsFile(held.agent.root));
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
  }, 60_000);

  it("forgets the start of a call that started no process (direct execution)", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    const opened = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: held.early.runId }, earlyStart: held.early, execution: "direct" });
    expect(await opened.call({ tool: "echo", input: { message: "hi" }, runId: held.early.runId })).toMatchObject({ status: "ok" });
    await opened.close();
    expect(await ended(pid)).toBe(true);
    expect(remembered(held.agent.root)).toEqual({});
  }, 60_000);

  it("writes nothing where .assemblyline/ does not exist, and never throws", () => {
    const root = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "al-early-"));
    try {
      const entry = { bundlePath: path.join(root, ".assemblyline/bundles", `${"a".repeat(64)}.mjs`), memoryMb: 64, maxResultBytes: 1024, network: "host" } as const;
      rememberSandboxStart(root, ".", "echo", entry, undefined);
      expect(fs.existsSync(path.join(root, ".assemblyline"))).toBe(false);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the runtime adopts an early process only when it would launch exactly that process", () => {
  it("adopts it: the call runs in the process started before the runtime opened", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    expect(alive(pid)).toBe(true);
    held.runtime = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: held.early.runId }, earlyStart: held.early });
    expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: held.early.runId })).toMatchObject({ status: "ok", output: { message: "hi" }, runId: held.early.runId });
    // A process that is not adopted is killed when the worker asks: this one still runs, warm.
    expect(alive(pid)).toBe(true);
    await held.runtime.close();
    held.runtime = undefined;
    expect(alive(pid)).toBe(false);
  }, 60_000);

  it("ends a process launched otherwise (another memoryMb) and starts its own; the new start is remembered", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a", { memoryMb: 512 });
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    const bridges = bridgeDirsOf(held.early);
    held.runtime = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: held.early.runId }, earlyStart: held.early });
    expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: held.early.runId })).toMatchObject({ status: "ok", output: { message: "hi" } });
    // Ended when the worker asked, not when the runtime closes.
    expect(await ended(pid)).toBe(true);
    expect(bridges.filter((dir) => fs.existsSync(dir))).toEqual([]);
    expect(remembered(held.agent.root)[".\u0000echo"]).toMatchObject({ memoryMb: 1024 });
  }, 60_000);

  it("ends a process that was started for another run than the announced call's", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    // run-b has its folder: a named run without one gets no early start.
    await callEcho(held.agent.root, "run-b");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo", runId: "run-b" })!;
    const pid = held.early.pid!;
    held.runtime = await openRuntime({ root: held.agent.root, firstCall: { tool: "echo", runId: "run-c" }, earlyStart: held.early });
    expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: "run-c" })).toMatchObject({ status: "ok" });
    expect(await ended(pid)).toBe(true);
  }, 60_000);

  it("does not adopt a process whose environment or file-creation mask the host changed since its spawn (a JavaScript project configuration may)", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    const lang = process.env["LANG"];
    const mask = process.umask();
    const restore = (): void => {
      if (lang === undefined) delete process.env["LANG"];
      else process.env["LANG"] = lang;
      process.umask(mask);
    };
    /** Starts early, applies `change`, calls echo with the runtime open: whether the early process served it. */
    const adoptedAfter = async (change: () => void): Promise<boolean> => {
      held.early = startSandboxEarly({ root: held.agent!.root, tool: "echo" })!;
      const pid = held.early.pid!;
      change();
      held.runtime = await openRuntime({ root: held.agent!.root, firstCall: { tool: "echo", runId: held.early.runId }, earlyStart: held.early });
      expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: held.early.runId })).toMatchObject({ status: "ok", output: { message: "hi" } });
      // Not adopted: ended when the worker asked, while the runtime is still open. Adopted: still serving.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const served = alive(pid);
      await held.runtime.close();
      held.runtime = undefined;
      restore();
      return served;
    };
    try {
      expect(await adoptedAfter(() => undefined)).toBe(true);
      expect(await adoptedAfter(() => void (process.env["LANG"] = "de_DE.UTF-8"))).toBe(false);
      expect(await adoptedAfter(() => void process.umask(mask ^ 0o070))).toBe(false);
    } finally {
      restore();
    }
  }, 60_000);

  it("does not adopt a process that exited before the worker asked", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    process.kill(-pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await callEcho(held.agent.root, held.early.runId, { earlyStart: held.early })).toMatchObject({ status: "ok", output: { message: "hi" } });
  }, 60_000);
});

describe("a process that dies unseen", () => {
  it("is replaced when it exited before it was ready and the host was too busy to see it (review F3: the call failed with SIGKILL although the tool never ran)", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    // Killed, and the host's loop blocked meanwhile: its exit is not processed before the worker asks.
    process.kill(-pid, "SIGKILL");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    expect(await callEcho(held.agent.root, held.early.runId, { earlyStart: held.early })).toMatchObject({ status: "ok", output: { message: "hi" } });
  }, 60_000);
});

describe("a process that dies unseen after it was ready", () => {
  it("is replaced when it was killed after its ready message, before the host's loop saw it go (review N3: the call failed with SIGKILL although the tool never ran)", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    // Time to boot and send "ready" (the host reads it only once the worker adopts the process).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    process.kill(-pid, "SIGKILL");
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    expect(await callEcho(held.agent.root, held.early.runId, { earlyStart: held.early })).toMatchObject({ status: "ok", output: { message: "hi" } });
  }, 60_000);
});

describe("an agent root reached through a link", () => {
  it("runs its sandboxed tools (the bundle is imported by its real path), and the early start is adopted", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const link = path.join(fs.mkdtempSync(path.join(path.dirname(held.agent.root), "al-link-")), "agent");
    fs.symlinkSync(held.agent.root, link);
    try {
      expect(await callEcho(link, "run-a")).toMatchObject({ status: "ok", output: { message: "hi" } });
      held.early = startSandboxEarly({ root: link, tool: "echo" });
      expect(held.early).toBeDefined();
      const pid = held.early!.pid!;
      held.runtime = await openRuntime({ root: link, firstCall: { tool: "echo", runId: held.early!.runId }, earlyStart: held.early! });
      expect(await held.runtime.call({ tool: "echo", input: { message: "hi" }, runId: held.early!.runId })).toMatchObject({ status: "ok", output: { message: "hi" } });
      expect(alive(pid)).toBe(true);
    } finally {
      await held.runtime?.close();
      held.runtime = undefined;
      fs.rmSync(path.dirname(link), { recursive: true, force: true });
    }
  }, 60_000);
});

describe("what an early start refuses", () => {
  it("starts nothing without a remembered start for the surface and tool, or with one it cannot trust", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    const root = held.agent.root;
    expect(startSandboxEarly({ root, tool: "echo" })).toBeUndefined();
    await callEcho(root, "run-a");
    const good = remembered(root)[".\u0000echo"]!;
    expect(startSandboxEarly({ root, tool: "other" })).toBeUndefined();
    expect(startSandboxEarly({ root, tool: "echo", surface: "subagents/x" })).toBeUndefined();
    expect(startSandboxEarly({ root, tool: "echo", runId: "../escape" })).toBeUndefined();
    const outside = path.join(root, "elsewhere", path.basename(good.bundlePath));
    fs.mkdirSync(path.dirname(outside));
    fs.copyFileSync(good.bundlePath, outside);
    const linked = path.join(path.dirname(good.bundlePath), `${"b".repeat(64)}.mjs`);
    fs.symlinkSync(outside, linked);
    const refused: SandboxStartEntry[] = [
      { ...good, bundlePath: outside },
      { ...good, bundlePath: path.join(path.dirname(good.bundlePath), "not-a-digest.mjs") },
      { ...good, bundlePath: path.join(path.dirname(good.bundlePath), `${"c".repeat(64)}.mjs`) },
      { ...good, bundlePath: linked },
      { ...good, memoryMb: 8 },
      { ...good, maxResultBytes: 0 },
      { ...good, network: "wide" as never },
    ];
    for (const entry of refused) {
      fs.writeFileSync(startsFile(root), JSON.stringify({ version: 1, starts: { ".\u0000echo": entry } }));
      expect(startSandboxEarly({ root, tool: "echo" }), JSON.stringify(entry)).toBeUndefined();
    }
    for (const text of ["{", JSON.stringify({ version: 2, starts: { ".\u0000echo": good } }), JSON.stringify({ version: 1, starts: [] })]) {
      fs.writeFileSync(startsFile(root), text);
      expect(startSandboxEarly({ root, tool: "echo" }), text).toBeUndefined();
    }
    // The file itself as a cloned repository could hold it: a link (to /dev/zero, or even to a
    // good copy), a FIFO without a writer, a file over the size bound. Nothing is read or started.
    const goodText = JSON.stringify({ version: 1, starts: { ".\u0000echo": good } });
    const goodCopy = path.join(root, "elsewhere", "starts.json");
    fs.writeFileSync(goodCopy, goodText);
    const plants: [string, () => void][] = [
      ["a link to /dev/zero", () => fs.symlinkSync("/dev/zero", startsFile(root))],
      ["a link to a good file", () => fs.symlinkSync(goodCopy, startsFile(root))],
      ["a FIFO", () => expect(spawnSync("mkfifo", [startsFile(root)]).status).toBe(0)],
      ["over the size bound", () => fs.writeFileSync(startsFile(root), goodText.replace("{", `{"pad":"${"x".repeat(300 * 1024)}",`))],
    ];
    for (const [what, plant] of plants) {
      fs.rmSync(startsFile(root), { force: true });
      plant();
      const started = Date.now();
      expect(startSandboxEarly({ root, tool: "echo" }), what).toBeUndefined();
      expect(Date.now() - started, what).toBeLessThan(5_000);
    }
    fs.rmSync(startsFile(root), { force: true });
    fs.writeFileSync(startsFile(root), goodText);
    held.early = startSandboxEarly({ root, tool: "echo" });
    expect(held.early?.pid).toBeDefined();
  }, 60_000);
});

describe("a process nobody adopts", () => {
  it("loads no tool while it waits, and discarding it ends it and removes the empty run folder it made", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    // A bundle that leaves a mark in the workspace when imported, remembered as the tool's.
    // Named as a verified copy (the SHA-256 of its bytes), or the early start would spawn nothing for it.
    const markingText = 'import * as fs from "node:fs"; fs.writeFileSync("imported", "yes"); export default {};\n';
    const marking = path.join(held.agent.root, ".assemblyline/bundles", verifiedCopyName(Buffer.from(markingText)));
    fs.writeFileSync(marking, markingText);
    fs.writeFileSync(startsFile(held.agent.root), JSON.stringify({ version: 1, starts: { ".\u0000echo": { ...remembered(held.agent.root)[".\u0000echo"], bundlePath: marking } } }));
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const runDir = path.join(held.agent.root, ".assemblyline/runs", held.early.runId);
    const bridges = bridgeDirsOf(held.early);
    await readyOf(held.early);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(fs.existsSync(path.join(runDir, "workspace", "imported"))).toBe(false);
    const pid = held.early.pid!;
    held.early.discard();
    expect(await ended(pid)).toBe(true);
    expect(fs.existsSync(runDir)).toBe(false);
    expect(bridges.filter((dir) => fs.existsSync(dir))).toEqual([]);
  }, 60_000);

  it("keeps a run folder it did not make, or one a runtime opened with it", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo", runId: "run-a" })!;
    held.early.discard();
    expect(fs.existsSync(path.join(held.agent.root, ".assemblyline/runs/run-a/workspace"))).toBe(true);
    // A run the user named keeps its folder: a second host's start for the same run found it and
    // runs in it, and the first host's call being refused must not remove it.
    const first = startSandboxEarly({ root: held.agent.root, tool: "echo", runId: "run-a" })!;
    const second = startSandboxEarly({ root: held.agent.root, tool: "echo", runId: "run-a" })!;
    first.discard();
    expect(fs.existsSync(path.join(held.agent.root, ".assemblyline/runs/run-a/workspace/.tmp"))).toBe(true);
    expect(await callEcho(held.agent.root, "run-a", { earlyStart: second })).toMatchObject({ status: "ok", output: { message: "hi" } });
    // So a named run that has no folder yet gets no early start: a call refused before its
    // runtime opens would leave a folder it cannot remove (README trial of 6 December).
    expect(startSandboxEarly({ root: held.agent.root, tool: "echo", runId: "run-named" })).toBeUndefined();
    expect(fs.existsSync(path.join(held.agent.root, ".assemblyline/runs/run-named"))).toBe(false);
    const claimed = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    held.early = claimed;
    const opened = await openRuntime({ root: held.agent.root, firstCall: { tool: "no_such_tool", runId: claimed.runId }, earlyStart: claimed });
    await opened.close();
    expect(fs.existsSync(path.join(held.agent.root, ".assemblyline/runs", claimed.runId, "workspace"))).toBe(true);
  }, 60_000);
});

describe("ending a process nobody adopts", () => {
  it("never signals the process group of a process that has already exited (its number may be another group's by then)", async () => {
    held.agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    await callEcho(held.agent.root, "run-a");
    held.early = startSandboxEarly({ root: held.agent.root, tool: "echo" })!;
    const pid = held.early.pid!;
    const bridges = bridgeDirsOf(held.early);
    const child = (held.early as unknown as { spawned: { child: import("node:child_process").ChildProcess } }).spawned.child;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-pid, "SIGKILL");
    await exited;
    const signalled: (number | string)[] = [];
    const kill = process.kill;
    process.kill = ((target: number, signal?: string | number) => {
      signalled.push(target);
      return kill.call(process, target, signal);
    }) as typeof process.kill;
    try {
      held.early.discard();
    } finally {
      process.kill = kill;
    }
    expect(signalled).toEqual([]);
    expect(bridges.filter((dir) => fs.existsSync(dir))).toEqual([]);
  }, 60_000);
});

describe("a host that never adopts nor discards its early process", () => {
  it("still ends on its own: the early process does not hold the host's event loop (and dies with it)", async () => {
    // The example agent, called once through the built CLI: that leaves what a later process's
    // early start reads (the remembered start and the isolation probe's success on this machine).
    const root = tempDir("al-early-host-");
    fs.cpSync(path.join(repoRoot, "examples/support-agent"), root, { recursive: true, filter: (source) => !source.includes(`${path.sep}.assemblyline`) });
    const call = runCli(["call", "echo", root, "--input", '{"message":"hi"}']);
    expect(call.status, call.stderr).toBe(0);
    // A separate host process from the built toolchain, whose work ends without a discard.
    const module = path.join(repoRoot, "dist", "runtime-min", "execution", "early-start.js");
    const script = `import { startSandboxEarly } from ${JSON.stringify(pathToFileURL(module).href)}; const start = startSandboxEarly({ root: ${JSON.stringify(root)}, tool: "echo" }); console.log(start ? start.pid : "none");`;
    const host = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(host.error).toBeUndefined();
    expect(host.status, host.stderr).toBe(0);
    expect(host.stdout.trim(), host.stderr).toMatch(/^\d+$/);
    const pid = Number(host.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    // Its sandbox process was ended with it (the launcher's parent-death signal).
    expect(await ended(pid)).toBe(true);
  }, 60_000);
});

/** The bridge folders the host has for the early process (the one the start made). */
function bridgeDirsOf(start: EarlySandboxStart): string[] {
  const spawned = (start as unknown as { spawned?: { bridgeDir: string } }).spawned;
  return spawned ? [spawned.bridgeDir] : [];
}

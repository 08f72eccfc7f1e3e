/**
 * Both isolation probes check `setpriv --pdeathsig KILL` on its own before they put it in a
 * launch (helper-65's review of 5 December, A4). A `setpriv` without `--pdeathsig` (util-linux
 * before 2.33, busybox) used to be found and used unprobed by the shell's launch, so every
 * isolated shell command failed with its usage message; the sandbox process's launch used it
 * too, so its probe failed and the sandbox process then failed to start under it. Now such a
 * `setpriv` is left out, and commands and sandbox processes still run isolated.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWorkspace, execInWorkspace } from "../../runtime-min/execution/workspace.js";
import { probeShellIsolation } from "../../runtime-min/index.js";
import { isolatedShellLaunch, setUnshareCommand } from "../../runtime-min/sandbox/shell-isolation.js";
import { seedTools } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
/** What busybox's and util-linux < 2.33's `setpriv` answer to `--pdeathsig`. */
const OLD_SETPRIV = `#!/bin/sh\necho "setpriv: unrecognized option '--pdeathsig'" >&2\necho "Usage: setpriv [options] <program> [<argument>...]" >&2\nexit 1\n`;

/** The real `unshare` and `mount` linked into a folder of their own, with `setpriv` as given. */
function launchersWith(setpriv: string | undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-setpriv-"));
  for (const name of ["unshare", "mount"]) fs.symlinkSync(realExecutable(name), path.join(dir, name));
  if (setpriv === "real") fs.symlinkSync(realExecutable("setpriv"), path.join(dir, "setpriv"));
  else if (setpriv !== undefined) fs.writeFileSync(path.join(dir, "setpriv"), setpriv, { mode: 0o755 });
  return dir;
}

function realExecutable(name: string): string {
  const found = spawnSync("/bin/sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
  if (!found) throw new Error(`${name} is not installed on this machine (util-linux is needed here, as on CI)`);
  return fs.realpathSync(found);
}

describe("the shell probe checks setpriv before isolated commands start under it", () => {
  const dirs: string[] = [];
  afterAll(() => {
    setUnshareCommand(undefined);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Probes with the launchers of `dir`, and runs one isolated command with what the probe found. */
  async function probeAndRun(dir: string): Promise<{ tools: Record<string, unknown>; stdout: string; launch: string }> {
    setUnshareCommand(path.join(dir, "unshare"));
    const probe = await probeShellIsolation();
    setUnshareCommand(undefined);
    if (!probe.available) throw new Error(probe.reason);
    const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-setpriv-ws-")));
    dirs.push(base);
    const workspace = ensureWorkspace(path.join(base, ".assemblyline"), "run-a");
    const result = await execInWorkspace(workspace, "echo $PPID", 10_000, probe.tools);
    const launch = isolatedShellLaunch(probe.tools, { workspace, stateDir: path.join(base, ".assemblyline"), command: "true" }).command;
    return { tools: { ...probe.tools }, stdout: result.stdout, launch };
  }

  it("a setpriv without --pdeathsig is left out, and commands still run isolated", async () => {
    const dir = launchersWith(OLD_SETPRIV);
    dirs.push(dir);
    const { tools, stdout, launch } = await probeAndRun(dir);
    expect(tools["setpriv"]).toBeUndefined();
    // Starts with prlimit (the command's limits) where it is found, never with the old setpriv.
    expect(launch).toBe(tools["prlimit"] ?? path.join(dir, "unshare"));
    // PID 1's parent is outside the namespace: isolated.
    expect(stdout).toBe("0\n");
  });

  it("a setpriv with --pdeathsig is kept: commands start under it", async () => {
    const dir = launchersWith("real");
    dirs.push(dir);
    const { tools, stdout, launch } = await probeAndRun(dir);
    expect(tools["setpriv"]).toBe(path.join(dir, "setpriv"));
    expect(launch).toBe(path.join(dir, "setpriv"));
    expect(stdout).toBe("0\n");
  });
});

describe("the sandbox process probe checks setpriv before sandbox processes start under it", () => {
  let agent: AgentFixture;
  let fakeBin: string;

  let runs: string;
  beforeAll(async () => {
    agent = await createAgent([{ name: "echo", file: seedTools.echo }]);
    // The old setpriv, counting its runs (its environment is empty: the file is named in it).
    runs = path.join(tempDir("al-setpriv-runs-"), "runs");
    fakeBin = launchersWith(OLD_SETPRIV.replace("#!/bin/sh\n", `#!/bin/sh\necho run >> '${runs}'\n`));
    const runtime = path.resolve(import.meta.dirname, "..", "..", "runtime-min", "index.ts");
    const isolation = path.resolve(import.meta.dirname, "..", "..", "runtime-min", "sandbox", "process-isolation.ts");
    fs.writeFileSync(
      path.join(agent.root, "host.ts"),
      `import { openRuntime } from ${JSON.stringify(runtime)};
import { probeProcessIsolation } from ${JSON.stringify(isolation)};
const runtime = await openRuntime({ root: process.cwd() });
const probe = await probeProcessIsolation();
const result = await runtime.call({ tool: "echo", input: { message: "under the old setpriv" }, runId: "r-" + process.pid });
await runtime.close();
console.log(JSON.stringify({ setpriv: probe.tools.setpriv ?? null, unshare: probe.tools.unshare ?? null, unavailable: probe.unavailableReason ?? null, status: result.status, output: result.output }));
`,
    );
  }, 120_000);

  afterAll(() => {
    agent?.cleanup();
    if (fakeBin) fs.rmSync(fakeBin, { recursive: true, force: true });
  });

  /** One host process whose PATH finds the old `setpriv` first. */
  function host(): Record<string, unknown> {
    const env = { ...process.env, PATH: `${fakeBin}${path.delimiter}${process.env["PATH"] ?? ""}` };
    const run = spawnSync(process.execPath, ["--import", loader, path.join(agent.root, "host.ts")], { cwd: agent.root, env, encoding: "utf8", timeout: 90_000 });
    expect(run.status, run.stderr).toBe(0);
    return JSON.parse(run.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
  }

  it("probed: setpriv is left out, the launch still isolates, and the call runs", () => {
    const first = host();
    expect(first).toMatchObject({ setpriv: null, unshare: path.join(fakeBin, "unshare"), unavailable: null, status: "ok", output: { message: "under the old setpriv" } });
  }, 120_000);

  it("remembered (the probe cache of the run before): setpriv is still left out, and no probe runs it again", () => {
    const cache = fs.readFileSync(path.join(agent.root, ".assemblyline", "cache", "isolation.json"), "utf8");
    // Both probes remembered it: the sandbox process's and the shell's (every call starts the shell's).
    expect(cache.split("setpriv without --pdeathsig").length - 1).toBe(2);
    const before = fs.readFileSync(runs, "utf8");
    const again = host();
    expect(again).toMatchObject({ setpriv: null, unshare: path.join(fakeBin, "unshare"), status: "ok", output: { message: "under the old setpriv" } });
    // A remembered probe starts no process (it cost every call a setpriv run, about 10 ms).
    expect(fs.readFileSync(runs, "utf8")).toBe(before);
  }, 120_000);
});

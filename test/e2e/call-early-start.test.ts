/**
 * The early start of `assembly-line call` through the real binary (`cli/early-call.ts`; issue 14
 * item 3): after a call of a tool, the next call of it spawns its sandbox process before the
 * CLI bundle loads, and answers exactly as a call without it; a call the CLI refuses before the
 * runtime opens leaves no run folder behind.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli } from "../helpers/run-cli.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

const probe = path.join(repoRoot, "test/fixtures/early-start/spawn-probe.cjs");
const START_FILE = ".assemblyline/cache/sandbox-start.json";

/** Runs `call` with the spawn probe preloaded; returns the run and, per sandbox spawn, whether the CLI bundle was loaded by then. */
function probedCall(root: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string; spawns: { bundleLoaded: boolean }[] } {
  const file = path.join(tempDir("al-probe-"), "spawns.json");
  const run = runCli(["call", ...args], { cwd: root, env: { NODE_OPTIONS: `--require ${probe}`, AL_SPAWN_PROBE_FILE: file } });
  return { ...run, spawns: JSON.parse(fs.readFileSync(file, "utf8")) as { bundleLoaded: boolean }[] };
}

/** A call's JSON output with its generated ids masked. */
function masked(stdout: string): string {
  return stdout.replace(/\b(run|call)_[0-9a-f]{36}\b/g, "$1_<id>");
}

function runsOf(root: string): string[] {
  const runs = path.join(root, ".assemblyline/runs");
  return fs.existsSync(runs) ? fs.readdirSync(runs).sort() : [];
}

describe("assembly-line call: the early start", () => {
  it("spawns the sandbox process before the CLI loads once the tool was called, and answers the same", () => {
    const root = copyAgent(supportAgentRoot);
    const input = ["echo", "--input", '{"message":"hi"}', "--format", "json"];
    // The first call compiles; its isolation probe finishes before .assemblyline/ exists, and the
    // success is written once it does (runtime-min/sandbox/probe-cache.ts): one call warms up.
    expect(runCli(["call", ...input], { cwd: root }).status).toBe(0);
    expect(fs.existsSync(path.join(root, START_FILE))).toBe(true);
    expect(fs.existsSync(path.join(root, ".assemblyline/cache/isolation.json"))).toBe(true);
    const second = probedCall(root, input);
    expect(second.status, second.stderr).toBe(0);
    expect(second.spawns).toEqual([{ bundleLoaded: false }]);
    // Nothing remembered: the process starts after the artifact was verified.
    fs.rmSync(path.join(root, START_FILE));
    const late = probedCall(root, input);
    expect(late.status, late.stderr).toBe(0);
    expect(late.spawns).toEqual([{ bundleLoaded: true }]);
    const early = probedCall(root, input);
    expect(early.status, early.stderr).toBe(0);
    expect(early.spawns).toEqual([{ bundleLoaded: false }]);
    expect(masked(early.stdout)).toBe(masked(late.stdout));
    expect(JSON.parse(early.stdout)).toMatchObject({ status: "ok", output: { message: "hi" } });
    // With --run of a run that has its folder, the early start takes that run; a named run that
    // has none yet gets no early start (a refused call would leave a folder it cannot remove).
    const fresh = probedCall(root, [...input, "--run", "run-named"]);
    expect(fresh.spawns).toEqual([{ bundleLoaded: true }]);
    expect(JSON.parse(fresh.stdout)).toMatchObject({ status: "ok", runId: "run-named" });
    const named = probedCall(root, [...input, "--run", "run-named"]);
    expect(named.spawns).toEqual([{ bundleLoaded: false }]);
    expect(JSON.parse(named.stdout)).toMatchObject({ status: "ok", runId: "run-named" });
  }, 120_000);

  it("leaves no run folder when the CLI refuses the call before the runtime opens", () => {
    const root = copyAgent(supportAgentRoot);
    for (let call = 0; call < 2; call += 1) expect(runCli(["call", "echo", "--input", '{"message":"hi"}'], { cwd: root }).status).toBe(0);
    const before = runsOf(root);
    const badCall = probedCall(root, ["echo", "--input", '{"message":"hi"}', "--call", "../x"]);
    expect(badCall.status).toBe(2);
    expect(badCall.stdout + badCall.stderr).toContain("AL8022");
    expect(badCall.spawns).toEqual([{ bundleLoaded: false }]);
    const badInput = probedCall(root, ["echo", "--input", "{not json"]);
    expect(badInput.status).not.toBe(0);
    expect(badInput.spawns).toEqual([{ bundleLoaded: false }]);
    // A new run named with --run, refused the same way: no folder either (README trial of 6 December).
    const badNamed = probedCall(root, ["echo", "--input", "{not json", "--run", "typed-run"]);
    expect(badNamed.status).toBe(2);
    expect(badNamed.spawns).toEqual([]);
    expect(runsOf(root)).toEqual(before);
  }, 120_000);

  it("a project configuration that is code ran after the early start: its process is not adopted, its folders are made anew, and nothing is remembered (review F2, F5)", () => {
    const root = copyAgent(supportAgentRoot);
    const input = ["echo", "--input", '{"message":"hi"}', "--format", "json"];
    expect(runCli(["call", ...input], { cwd: root }).status).toBe(0);
    expect(fs.existsSync(path.join(root, START_FILE))).toBe(true);
    // The configuration changes the file-creation mask, which the run's folders are made with.
    fs.copyFileSync(path.join(repoRoot, "test/fixtures/early-start/umask-config.cjs"), path.join(root, "assembly-line.config.cjs"));
    const before = runsOf(root);
    const first = probedCall(root, input);
    expect(first.status, first.stderr).toBe(0);
    // The early process was spawned before the configuration ran, then ended; the runtime spawned its own.
    expect(first.spawns).toEqual([{ bundleLoaded: false }, { bundleLoaded: true }]);
    const runId = (JSON.parse(first.stdout) as { runId: string }).runId;
    expect(runsOf(root)).toEqual([...before, runId].sort());
    for (const folder of [runId, `${runId}/workspace`, `${runId}/workspace/.tmp`]) {
      expect(fs.statSync(path.join(root, ".assemblyline/runs", folder)).mode & 0o777, folder).toBe(0o700);
    }
    // Forgotten: the next call starts its process only after the configuration ran.
    expect(JSON.parse(fs.readFileSync(path.join(root, START_FILE), "utf8")).starts).toEqual({});
    const second = probedCall(root, input);
    expect(second.status, second.stderr).toBe(0);
    expect(second.spawns).toEqual([{ bundleLoaded: true }]);
  }, 120_000);

  it("a command that ends without settling (a configuration calling process.exit) ends its early process and leaves no run folder (review F6)", () => {
    const root = copyAgent(supportAgentRoot);
    for (let call = 0; call < 2; call += 1) expect(runCli(["call", "echo", "--input", '{"message":"hi"}'], { cwd: root }).status).toBe(0);
    const before = runsOf(root);
    fs.writeFileSync(path.join(root, "assembly-line.config.cjs"), "process.exit(0);\n");
    const exited = probedCall(root, ["echo", "--input", '{"message":"hi"}']);
    expect(exited.spawns).toEqual([{ bundleLoaded: false }]);
    expect(runsOf(root)).toEqual(before);
    // A configuration whose top-level await never settles: exit 13, as before, and no folder either.
    fs.writeFileSync(path.join(root, "assembly-line.config.mjs"), "export default await new Promise(() => {});\n");
    fs.rmSync(path.join(root, "assembly-line.config.cjs"));
    const stuck = probedCall(root, ["echo", "--input", '{"message":"hi"}']);
    expect(stuck.status).toBe(13);
    expect(runsOf(root)).toEqual(before);
  }, 120_000);
});

/**
 * What decides whether an early sandbox process may be adopted (`runtime-min/sandbox/sandbox-spawn.ts`,
 * `sameSpawnOptions`): every launch option, each on its own; and that a spawned child gets its
 * entry script without the host's event loop (`spawnSandboxProcess`).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { sameSpawnOptions, spawnSandboxProcess, type SandboxSpawnOptions } from "../../runtime-min/sandbox/sandbox-spawn.js";
import { tempDir } from "../helpers/temp-tree.js";

const base: SandboxSpawnOptions = {
  childSource: "entry",
  bundlePath: "/agent/.assemblyline/bundles/a.mjs",
  workspace: "/agent/.assemblyline/runs/r/workspace",
  bridgeRoot: "/dev/shm/bridge",
  permission: "--experimental-permission",
  launch: { setpriv: "/usr/bin/setpriv", unshare: "/usr/bin/unshare", prlimit: "/usr/bin/prlimit" },
  network: "host",
  memoryMb: 1024,
  maxResultBytes: 8,
};

describe("sameSpawnOptions", () => {
  it("is true for equal options (the launchers compared by path), false when any one differs", () => {
    expect(sameSpawnOptions(base, { ...base, launch: { ...base.launch } })).toBe(true);
    const changed: Partial<SandboxSpawnOptions>[] = [
      { childSource: "other entry" },
      { bundlePath: "/agent/.assemblyline/bundles/b.mjs" },
      { workspace: "/agent/.assemblyline/runs/s/workspace" },
      { bridgeRoot: "/run/user/0/bridge" },
      { permission: undefined },
      { launch: { ...base.launch, setpriv: undefined } },
      { launch: { ...base.launch, unshare: undefined } },
      { launch: { ...base.launch, prlimit: undefined } },
      { network: "none" },
      { memoryMb: 512 },
      { maxResultBytes: 9 },
    ];
    for (const change of changed) expect(sameSpawnOptions(base, { ...base, ...change }), JSON.stringify(change)).toBe(false);
    // Every option is compared: a new one must be added to sameSpawnOptions (and here).
    expect(changed.flatMap((change) => Object.keys(change)).filter((key, at, all) => all.indexOf(key) === at).sort()).toEqual(Object.keys(base).sort());
  });
});

describe("spawnSandboxProcess", () => {
  /** Spawns a child whose entry script (`size` bytes or more) writes `.tmp/started` in its workspace. */
  function spawnMarker(size: number): { started: string; spawned: ReturnType<typeof spawnSandboxProcess> } {
    const root = tempDir("al-spawn-stdin-");
    const workspace = path.join(root, "workspace");
    fs.mkdirSync(workspace);
    const started = path.join(workspace, ".tmp", "started");
    const spawned = spawnSandboxProcess({
      ...base,
      // A string of `size` characters whose length the script checks: a script cut short, or
      // with any part sent twice, fails to parse or throws, and writes no mark.
      childSource: `const pad = "${"x".repeat(size)}";\nif (pad.length !== ${size}) throw new Error("cut");\nimport * as fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(started)}, "yes");\n`,
      bundlePath: path.join(root, "bundle.mjs"),
      workspace,
      bridgeRoot: path.join(root, "bridges"),
      permission: undefined,
      launch: { setpriv: undefined, unshare: undefined, prlimit: undefined },
    });
    return { started, spawned };
  }

  function stop({ child, bridgeDir }: ReturnType<typeof spawnSandboxProcess>): void {
    child.kill("SIGKILL");
    fs.rmSync(bridgeDir, { recursive: true, force: true });
  }

  // A host that keeps its thread busy right after the spawn (the CLI loading its bundle after a
  // call's early start, the runtime opening SQLite after a prestart) must not hold the child at
  // "reading its entry script": the script and the end of stdin reach the child at once, not on
  // the host's next turn of its event loop.
  it("gives the child its whole entry script and the end of its stdin without waiting for the host's event loop", () => {
    // 40 KiB: more than the child's own script (about 30 KiB), within one pipe's 64 KiB.
    const { started, spawned } = spawnMarker(40 * 1024);
    try {
      // Blocks this thread (no event loop turn) until the child ran its script, for at most 10 s.
      const deadline = Date.now() + 10_000;
      const pause = new Int32Array(new SharedArrayBuffer(4));
      while (!fs.existsSync(started) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 10);
      expect(fs.existsSync(started)).toBe(true);
    } finally {
      stop(spawned);
    }
  });

  it("sends a script beyond the pipe's capacity whole, the rest through the stream", async () => {
    const { started, spawned } = spawnMarker(300 * 1024);
    try {
      const deadline = Date.now() + 10_000;
      // The mark's text, once written: writeFileSync creates the file before it writes "yes", so
      // the file can exist empty for a moment (the fresh-clone run of stop 47 read it then).
      const mark = (): string => (fs.existsSync(started) ? fs.readFileSync(started, "utf8") : "");
      while (mark() !== "yes" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(mark()).toBe("yes");
    } finally {
      stop(spawned);
    }
  });
});

describe("spawnSandboxProcess when it cannot start", () => {
  it("removes the bridge folder it made when the launch cannot be prepared (a workspace that is a file)", () => {
    const bridgeRoot = tempDir("al-spawn-bridges-");
    const workspace = path.join(tempDir("al-spawn-ws-"), "workspace");
    fs.writeFileSync(workspace, "not a folder");
    expect(() => spawnSandboxProcess({ ...base, bridgeRoot, workspace })).toThrow(/ENOTDIR|EEXIST/);
    expect(fs.readdirSync(bridgeRoot)).toEqual([]);
  });
});

/**
 * What decides whether an early sandbox process may be adopted (`runtime-min/sandbox/sandbox-spawn.ts`,
 * `sameSpawnOptions`): every launch option, each on its own.
 */
import { describe, expect, it } from "vitest";
import { sameSpawnOptions, type SandboxSpawnOptions } from "../../runtime-min/sandbox/sandbox-spawn.js";

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

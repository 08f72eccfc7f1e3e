/**
 * The isolation probes' cache (issue 14 item 3; runtime-min/sandbox/probe-cache.ts): a success
 * is remembered in `<root>/.assemblyline/cache/isolation.json` under the fingerprint of the
 * machine as it is, so the next `call` launches no probe; a failure is never remembered, so a
 * missing isolation is found, and warned about (AL8031), by every process.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

const linux = process.platform === "linux";
const CACHE = ".assemblyline/cache/isolation.json";

/**
 * The probe-cache module afresh (its cache root is chosen once per module instance), with a
 * per-user folder of its own (`userFolder`, default a new one): the real one holds this
 * machine's records.
 */
async function freshCache(userFolder: string | null = path.join(tempDir("al-probe-user-"), "private")): Promise<typeof import("../../runtime-min/sandbox/probe-cache.js")> {
  vi.resetModules();
  const cache = await import("../../runtime-min/sandbox/probe-cache.js");
  cache.useUserIsolationFolder(userFolder);
  return cache;
}

describe("the probe cache", () => {
  let root: string;
  beforeEach(() => {
    root = tempDir("al-probe-cache-");
    fs.mkdirSync(path.join(root, ".assemblyline"));
  });

  it.runIf(linux)("fingerprints the probe's inputs: the same machine and inputs give the same print; another kind or a changed executable another", async () => {
    const cache = await freshCache();
    const tool = path.join(root, "tool");
    fs.writeFileSync(tool, "#!/bin/sh\n");
    const first = cache.isolationFingerprint("shell", [tool, "/bin/sh"]);
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(cache.isolationFingerprint("shell", [tool, "/bin/sh"])).toBe(first);
    expect(cache.isolationFingerprint("process", [tool, "/bin/sh"])).not.toBe(first);
    fs.appendFileSync(tool, "true\n");
    expect(cache.isolationFingerprint("shell", [tool, "/bin/sh"])).not.toBe(first);
  });

  it.runIf(linux)("fingerprints a hidden directory by identity: a file created in it (a semaphore in /dev/shm) changes nothing; its removal does", async () => {
    const cache = await freshCache();
    const hidden = path.join(root, "shm");
    fs.mkdirSync(hidden);
    const first = cache.isolationFingerprint("shell", ["/bin/sh"], [hidden]);
    fs.writeFileSync(path.join(hidden, "sem.test"), "");
    fs.utimesSync(hidden, new Date(0), new Date(0));
    expect(cache.isolationFingerprint("shell", ["/bin/sh"], [hidden])).toBe(first);
    fs.rmSync(hidden, { recursive: true });
    expect(cache.isolationFingerprint("shell", ["/bin/sh"], [hidden])).not.toBe(first);
  });

  it("keeps a success under its fingerprint only, one record per kind, and nothing without a root", async () => {
    const cache = await freshCache(null); // the agent's record alone
    // No root named yet: nothing recorded, nothing read.
    cache.recordSuccess("shell", "print-1", "kill-child");
    expect(cache.cachedSuccess("shell", "print-1")).toBeUndefined();
    cache.useIsolationCache(root);
    cache.recordSuccess("shell", "print-1", "kill-child");
    cache.recordSuccess("process", "print-2", "isolated");
    expect(cache.cachedSuccess("shell", "print-1")).toBe("kill-child");
    expect(cache.cachedSuccess("process", "print-2")).toBe("isolated");
    // Another machine state (another fingerprint), or no fingerprint (no /proc): a miss.
    expect(cache.cachedSuccess("shell", "print-2")).toBeUndefined();
    expect(cache.cachedSuccess("shell", undefined)).toBeUndefined();
    // A damaged file is a miss and is replaced by the next success.
    fs.writeFileSync(path.join(root, CACHE), "{");
    expect(cache.cachedSuccess("shell", "print-1")).toBeUndefined();
    cache.recordSuccess("shell", "print-3", "no-kill-child");
    expect(cache.cachedSuccess("shell", "print-3")).toBe("no-kill-child");
  });

  it.runIf(linux)("reads no link, FIFO or oversized file as the record (a cloned agent folder may hold any), and does not wait on a FIFO", async () => {
    const cache = await freshCache(null); // the agent's record alone
    cache.useIsolationCache(root);
    cache.recordSuccess("shell", "print-1", "kill-child");
    const good = fs.readFileSync(path.join(root, CACHE), "utf8");
    const copy = path.join(root, "good-copy.json");
    fs.writeFileSync(copy, good);
    const plants: [string, () => void][] = [
      ["a link to a good record", () => fs.symlinkSync(copy, path.join(root, CACHE))],
      ["a link to /dev/zero", () => fs.symlinkSync("/dev/zero", path.join(root, CACHE))],
      ["a FIFO", () => expect(spawnSync("mkfifo", [path.join(root, CACHE)]).status).toBe(0)],
      ["over the size bound", () => fs.writeFileSync(path.join(root, CACHE), good.replace("{", `{"pad":"${"x".repeat(64 * 1024)}",`))],
    ];
    for (const [what, plant] of plants) {
      fs.rmSync(path.join(root, CACHE), { force: true });
      plant();
      const started = Date.now();
      expect(cache.cachedSuccess("shell", "print-1"), what).toBeUndefined();
      expect(Date.now() - started, what).toBeLessThan(5_000);
    }
  });

  it("keeps a success found before .assemblyline/ exists, and writes it when the root is named again once it does", async () => {
    const cache = await freshCache(null); // the agent's record alone
    const fresh = path.join(root, "fresh-agent");
    fs.mkdirSync(fresh);
    cache.useIsolationCache(fresh);
    cache.recordSuccess("process", "print-1", "isolated");
    expect(fs.existsSync(path.join(fresh, ".assemblyline"))).toBe(false);
    cache.useIsolationCache(fresh);
    expect(fs.existsSync(path.join(fresh, ".assemblyline"))).toBe(false);
    // The compile made the state directory; openRuntime names the root again.
    fs.mkdirSync(path.join(fresh, ".assemblyline"));
    cache.useIsolationCache(fresh);
    expect(cache.cachedSuccess("process", "print-1")).toBe("isolated");
    // Written once: a later success of the same kind is not overwritten by the old one.
    cache.recordSuccess("process", "print-2", "isolated");
    cache.useIsolationCache(fresh);
    expect(cache.cachedSuccess("process", "print-2")).toBe("isolated");
  });

  it("keeps a success per user too: another agent's first lookup finds it there, and copies it into its own record", async () => {
    const user = path.join(tempDir("al-probe-user-"), "private");
    const first = await freshCache(user);
    first.useIsolationCache(root);
    first.recordSuccess("shell", "print-1", "kill-child");
    expect(first.isolationCacheStats()).toMatchObject({ userWrites: 1 });
    expect(fs.readdirSync(user).filter((name) => /^isolation-[0-9a-f]{32}\.json$/.test(name))).toHaveLength(1);
    // Another agent in another process (a fresh module): its own record has nothing yet.
    const other = tempDir("al-probe-other-");
    fs.mkdirSync(path.join(other, ".assemblyline"));
    const second = await freshCache(user);
    second.useIsolationCache(other);
    expect(second.cachedSuccess("shell", "print-1")).toBe("kill-child");
    expect(second.isolationCacheStats()).toEqual({ agentHits: 0, userHits: 1, misses: 0, userWrites: 0 });
    expect(JSON.parse(fs.readFileSync(path.join(other, CACHE), "utf8"))).toEqual({ shell: { fingerprint: "print-1", value: "kill-child" } });
    // The next lookup is the agent's own; another fingerprint or kind (a changed machine) is a miss.
    expect(second.cachedSuccess("shell", "print-1")).toBe("kill-child");
    expect(second.cachedSuccess("shell", "print-2")).toBeUndefined();
    expect(second.cachedSuccess("process", "print-1")).toBeUndefined();
    expect(second.isolationCacheStats()).toEqual({ agentHits: 1, userHits: 1, misses: 2, userWrites: 0 });
    // Without a root named, the per-user record is not read either.
    const third = await freshCache(user);
    expect(third.cachedSuccess("shell", "print-1")).toBeUndefined();
  });

  it("reads no per-user record that group or others can write, or that another user owns, nor one from a folder that is not private", async () => {
    const user = path.join(tempDir("al-probe-user-"), "private");
    const writer = await freshCache(user);
    writer.useIsolationCache(root);
    writer.recordSuccess("process", "print-1", "isolated");
    const [name] = fs.readdirSync(user).filter((entry) => entry.startsWith("isolation-"));
    const record = path.join(user, name!);
    expect((fs.statSync(record).mode & 0o777).toString(8)).toBe("600");
    /** Whether a fresh process of another agent finds the record. */
    const found = async (folder: string = user): Promise<string | undefined> => {
      const other = tempDir("al-probe-other-");
      const cache = await freshCache(folder);
      cache.useIsolationCache(other);
      return cache.cachedSuccess("process", "print-1");
    };
    expect(await found()).toBe("isolated");
    for (const mode of [0o620, 0o602, 0o666]) {
      fs.chmodSync(record, mode);
      expect(await found(), mode.toString(8)).toBeUndefined();
    }
    fs.chmodSync(record, 0o600);
    expect(await found()).toBe("isolated");
    // The folder itself: group-writable, or a link to a private folder, is not used.
    fs.chmodSync(user, 0o770);
    expect(await found()).toBeUndefined();
    fs.chmodSync(user, 0o700);
    const link = path.join(path.dirname(user), "link");
    fs.symlinkSync(user, link);
    expect(await found(link)).toBeUndefined();
    // Another user's record or folder (as root, which the suite runs as here, by chown; the rule itself for any user).
    const { isPrivateStat } = await import("../../common/private-cache-folder.js");
    const uid = process.getuid?.() ?? 0;
    expect(isPrivateStat({ uid, mode: 0o100600 })).toBe(true);
    expect(isPrivateStat({ uid: uid + 1, mode: 0o100600 })).toBe(process.platform === "win32");
    if (uid === 0) {
      fs.chownSync(record, 4321, 4321);
      expect(await found()).toBeUndefined();
      fs.chownSync(record, 0, 0);
      expect(await found()).toBe("isolated");
      fs.chownSync(user, 4321, 4321);
      expect(await found()).toBeUndefined();
    }
  });

  it("never creates the root or its state directory", async () => {
    const cache = await freshCache();
    const missing = path.join(root, "no-such-agent");
    cache.useIsolationCache(missing);
    cache.recordSuccess("shell", "print-1", "kill-child");
    expect(fs.existsSync(missing)).toBe(false);
  });
});

describe.runIf(linux)("call and the probe cache", () => {
  let agent: string;
  let bin: string;
  let log: string;
  beforeAll(() => {
    agent = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCli(["compile", agent]).status).toBe(0);
    // An `unshare` first on PATH that logs its arguments, then runs the real one.
    const realUnshare = ["/usr/bin/unshare", "/bin/unshare"].find((file) => fs.existsSync(file));
    bin = tempDir("al-fake-path-");
    log = path.join(bin, "unshare-launches");
    // One file per launch: the probes run side by side (lines appended to one file interleave), and a sandbox process's link guard script has newlines of its own.
    fs.writeFileSync(path.join(bin, "unshare"), `#!/bin/sh\nmkdir -p '${log}'\nprintf '%s ' "$@" > "$(mktemp -p '${log}' launch.XXXXXX)"\nexec ${realUnshare ?? "/nonexistent/unshare"} "$@"\n`, { mode: 0o755 });
  }, 120_000);

  const call = () => runCliJson(["call", "echo", agent, "--input", '{"message":"hi"}', "--format", "json"], { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } });
  // A probe launches `unshare ... sh -c`; a sandbox process (`--input-type=module`) too, through its link guard.
  const probes = () => (fs.existsSync(log) ? fs.readdirSync(log).map((file) => fs.readFileSync(path.join(log, file), "utf8")).filter((line) => line.includes("sh -c") && !line.includes("--input-type=module")) : []);

  it("probes once: the next call finds the success in .assemblyline/cache/isolation.json and launches no probe", () => {
    fs.rmSync(path.join(agent, CACHE), { force: true });
    fs.rmSync(log, { recursive: true, force: true });
    const first = call();
    expect(first.json.output).toEqual({ message: "hi" });
    const probed = probes().length;
    // Both probes ran (each launches `unshare ... sh -c`), unless this machine cannot isolate.
    if (!fs.existsSync(path.join(agent, CACHE))) {
      expect(first.stderr).toMatch(/AL80(31|60)/);
      return;
    }
    expect(probed).toBeGreaterThanOrEqual(2);
    const recorded = JSON.parse(fs.readFileSync(path.join(agent, CACHE), "utf8"));
    expect(Object.keys(recorded).sort()).toEqual(["process", "shell"]);
    fs.rmSync(log, { recursive: true, force: true });
    const second = call();
    expect(second.json.output).toEqual({ message: "hi" });
    expect(probes()).toEqual([]);
    // Another machine state (here: a changed `unshare`, so another fingerprint) probes again,
    // although both the agent's and the per-user record hold a success of the old one.
    fs.appendFileSync(path.join(bin, "unshare"), "# changed\n");
    expect(call().json.output).toEqual({ message: "hi" });
    expect(probes().length).toBeGreaterThanOrEqual(2);
  }, 120_000);

  it("a second agent's first call finds the first agent's success in the per-user record and launches no probe", () => {
    fs.rmSync(log, { recursive: true, force: true });
    expect(call().json.output).toEqual({ message: "hi" });
    if (!fs.existsSync(path.join(agent, CACHE))) return; // no isolation here: nothing is remembered (the test above checked the warning)
    const second = copyAgent(path.join(repoRoot, "examples", "support-agent"));
    expect(runCli(["compile", second]).status).toBe(0);
    fs.rmSync(log, { recursive: true, force: true });
    const run = runCliJson(["call", "echo", second, "--input", '{"message":"hi"}', "--format", "json"], { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ""}` } });
    expect(run.json.output).toEqual({ message: "hi" });
    expect(probes()).toEqual([]);
    // Copied into the second agent's own record.
    expect(JSON.parse(fs.readFileSync(path.join(second, CACHE), "utf8"))).toEqual(JSON.parse(fs.readFileSync(path.join(agent, CACHE), "utf8")));
  }, 120_000);

  it("never remembers a failure: without a working unshare every call warns (AL8031) and records nothing", () => {
    fs.rmSync(path.join(agent, CACHE), { force: true });
    fs.writeFileSync(path.join(bin, "unshare"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
    for (let round = 0; round < 2; round++) {
      const run = call();
      expect(run.json.output).toEqual({ message: "hi" });
      expect(run.stderr).toContain("AL8031");
      expect(fs.existsSync(path.join(agent, CACHE))).toBe(false);
    }
  }, 120_000);
});

describe("the launchers known without a probe (a call's early start)", () => {
  /** The isolation modules afresh: no probe ran, no cache root is named. */
  async function fresh(): Promise<{ isolation: typeof import("../../runtime-min/sandbox/process-isolation.js"); probes: typeof import("../../runtime-min/sandbox/start-probes.js") }> {
    vi.resetModules();
    return { isolation: await import("../../runtime-min/sandbox/process-isolation.js"), probes: await import("../../runtime-min/sandbox/start-probes.js") };
  }

  it.runIf(linux)("are the probe's own answer once it is remembered for the root, and nothing before", async () => {
    const root = tempDir("al-known-launch-");
    fs.mkdirSync(path.join(root, ".assemblyline"));
    const user = path.join(tempDir("al-probe-user-"), "private");
    const first = await fresh();
    (await import("../../runtime-min/sandbox/probe-cache.js")).useUserIsolationFolder(user);
    (await import("../../runtime-min/sandbox/probe-cache.js")).useIsolationCache(root);
    expect(first.isolation.knownLaunchTools()).toBeUndefined();
    const probed = await first.isolation.probeProcessIsolation();
    // Without isolation here nothing is remembered, and nothing becomes known.
    const next = await fresh();
    (await import("../../runtime-min/sandbox/probe-cache.js")).useUserIsolationFolder(user);
    (await import("../../runtime-min/sandbox/probe-cache.js")).useIsolationCache(root);
    expect(next.isolation.knownLaunchTools()).toEqual(probed.unavailableReason === undefined ? probed.tools : undefined);
  });

  it("are the override while one is set", async () => {
    const { isolation } = await fresh();
    const tools = { setpriv: undefined, unshare: undefined, prlimit: undefined };
    isolation.setSandboxLaunchTools(tools);
    expect(isolation.knownLaunchTools()).toBe(tools);
    isolation.setSandboxLaunchTools(undefined);
  });

  it("taken from the early start, are the process probe's result, and no probe is looked for", async () => {
    const { isolation, probes } = await fresh();
    const tools = { setpriv: "/early/setpriv", unshare: "/early/unshare", prlimit: "/early/prlimit" };
    probes.startIsolationProbes(tempDir("al-known-launch-"), "off", tools);
    expect(await isolation.probeProcessIsolation()).toEqual({ tools });
    // A probe already under way is not replaced.
    isolation.takeKnownLaunchTools({ setpriv: undefined, unshare: undefined, prlimit: undefined });
    expect(await isolation.probeProcessIsolation()).toEqual({ tools });
  });
});

/**
 * What an isolated shell command reads of the host (new-user trial 112, C4): not the host user's
 * home (nor `/root`), nor the agent root beside `.assemblyline/`, nor `/etc`'s root-only secrets
 * (`HOST_SECRET_FILES`) — while it still runs programs from the `PATH` folders inside that home,
 * writes its workspace inside it, and reads `/etc/passwd` and `/etc/resolv.conf`. Real
 * `unshare`, namespaces and mounts, as `shell-isolation.test.ts`.
 *
 * The host's `HOME` is a temporary folder this file makes, outside the folders every command
 * hides anyway (`/tmp`, `/run`…): under the repository root, `.test-home-XXXXXX`, removed at
 * the end. It changes `HOME` and `PATH` in `process.env` (test/setup/own-process-files.ts).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureWorkspace, execInWorkspace } from "../../runtime-min/execution/workspace.js";
import { probeShellIsolation } from "../../runtime-min/index.js";
import { HOST_SECRET_FILES } from "../../runtime-min/sandbox/link-guard.js";
import { probeHidingCheck, type ShellIsolationTools } from "../../runtime-min/sandbox/shell-isolation.js";
import { repoRoot } from "../helpers/temp-tree.js";

const SECRET = "sk-home-5ecret-never-visible";
const saved = { HOME: process.env.HOME, PATH: process.env.PATH };
let home: string;
let workspace: string;
let tools: ShellIsolationTools;
/** The host's real `PATH` folders inside `/root`, which stay visible when `/root` is hidden too. */
const rootPathFolders = (process.env.PATH ?? "").split(":").filter((entry) => entry.startsWith("/root/"));

/** `text` as one single-quoted shell word. */
const sq = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

beforeAll(async () => {
  home = fs.realpathSync(fs.mkdtempSync(path.join(repoRoot, ".test-home-")));
  fs.mkdirSync(path.join(home, ".ssh"));
  fs.writeFileSync(path.join(home, ".ssh", "id_rsa"), `${SECRET}-ssh\n`);
  fs.writeFileSync(path.join(home, ".npmrc"), `//registry.npmjs.org/:_authToken=${SECRET}-npm\n`);
  fs.mkdirSync(path.join(home, ".local", "bin"), { recursive: true });
  fs.writeFileSync(path.join(home, ".local", "bin", "hello-from-home"), "#!/bin/sh\necho hello from the PATH folder in the home\n", { mode: 0o755 });
  fs.writeFileSync(path.join(home, ".local", "notes.txt"), `${SECRET}-beside-bin\n`);
  const agentRoot = path.join(home, "projects", "agent");
  fs.mkdirSync(agentRoot, { recursive: true });
  fs.writeFileSync(path.join(agentRoot, "agent.md"), `${SECRET}-agent-md\n`);
  workspace = ensureWorkspace(path.join(agentRoot, ".assemblyline"), "run-a");
  process.env.HOME = home;
  process.env.PATH = `${path.join(home, ".local", "bin")}:${saved.PATH ?? "/usr/bin:/bin"}`;
  const probe = await probeShellIsolation();
  if (!probe.available) throw new Error(probe.reason);
  tools = probe.tools;
});

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  if (home !== undefined) fs.rmSync(home, { recursive: true, force: true });
});

describe("an isolated shell command does not read the host user's secrets", () => {
  it("cannot list or read the host's home, but runs a program from a PATH folder inside it and writes its workspace there", async () => {
    const command = [
      `ls -A ${sq(home)}`,
      `ls -A ${sq(path.join(home, ".local"))}`,
      `cat ${sq(path.join(home, ".ssh", "id_rsa"))} ${sq(path.join(home, ".npmrc"))} ${sq(path.join(home, ".local", "notes.txt"))}`,
      "hello-from-home",
      "echo written > inside.txt && cat inside.txt",
    ].join("\n");
    const result = await execInWorkspace(workspace, command, 10_000, tools);
    expect(`${result.stdout}\n${result.stderr}`).not.toContain(SECRET);
    // What is left of the home: the folders on the way to the kept PATH folder and the workspace.
    expect(result.stdout).toBe(".local\nprojects\nbin\nhello from the PATH folder in the home\nwritten\n");
    expect(result.stderr).toMatch(/No such file or directory/);
    expect(fs.readFileSync(path.join(workspace, "inside.txt"), "utf8")).toBe("written\n");
  });

  it("cannot read the agent root beside .assemblyline/, inside the home or elsewhere", async () => {
    const inHome = await execInWorkspace(workspace, "cat ../../../../agent.md; ls -A ../../../..", 10_000, tools);
    expect(`${inHome.stdout}\n${inHome.stderr}`).not.toContain(SECRET);
    expect(inHome.stdout).toBe(".assemblyline\n");
    const elsewhere = fs.realpathSync(fs.mkdtempSync(path.join(repoRoot, ".test-home-agent-")));
    try {
      fs.writeFileSync(path.join(elsewhere, "agent.md"), `${SECRET}-agent-md\n`);
      const own = ensureWorkspace(path.join(elsewhere, ".assemblyline"), "run-a");
      const outside = await execInWorkspace(own, `cat ${sq(path.join(elsewhere, "agent.md"))}; ls -A ${sq(elsewhere)}; echo in > in.txt`, 10_000, tools);
      expect(`${outside.stdout}\n${outside.stderr}`).not.toContain(SECRET);
      expect(outside.stdout).toBe(".assemblyline\n");
      expect(fs.readFileSync(path.join(own, "in.txt"), "utf8")).toBe("in\n");
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("sees of /root, when it is not the host's HOME, only the way to the PATH folders inside it", async () => {
    const result = await execInWorkspace(workspace, "ls -A /root 2>/dev/null; true", 10_000, tools);
    const expected = [...new Set(rootPathFolders.map((entry) => entry.split("/")[2]!))].sort();
    if (!fs.existsSync("/root")) expect(result.stdout).toBe("");
    else expect(result.stdout.split("\n").filter(Boolean).sort()).toEqual(expected);
  });

  it("reads /etc/passwd and /etc/resolv.conf, but no root-only secret of /etc (empty where it exists)", async () => {
    const existing = HOST_SECRET_FILES.filter((file) => fs.existsSync(file));
    const command = [
      "head -c 5 /etc/passwd; echo",
      ...(fs.existsSync("/etc/resolv.conf") ? ["cat /etc/resolv.conf"] : []),
      ...existing.map((file) => `if test -d ${sq(file)}; then ls -A ${sq(file)}; else cat ${sq(file)}; fi; echo "end ${file}"`),
    ].join("\n");
    const result = await execInWorkspace(workspace, command, 10_000, tools);
    const resolver = fs.existsSync("/etc/resolv.conf") ? fs.readFileSync("/etc/resolv.conf", "utf8") : "";
    const secretsRead = existing.map((file) => `end ${file}\n`).join("");
    expect(result.stdout).toBe(`${fs.readFileSync("/etc/passwd", "utf8").slice(0, 5)}\n${resolver}${secretsRead}`);
    expect(result.exitCode).toBe(0);
  });
});

describe("the shell probe checks this hiding (probeHidingCheck)", () => {
  it("fails where the home and /etc's secrets are visible (the host's own shell), passes isolated", async () => {
    const check = probeHidingCheck();
    expect(check).toContain(sq(path.join(home, ".npmrc")));
    expect(check).not.toContain(sq(path.join(home, ".local")));
    const unisolated = spawnSync("/bin/sh", ["-c", check], { encoding: "utf8" });
    expect(unisolated.status).toBe(1);
    expect(unisolated.stderr).toMatch(/homes or \/etc's root-only files were not hidden/);
    const isolated = await execInWorkspace(workspace, check, 10_000, tools);
    expect(isolated).toMatchObject({ exitCode: 0, stderr: "" });
  });

  it("checks each root-only file of /etc that holds something here, and nothing with no home and no secret", () => {
    const nonEmpty = HOST_SECRET_FILES.filter((file) => fs.statSync(file, { throwIfNoEntry: false })?.isFile() && fs.statSync(file).size > 0);
    for (const file of nonEmpty) expect(probeHidingCheck()).toContain(`! test -s ${sq(file)}`);
    expect(probeHidingCheck({ HOME: path.join(home, "missing"), PATH: "" }).includes(home)).toBe(false);
    // A program of the launch in the home (an `unshare` the host names by path) keeps its folder: not checked as gone.
    expect(probeHidingCheck({ HOME: home, PATH: "" })).toContain(sq(path.join(home, ".local")));
    expect(probeHidingCheck({ HOME: home, PATH: "" }, [path.join(home, ".local", "bin", "unshare")])).not.toContain(sq(path.join(home, ".local")));
  });
});

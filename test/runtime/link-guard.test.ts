/**
 * The link guard's mount table (`runtime-min/sandbox/link-guard.ts`): one `mount -a` process
 * hides the folders where host sockets live and keeps what the sandbox process needs at its
 * path. The table's lines, and real launches (`/bin/sh` for Node) in the namespaces this
 * project's CI machine has, with the awkward cases: names with spaces and a newline, a kept file
 * whose folder holds a kept folder, a hidden socket beside a kept file, the stage left empty.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fstabField, linkGuardTable, SHELL_COMMAND_GUARD, socketHiding } from "../../runtime-min/sandbox/link-guard.js";
import { probeProcessIsolation, sandboxLaunch, type LaunchTools } from "../../runtime-min/sandbox/process-isolation.js";

describe("the table's text", () => {
  it("escapes what fstab(5) reads as a separator, and the backslash, as octal", () => {
    expect(fstabField("/tmp/a b\tc\nd\\e")).toBe("/tmp/a\\040b\\011c\\012d\\134e");
    expect(fstabField("/tmp/plain-é")).toBe("/tmp/plain-é");
  });

  it("stages, hides, puts back folders and files, covers the stage, and guards the workspace, in that order", () => {
    const table = linkGuardTable(
      {
        stage: "/var/tmp",
        hidden: ["/run", "/tmp", "/var/tmp", "/dev/shm"],
        kept: [
          { path: "/dev/shm/bridge", isFolder: true },
          { path: "/tmp/agent/bundles/echo.mjs", isFolder: false },
          { path: "/tmp/agent/bundles/sub/runs", isFolder: true },
          { path: "/tmp/agent/work space", isFolder: true },
        ],
      },
      "/tmp/agent/work space",
      "/dev/shm/bridge",
    );
    expect(table.text.split("\n")).toEqual([
      "assembly-line-stage /var/tmp tmpfs mode=0755,nosuid,nodev 0 0",
      "/dev/shm/bridge /var/tmp/1 none bind,X-mount.mkdir 0 0",
      "/tmp/agent/bundles/sub/runs /var/tmp/2 none bind,X-mount.mkdir 0 0",
      "/tmp/agent/work\\040space /var/tmp/3 none bind,X-mount.mkdir 0 0",
      "/tmp/agent/bundles /var/tmp/4 none bind,X-mount.mkdir 0 0",
      "assembly-line-hidden /run tmpfs mode=0755,nosuid,nodev 0 0",
      "assembly-line-hidden /tmp tmpfs mode=0755,nosuid,nodev 0 0",
      "assembly-line-hidden /dev/shm tmpfs mode=0755,nosuid,nodev 0 0",
      "/var/tmp/1/.link-guard/skeleton/tmp/agent/bundles /tmp/agent/bundles none bind,ro,X-mount.mkdir 0 0",
      "/var/tmp/1 /dev/shm/bridge none bind,X-mount.mkdir 0 0",
      "/var/tmp/2 /tmp/agent/bundles/sub/runs none bind,X-mount.mkdir 0 0",
      "/var/tmp/3 /tmp/agent/work\\040space none bind,nosymfollow,nosuid,nodev,X-mount.mkdir 0 0",
      "/var/tmp/4/echo.mjs /tmp/agent/bundles/echo.mjs none bind 0 0",
      "assembly-line-cover /var/tmp tmpfs mode=0755,nosuid,nodev 0 0",
      "",
    ]);
    expect(table.skeletonFolders).toEqual(["/tmp/agent/bundles", "/tmp/agent/bundles/sub/runs"]);
    expect(table.skeletonFiles).toEqual(["/tmp/agent/bundles/echo.mjs"]);
  });

  it("covers root-only secrets first (a file with the empty file beside the table, a folder with an empty tmpfs), read-only", () => {
    const table = linkGuardTable(
      { stage: "", hidden: ["/tmp"], kept: [], covered: [{ path: "/etc/shadow", isFolder: false }, { path: "/etc/sudoers.d", isFolder: true }] },
      "/home/a/ws",
      "/home/a/.shell-1-abcdef",
      SHELL_COMMAND_GUARD,
    );
    expect(table.text.split("\n").slice(0, 3)).toEqual([
      "/home/a/.shell-1-abcdef/.link-guard/empty /etc/shadow none bind,ro,nosuid,nodev 0 0",
      "assembly-line-secret /etc/sudoers.d tmpfs mode=0755,nosuid,nodev,ro 0 0",
      "assembly-line-hidden /tmp tmpfs mode=0755,nosuid,nodev,ro 0 0",
    ]);
    expect(table.coversFiles).toBe(true);
    expect(linkGuardTable({ stage: "", hidden: ["/tmp"], kept: [] }, "/home/a/ws", "/t", SHELL_COMMAND_GUARD).coversFiles).toBe(false);
  });

  it("covers only what exists outside the hidden folders and holds no kept path (socketHiding)", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-cover-")));
    try {
      fs.mkdirSync(path.join(root, "ws"));
      fs.writeFileSync(path.join(root, "secret"), "x");
      fs.mkdirSync(path.join(root, "secrets.d"));
      const hiding = socketHiding([path.join(root, "ws")], [process.execPath], { XDG_RUNTIME_DIR: "" }, { cover: [path.join(root, "secrets.d"), path.join(root, "secret"), path.join(root, "missing"), root, "/tmp/x"] });
      // `root` lies in the hidden /tmp here: everything inside it is hidden anyway.
      expect(hiding.covered).toBeUndefined();
      const outside = socketHiding([], [process.execPath], { XDG_RUNTIME_DIR: "" }, { cover: ["/etc/passwd", "/etc/missing-secret", "/etc"] });
      expect(outside.covered).toEqual([{ path: "/etc/passwd", isFolder: false }, { path: "/etc", isFolder: true }].sort((a, b) => (a.path < b.path ? -1 : 1)));
      const holding = socketHiding(["/etc/passwd"], [process.execPath], { XDG_RUNTIME_DIR: "" }, { cover: ["/etc"] });
      expect(holding.covered).toBeUndefined();
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("with nothing to keep in a hidden folder, only covers them and binds the workspace onto itself", () => {
    const table = linkGuardTable({ stage: "", hidden: ["/run", "/tmp"], kept: [] }, "/home/a/ws", "/home/a/ws/.bridge");
    expect(table.text).toBe(
      [
        "assembly-line-hidden /run tmpfs mode=0755,nosuid,nodev 0 0",
        "assembly-line-hidden /tmp tmpfs mode=0755,nosuid,nodev 0 0",
        "/home/a/ws /home/a/ws none bind,nosymfollow,nosuid,nodev 0 0",
        "",
      ].join("\n"),
    );
  });

  it("for a shell command: read-only covers and kept paths, the workspace writable and following links, the table's folder staged but never put back, seals, and its own /proc", () => {
    const runDir = "/tmp/agent/.assemblyline/runs/r";
    const table = linkGuardTable(
      {
        stage: "/dev/shm",
        hidden: ["/run", "/tmp", "/var/tmp", "/dev/shm"],
        kept: [
          { path: "/run/systemd/resolve/stub-resolv.conf", isFolder: false },
          { path: `${runDir}/workspace`, isFolder: true },
        ],
        reached: [`${runDir}/.shell-1`],
      },
      `${runDir}/workspace`,
      `${runDir}/.shell-1`,
      SHELL_COMMAND_GUARD,
    );
    expect(table.text.split("\n")).toEqual([
      "assembly-line-stage /dev/shm tmpfs mode=0755,nosuid,nodev 0 0",
      `${runDir}/workspace /dev/shm/1 none bind,X-mount.mkdir 0 0`,
      "/run/systemd/resolve /dev/shm/2 none bind,X-mount.mkdir 0 0",
      `${runDir}/.shell-1 /dev/shm/3 none bind,X-mount.mkdir 0 0`,
      "assembly-line-hidden /run tmpfs mode=0755,nosuid,nodev 0 0",
      "assembly-line-hidden /tmp tmpfs mode=0755,nosuid,nodev 0 0",
      "assembly-line-hidden /var/tmp tmpfs mode=0755,nosuid,nodev,ro 0 0",
      "/dev/shm/3/.link-guard/skeleton/run/systemd/resolve /run/systemd/resolve none bind,ro,X-mount.mkdir 0 0",
      `/dev/shm/1 ${runDir}/workspace none bind,rw,nosuid,nodev,X-mount.mkdir 0 0`,
      "/dev/shm/2/stub-resolv.conf /run/systemd/resolve/stub-resolv.conf none bind,ro 0 0",
      "assembly-line-cover /dev/shm tmpfs mode=0755,nosuid,nodev,ro 0 0",
      "/run /run none rbind,ro,nosuid,nodev 0 0",
      "/tmp /tmp none rbind,ro,nosuid,nodev 0 0",
      "assembly-line-proc /proc proc nosuid,nodev,noexec 0 0",
      "",
    ]);
    expect(table.skeletonFiles).toEqual(["/run/systemd/resolve/stub-resolv.conf"]);
  });

  it("hides the folders it is asked to (a shell's state directory) with the socket folder holding them, stages the table's folder, and throws when one cannot be hidden", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-guard-hide-")));
    try {
      const stateDir = path.join(root, ".assemblyline");
      const workspace = path.join(stateDir, "runs", "r", "workspace");
      const tableDir = path.join(stateDir, "runs", "r", ".shell-1");
      fs.mkdirSync(workspace, { recursive: true });
      fs.mkdirSync(tableDir);
      const hiding = socketHiding([workspace], [process.execPath], { XDG_RUNTIME_DIR: "" }, { hide: [stateDir], reach: [tableDir] });
      const tmp = fs.realpathSync(os.tmpdir());
      expect(hiding.hidden).toContain(tmp);
      expect(hiding.hidden).not.toContain(stateDir);
      expect(hiding.stage).not.toBe(tmp);
      expect(hiding.kept).toEqual([{ path: workspace, isFolder: true }]);
      expect(hiding.reached).toEqual([tableDir]);
      // Every socket folder holds a program of the launch (so none is hidden): the state directory alone holds the workspace, with nowhere to stage it.
      const everywhere = ["/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm", tmp].map((dir) => path.join(dir, "program"));
      expect(() => socketHiding([workspace], everywhere, { XDG_RUNTIME_DIR: "" }, { hide: [stateDir] })).toThrow(/cannot be hidden: every folder to hide holds a path to keep/);
      expect(() => socketHiding([workspace], [], {}, { hide: [path.join(root, "missing")] })).toThrow(/ENOENT/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("keeps no path inside a kept folder on its own, and sees which kept paths are files", () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-guard-unit-")));
    try {
      fs.mkdirSync(path.join(root, "ws", "inner"), { recursive: true });
      fs.writeFileSync(path.join(root, "ws", "inner", "f"), "");
      fs.writeFileSync(path.join(root, "bundle.mjs"), "");
      const hiding = socketHiding([path.join(root, "ws"), path.join(root, "ws", "inner", "f"), path.join(root, "bundle.mjs"), path.join(root, "missing")], [process.execPath], { XDG_RUNTIME_DIR: "" });
      expect(hiding.kept).toEqual([
        { path: path.join(root, "bundle.mjs"), isFolder: false },
        { path: path.join(root, "ws"), isFolder: true },
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a launch under the link guard (real namespaces)", () => {
  let tools: LaunchTools;
  let root: string;
  let server: net.Server;

  beforeAll(async () => {
    const probe = await probeProcessIsolation();
    // CI runs on a machine with user namespaces and util-linux 2.38: the guard must be there.
    expect(probe.linkGuardUnavailableReason ?? probe.unavailableReason).toBeUndefined();
    tools = probe.tools;
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "al-guard-")));
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Runs `script` as the sandbox's program under the guard; returns its exit status and output. */
  function launch(script: string, guard: { workspace: string; keep: string[]; tableDir: string }, args: string[] = []): { status: number | null; out: string; err: string } {
    const launched = sandboxLaunch(tools, ["-c", script, "check", ...args], "none", "/bin/sh", undefined, guard);
    const result = spawnSync(launched.command, launched.args, { cwd: guard.workspace, encoding: "utf8" });
    return { status: result.status, out: result.stdout, err: result.stderr };
  }

  it("keeps a workspace, a file and a folder with awkward names at their paths, hides their neighbours, and leaves the stage empty", async () => {
    const base = path.join(root, "agent with space\nand newline");
    const workspace = path.join(base, "runs", "r 1");
    const bundles = path.join(base, "bundles");
    const bundle = path.join(bundles, "echo tool.mjs");
    const inner = path.join(bundles, "kept folder");
    const tableDir = path.join(root, "bridge");
    fs.mkdirSync(workspace, { recursive: true });
    fs.mkdirSync(inner, { recursive: true });
    fs.mkdirSync(tableDir, { mode: 0o700 });
    fs.writeFileSync(bundle, "export const bundle = 1;\n");
    fs.writeFileSync(path.join(inner, "inside"), "inside\n");
    fs.writeFileSync(path.join(bundles, "neighbour.mjs"), "secret\n");
    fs.symlinkSync("/", path.join(workspace, "link"));
    server = net.createServer((socket) => socket.end("reached\n"));
    const socketPath = path.join(bundles, "host.sock");
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));

    const script = [
      'set -e; cd "$1"; test "$(cat "$2")" = "export const bundle = 1;"; test "$(cat "$3/inside")" = inside',
      'test ! -e "$4"; test ! -e "$5"',
      '! test -e "$1/link/" 2>/dev/null',
      'echo > "$1/written"',
      'for hidden in /run /var/tmp /dev/shm; do test -z "$(ls -A "$hidden")"; done',
      'test -z "$(ls -A "$(dirname "$2")" | grep -v -x -e "echo tool.mjs" -e "kept folder")"',
      "echo ok",
    ].join("\n");
    const result = launch(script, { workspace, keep: [bundle, inner], tableDir }, [workspace, bundle, inner, socketPath, path.join(bundles, "neighbour.mjs")]);
    expect(result).toMatchObject({ status: 0, out: "ok\n" });
    // The workspace is the real one (what the sandbox writes, the host sees); the hiding is the child's alone.
    expect(fs.existsSync(path.join(workspace, "written"))).toBe(true);
    expect(fs.existsSync(socketPath)).toBe(true);
  });

  it("fails the launch (exit 125), never runs the program unguarded, when a line of the table cannot be mounted", () => {
    const workspace = path.join(root, "ws-fail");
    const tableDir = path.join(root, "bridge-fail");
    fs.mkdirSync(workspace);
    fs.mkdirSync(tableDir, { mode: 0o700 });
    const launched = sandboxLaunch(tools, ["-c", "echo ran", "check"], "none", "/bin/sh", undefined, { workspace, keep: [], tableDir });
    // A table naming a file system type the kernel does not have.
    fs.appendFileSync(path.join(tableDir, ".link-guard", "fstab"), "none /nonexistent-al-guard nosuchfs defaults 0 0\n");
    const result = spawnSync(launched.command, launched.args, { cwd: workspace, encoding: "utf8" });
    expect(result.status).toBe(125);
    expect(result.stdout).not.toContain("ran");
  });

  it("writes its table without following a link planted where it goes", () => {
    const workspace = path.join(root, "ws-link");
    const tableDir = path.join(root, "bridge-link");
    const outside = path.join(root, "outside");
    fs.mkdirSync(workspace);
    fs.mkdirSync(tableDir, { mode: 0o700 });
    fs.mkdirSync(outside);
    fs.symlinkSync(outside, path.join(tableDir, ".link-guard"));
    expect(() => sandboxLaunch(tools, ["-c", "true", "check"], "none", "/bin/sh", undefined, { workspace, keep: [], tableDir })).toThrow(/EEXIST/);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

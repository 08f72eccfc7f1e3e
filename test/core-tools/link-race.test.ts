/**
 * The core file tools check a path with `realpath` and then open what they found one folder at
 * a time, never through a link (`runtime-min/core-tools/workspace-paths.ts`,
 * `runtime-min/execution/beneath.ts`). Before, they opened the checked path by name, so a link a
 * tool's shell command swapped in between the check and the open led `read`, `write`, `edit`,
 * `delete`, `list`, `grep`, `workspace_snapshot` and the artifact tools out of the workspace
 * (host-file review of 5 December). Here a swapper process keeps renaming `d` between a real folder and a
 * link to a folder outside, as a tool's unawaited shell loop could.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readArtifactSource } from "../../runtime-min/core-tools/artifact-files.js";
import { deleteTool, editTool, readTool, writeTool } from "../../runtime-min/core-tools/file-tools.js";
import { grepTool } from "../../runtime-min/core-tools/grep.js";
import { listTool, workspaceSnapshotTool } from "../../runtime-min/core-tools/list-tools.js";
import type { CoreJson, CoreToolContext } from "../../runtime-min/core-tools/types.js";
import { openFileIn } from "../../runtime-min/execution/beneath.js";
import { resolveWorkspacePath, withFolderOf, withParentOf } from "../../runtime-min/core-tools/workspace-paths.js";
import { makeContext, makeDirs, type Sandbox } from "./context.js";

let dirs: Sandbox;
let workspace: string;
let ctx: CoreToolContext;

/** `outside/`: what no tool may reach: a secret file, a folder to keep, and nothing new. */
function plantOutside(): void {
  fs.writeFileSync(path.join(dirs.outside, "f.txt"), "SECRET outside\n");
  fs.writeFileSync(path.join(dirs.outside, "secret-only.txt"), "SECRET\n");
  fs.mkdirSync(path.join(dirs.outside, "victim"));
  fs.writeFileSync(path.join(dirs.outside, "victim", "keep.txt"), "keep\n");
}

/** `d/` inside the workspace with the same names, and `d.link -> outside` beside it. */
function plantInside(): void {
  fs.mkdirSync(path.join(workspace, "d"));
  fs.writeFileSync(path.join(workspace, "d", "f.txt"), "inside\n");
  fs.mkdirSync(path.join(workspace, "d", "victim"));
  fs.symlinkSync(dirs.outside, path.join(workspace, "d.link"));
}

function outsideUntouched(): void {
  expect(fs.readdirSync(dirs.outside).sort()).toEqual(["f.txt", "secret-only.txt", "victim"]);
  expect(fs.readFileSync(path.join(dirs.outside, "f.txt"), "utf8")).toBe("SECRET outside\n");
  expect(fs.readdirSync(path.join(dirs.outside, "victim"))).toEqual(["keep.txt"]);
}

beforeEach(async () => {
  dirs = await makeDirs();
  workspace = await dirs.workspace("run-root");
  ctx = makeContext(dirs, { workspaceDir: workspace });
  plantOutside();
  plantInside();
});
afterEach(() => dirs.cleanup());

describe.runIf(process.platform === "linux")("core file tools and a link swapped in after the check", () => {
  it("open what the check found through no link: a folder swapped for a link meanwhile is refused", async () => {
    const file = await resolveWorkspacePath(workspace, "/workspace/d/f.txt");
    const folder = await resolveWorkspacePath(workspace, "/workspace/d");
    // The swap a shell command makes between the check and the open.
    fs.renameSync(path.join(workspace, "d"), path.join(workspace, "d.real"));
    fs.renameSync(path.join(workspace, "d.link"), path.join(workspace, "d"));
    await expect(withParentOf(file, false, (folder, name) => openFileIn(folder, name, fs.constants.O_RDONLY))).rejects.toMatchObject({ code: "ELOOP" });
    await expect(withParentOf(file, true, (folder, name) => openFileIn(folder, name, fs.constants.O_WRONLY | fs.constants.O_CREAT))).rejects.toMatchObject({ code: "ELOOP" });
    await expect(withFolderOf(folder, async () => "opened")).rejects.toMatchObject({ code: "ELOOP" });
    outsideUntouched();
  });

  it("still follow a link that stays inside the workspace, as the check allows", async () => {
    fs.symlinkSync(path.join(workspace, "d"), path.join(workspace, "alias"));
    expect(await readTool({ path: "/workspace/alias/f.txt" }, ctx)).toMatchObject({ content: "inside" });
    await writeTool({ path: "/workspace/alias/g.txt", content: "g" }, ctx);
    expect(fs.readFileSync(path.join(workspace, "d", "g.txt"), "utf8")).toBe("g");
    expect(await listTool({ path: "/workspace/alias" }, ctx)).toMatchObject({ entries: [{ path: "/workspace/alias/f.txt" }, { path: "/workspace/alias/g.txt" }, { path: "/workspace/alias/victim" }] });
    expect(await grepTool({ pattern: "inside", path: "/workspace/alias/f.txt" }, ctx)).toMatchObject({ matches: [{ path: "/workspace/alias/f.txt", line: 1 }] });
    await expect(readTool({ path: "/workspace/d.link/f.txt" }, ctx)).rejects.toMatchObject({ kind: "invalid_input" });
  });

  it("never reach outside while a swapper keeps renaming d between the folder and the link", async () => {
    const swapper = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("node:fs"); const at = (name) => process.argv[1] + "/" + name;
         for (;;) { try { fs.renameSync(at("d"), at("d.real")); fs.renameSync(at("d.link"), at("d")); fs.renameSync(at("d"), at("d.link")); fs.renameSync(at("d.real"), at("d")); fs.mkdirSync(at("d/victim"), { recursive: true }); fs.writeFileSync(at("d/f.txt"), "inside\\n"); } catch {} }`,
        workspace,
      ],
      { stdio: "ignore" },
    );
    const ended = new Promise((resolve) => swapper.on("exit", resolve));
    const leaked: string[] = [];
    const attempt = async (tool: string, run: () => Promise<unknown>): Promise<void> => {
      try {
        const result = JSON.stringify(await run());
        if (result.includes("SECRET") || result.includes("secret-only") || result.includes("keep.txt")) leaked.push(`${tool}: ${result}`);
      } catch {
        // Refused, missing or swapped away: as it should be.
      }
    };
    let rounds = 0;
    try {
      // At least 3 s and 10 rounds of every tool (a loaded machine runs fewer rounds a second), at most 40 s.
      const started = Date.now();
      while ((rounds < 10 || Date.now() - started < 3_000) && Date.now() - started < 40_000) {
        rounds += 1;
        await attempt("read", () => readTool({ path: "/workspace/d/f.txt" }, ctx));
        await attempt("read secret", () => readTool({ path: "/workspace/d/secret-only.txt" }, ctx));
        await attempt("write", () => writeTool({ path: "/workspace/d/new.txt", content: "race" }, ctx));
        await attempt("edit", () => editTool({ path: "/workspace/d/f.txt", oldString: "outside", newString: "PWNED" }, ctx));
        await attempt("delete", () => deleteTool({ path: "/workspace/d/victim", recursive: true } as CoreJson, ctx));
        await attempt("list", () => listTool({ path: "/workspace/d", recursive: true }, ctx));
        await attempt("snapshot", () => workspaceSnapshotTool({ path: "/workspace/d" }, ctx));
        await attempt("grep", () => grepTool({ pattern: "SECRET", path: "/workspace/d" }, ctx));
        await attempt("artifact", async () => (await readArtifactSource(ctx, "/workspace/d/f.txt", "handoff_artifact")).bytes.toString("utf8"));
        outsideUntouched();
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    await ended;
    expect(rounds).toBeGreaterThanOrEqual(10);
    expect(leaked).toEqual([]);
    outsideUntouched();
  }, 60_000);

  it("leave no descriptor open, also after a search stopped on its timeout", async () => {
    const open = () => fs.readdirSync("/proc/self/fd").length;
    // A worker's own loop holds descriptors until it has ended, a moment after its answer. A leak
    // is more descriptors than before; fewer is another test file's handle closing meanwhile in
    // this shared worker process (seen once in a fresh-clone run: 23 against 27).
    const settled = async (count: number) => {
      for (let waited = 0; open() > count && waited < 3_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return open();
    };
    fs.mkdirSync(path.join(workspace, "deep", "a", "b"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "deep", "a", "b", "evil.txt"), `${"a".repeat(40)}!\n`);
    const before = open();
    await grepTool({ pattern: "inside", path: "/workspace/d" }, ctx);
    await listTool({ path: "/workspace", recursive: true }, ctx);
    expect(await settled(before)).toBeLessThanOrEqual(before);
    // The worker is terminated in the middle of a match, three folders down: the host closes what it held.
    await expect(grepTool({ pattern: "^(a+)+$", path: "/workspace/deep" }, ctx, 1_000)).rejects.toMatchObject({ kind: "execution_error" });
    expect(await settled(before)).toBeLessThanOrEqual(before);
  });
});

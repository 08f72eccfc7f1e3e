/**
 * Issue 9 part 2, "in a real editor": a headless Neovim (Debian's package, 0.7 here; `.ci/run`
 * installs it) attaches its built-in LSP client to `assembly-line lsp --stdio` and reads our
 * diagnostics with `vim.diagnostic.get()` after opening a file and after an unsaved edit of the
 * buffer (driver: `nvim/attach.lua`). Fails — does not skip — when `nvim` is missing.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath, runCliJson } from "../helpers/run-cli.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";
import { AGENT_FILES, writeLspAgent } from "./lsp-agent.js";

const script = path.join(repoRoot, "test", "editor", "nvim", "attach.lua");
const ENTRY = "plugins/example/ai.assemblyline/index.ts";

interface NvimDiagnostic {
  readonly code: string;
  readonly source: string;
  readonly lnum: number;
  readonly col: number;
  readonly message: string;
}

interface NvimResult {
  readonly attached: boolean;
  readonly opened_ok: boolean;
  readonly opened: NvimDiagnostic[];
  readonly modified: boolean;
  readonly edited_ok: boolean;
  readonly edited: NvimDiagnostic[] | Record<string, never>;
}

/** Runs the Lua driver in a headless Neovim on `file` (absolute), replacing `find` by `replace` in the buffer. */
function runNeovim(root: string, file: string, find: string, replace: string): NvimResult {
  const out = path.join(tempDir("al-nvim-"), "result.json");
  const run = spawnSync("nvim", ["--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", `luafile ${script}`], {
    cwd: root,
    encoding: "utf8",
    timeout: 150_000,
    env: { ...process.env, AL_FILE: file, AL_ROOT: root, AL_OUT: out, AL_FIND: find, AL_REPLACE: replace, AL_NODE: process.execPath, AL_CLI: cliPath },
  });
  if (run.error) throw new Error(`could not run nvim (apt-get install -y neovim): ${run.error.message}`);
  if (!fs.existsSync(out)) throw new Error(`nvim wrote no result (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  return JSON.parse(fs.readFileSync(out, "utf8")) as NvimResult;
}

/** compile's diagnostics for `file` (relative), numbered as Neovim numbers them (0-based). */
function compileDiagnostics(root: string, file: string) {
  const { json } = runCliJson(["compile", ".", "--no-package"], { cwd: root });
  return (json.diagnostics as { file: string; code: string; message: string; line: number; column: number }[])
    .filter((d) => d.file === file)
    .map((d) => ({ code: d.code, message: d.message, lnum: d.line - 1, col: d.column - 1 }));
}

const summary = (diagnostics: readonly NvimDiagnostic[]) =>
  diagnostics.map((d) => ({ code: d.code, message: d.message, lnum: d.lnum, col: d.col })).sort((a, b) => a.lnum - b.lnum || a.col - b.col);

/** vim.fn.json_encode writes an empty Lua table as `{}`; an empty list either way. */
const list = (value: NvimDiagnostic[] | Record<string, never>): NvimDiagnostic[] => (Array.isArray(value) ? value : []);

describe("Neovim's LSP client attached to assembly-line lsp --stdio", () => {
  it("nvim is installed (.ci/run installs Debian's neovim)", () => {
    const version = spawnSync("nvim", ["--version"], { encoding: "utf8" });
    expect(version.error, "nvim is not on PATH: apt-get install -y neovim").toBeUndefined();
    expect(version.stdout).toMatch(/^NVIM v\d+\.\d+/);
  });

  it("shows an entry's misspelt key after opening, and nothing after fixing it in the buffer", () => {
    const root = writeLspAgent();
    const entry = path.join(root, ENTRY);
    fs.writeFileSync(entry, AGENT_FILES[ENTRY].replace("description:", "descripton:"));
    const expected = compileDiagnostics(root, ENTRY);
    expect(expected.length).toBeGreaterThan(0);

    const result = runNeovim(root, entry, "descripton:", "description:");
    expect(result.attached).toBe(true);
    expect(result.opened_ok).toBe(true);
    expect(summary(result.opened)).toEqual(expected);
    expect(result.opened.every((d) => d.source === "assembly-line")).toBe(true);
    expect(result.modified).toBe(true);
    expect(result.edited_ok).toBe(true);
    expect(list(result.edited)).toEqual([]);
  });

  it("shows a capability config error in agent.md at its YAML position, and clears it after the edit", () => {
    const root = writeLspAgent();
    const agentFile = path.join(root, "agent.md");
    fs.writeFileSync(agentFile, AGENT_FILES["agent.md"].replace("greeting: hello", "greeting: 42"));
    const expected = compileDiagnostics(root, "agent.md");
    expect(expected.length).toBeGreaterThan(0);
    expect(expected[0]!.lnum).toBe(5);

    const result = runNeovim(root, agentFile, "greeting: 42", "greeting: hi");
    expect(result.opened_ok).toBe(true);
    expect(summary(result.opened)).toEqual(expected);
    expect(result.edited_ok).toBe(true);
    expect(list(result.edited)).toEqual([]);
  });

  // New-user trial of 6 December: the documented snippet started npx in Neovim's folder, where
  // npx found no assembly-line, asked the registry, and the client quit; nothing was shown.
  it("docs/editor.md's Neovim 0.7 block, as written, shows diagnostics when Neovim starts in the agent's parent folder", () => {
    const docs = fs.readFileSync(path.join(repoRoot, "docs", "editor.md"), "utf8");
    const block = [...docs.matchAll(/```lua\n([\s\S]*?)```/g)].map((match) => match[1]!).find((lua) => lua.includes("vim.lsp.start_client"));
    expect(block, "the 0.7 block of docs/editor.md").toBeDefined();
    const root = writeLspAgent();
    // The project's installed CLI, where npx looks for it (as `npm install` links it).
    fs.mkdirSync(path.join(root, "node_modules", ".bin"), { recursive: true });
    fs.symlinkSync(cliPath, path.join(root, "node_modules", ".bin", "assembly-line"));
    const agentFile = path.join(root, "agent.md");
    fs.writeFileSync(agentFile, AGENT_FILES["agent.md"].replace("greeting: hello", "greeting: 42"));
    const dir = tempDir("al-nvim-docs-");
    const init = path.join(dir, "init.lua");
    const out = path.join(dir, "result.json");
    fs.writeFileSync(init, block!);
    const probe = path.join(dir, "probe.lua");
    fs.writeFileSync(
      probe,
      [
        `local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 20)`,
        `local codes = {}`,
        `for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(codes, d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)) end`,
        `local handle = assert(io.open(${JSON.stringify(out)}, "w"))`,
        `handle:write(vim.fn.json_encode({ ok = ok, codes = codes }))`,
        `handle:close()`,
        `vim.cmd("qa!")`,
      ].join("\n"),
    );
    const run = spawnSync("nvim", ["--headless", "-u", init, "-i", "NONE", "-n", path.join(path.basename(root), "agent.md"), "-c", `luafile ${probe}`], {
      cwd: path.dirname(root),
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(fs.existsSync(out), `nvim wrote no result (exit ${run.status}):\n${run.stdout}\n${run.stderr}`).toBe(true);
    const result = JSON.parse(fs.readFileSync(out, "utf8")) as { ok: boolean; codes: string[] };
    expect(result.ok).toBe(true);
    expect(result.codes).toEqual(compileDiagnostics(root, "agent.md").map((d) => d.code));
  });
});

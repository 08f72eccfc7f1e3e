/**
 * `init` in an existing project (issue 10 item 3; new-user trial helper-67: a folder with its own
 * `tsconfig.json` and `.gitignore` was refused outright): the project's `.gitignore` gets the
 * lines it lacks, its `tsconfig.json` is kept with a note (AL9103) naming what to add, and a file
 * of the agent itself in the way still refuses everything (AL9101). In process: the CLI's own
 * output is checked end to end in test/e2e/init.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { initAgent } from "../../cli/init/init-agent.js";
import { tempDir } from "../helpers/temp-tree.js";

const TYPES = { core: "./types/index.d.ts", assets: "./types/assets.d.ts" };

function project(files: Record<string, string>): string {
  const dir = tempDir("al-init-project-");
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe("init in an existing project", () => {
  it("keeps the project's tsconfig.json byte for byte and names what to add to it (AL9103)", () => {
    const tsconfig = '{ "compilerOptions": { "strict": true } }\n';
    const dir = project({ "tsconfig.json": tsconfig });
    const result = initAgent(dir, TYPES);
    expect(result.ok).toBe(true);
    expect(result.written).toEqual([".gitignore", "agent.md", "plugins/hello/ai.assemblyline/hello.ts", "plugins/hello/ai.assemblyline/index.ts", "plugins/hello/plugin.json"]);
    expect(fs.readFileSync(path.join(dir, "tsconfig.json"), "utf8")).toBe(tsconfig);
    expect(result.diagnostics).toHaveLength(1);
    const [note] = result.diagnostics;
    expect(note).toMatchObject({ code: "AL9103", severity: "info", file: path.join(dir, "tsconfig.json") });
    expect(note!.hint).toBe(
      'Add to its compilerOptions (an object of that name, if it has none): "paths": {"@assemblyline-agents/core":["./types/index.d.ts"]}, "plugins": [{"name":"@assemblyline-agents/assembly-line/ts-plugin"}]. If it has an include list, add plugins/**/*.ts to it; for typed asset imports (.md, .png, …) add ./types/assets.d.ts to include, or to files when it has no include (adding an include would narrow the project to what it lists). Or give plugins/ a tsconfig.json of its own with these settings.',
    );
  });

  it("adds to the project's .gitignore only the lines it lacks, in any spelling of the pattern", () => {
    const dir = project({ ".gitignore": "dist\n/node_modules" });
    const result = initAgent(dir, TYPES);
    expect(result.ok).toBe(true);
    expect(result.gitignoreAdded).toEqual([".assemblyline/"]);
    expect(result.written).not.toContain(".gitignore");
    expect(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe("dist\n/node_modules\n\n# Written by assembly-line compile: the analysis cache and the packaged artifact.\n.assemblyline/\n");
    // Nothing to add: the file is not touched at all.
    const complete = project({ ".gitignore": ".assemblyline\nnode_modules/\n" });
    const before = fs.statSync(path.join(complete, ".gitignore")).mtimeMs;
    expect(initAgent(complete, TYPES).gitignoreAdded).toEqual([]);
    expect(fs.readFileSync(path.join(complete, ".gitignore"), "utf8")).toBe(".assemblyline\nnode_modules/\n");
    expect(fs.statSync(path.join(complete, ".gitignore")).mtimeMs).toBe(before);
  });

  it("refuses, writing nothing, when a file of the agent is in the way, and names only the agent's files (AL9101)", () => {
    const dir = project({ "tsconfig.json": "{}\n", ".gitignore": "dist\n", "agent.md": "mine\n" });
    const result = initAgent(dir, TYPES);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL9101"]);
    // The project's .gitignore and tsconfig.json would be kept: they are not in the way (helper-69).
    expect(result.diagnostics[0]!.message).toMatch(/^init would overwrite \S*agent\.md \(/);
    expect(fs.readdirSync(dir).sort()).toEqual([".gitignore", "agent.md", "tsconfig.json"]);
    expect(fs.readFileSync(path.join(dir, ".gitignore"), "utf8")).toBe("dist\n");
    expect(result.diagnostics[0]!.hint).toContain("init ../my-agent`");
  });

  it("places a folder in the way on the folder, without a line and column (helper-88)", () => {
    const dir = project({});
    fs.mkdirSync(path.join(dir, "agent.md"));
    const result = initAgent(dir, TYPES);
    expect(result.diagnostics.map((d) => [d.code, d.file, d.line, d.column])).toEqual([["AL9101", "agent.md/", 1, 1]]);
    const file = project({ "agent.md": "mine\n" });
    expect(initAgent(file, TYPES).diagnostics[0]!.file).toBe("agent.md");
  });

  it("suggests a new folder beside this one that is neither this folder nor one that exists (helper-78: in my-agent/, 'init ../my-agent' was the same folder)", () => {
    const parent = tempDir("al-init-sibling-");
    const dir = path.join(parent, "my-agent");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "agent.md"), "mine\n");
    expect(initAgent(dir, TYPES).diagnostics[0]!.hint).toContain("init ../my-agent-2`");
    fs.mkdirSync(path.join(parent, "my-agent-2"));
    expect(initAgent(dir, TYPES).diagnostics[0]!.hint).toContain("init ../my-agent-3`");
  });

  it("never adds to a .gitignore that is a symbolic or hard link (it would write through it), and says why (AL6301), writing nothing", () => {
    const dir = project({});
    const outside = path.join(tempDir("al-init-outside-"), "ignore");
    fs.writeFileSync(outside, "dist\n");
    fs.symlinkSync(outside, path.join(dir, ".gitignore"));
    const result = initAgent(dir, TYPES);
    expect(result.ok).toBe(false);
    // Not AL9101 "would overwrite": init adds to a project's .gitignore (helper-72).
    expect(result.diagnostics.map((d) => d.code)).toEqual(["AL6301"]);
    expect(result.diagnostics[0]!.message).toMatch(/^\.gitignore was not written: \.gitignore is a symbolic link/);
    expect(fs.readFileSync(outside, "utf8")).toBe("dist\n");
    expect(fs.readdirSync(dir)).toEqual([".gitignore"]);
    const hard = project({});
    fs.linkSync(outside, path.join(hard, ".gitignore"));
    expect(initAgent(hard, TYPES).diagnostics.map((d) => d.code)).toEqual(["AL6301"]);
    expect(fs.readdirSync(hard)).toEqual([".gitignore"]);
  });

  it("keeps the project's .gitignore bytes, line ends and permissions when it adds to it (helper-72)", () => {
    // A Latin-1 pattern stays as written (decoding it as UTF-8 and writing it back made it U+FFFD).
    const latin1 = Buffer.from("caf\xe9.txt\n*.log\n", "latin1");
    const dir = project({});
    fs.writeFileSync(path.join(dir, ".gitignore"), latin1);
    fs.chmodSync(path.join(dir, ".gitignore"), 0o600);
    expect(initAgent(dir, TYPES).ok).toBe(true);
    const after = fs.readFileSync(path.join(dir, ".gitignore"));
    expect(after.subarray(0, latin1.length).equals(latin1)).toBe(true);
    expect(after.subarray(latin1.length).toString("utf8")).toBe("\n# Written by assembly-line compile: the analysis cache and the packaged artifact.\n.assemblyline/\nnode_modules/\n");
    expect(fs.statSync(path.join(dir, ".gitignore")).mode & 0o777).toBe(0o600);
    // CRLF: the added lines end as the file's own do.
    const crlf = project({ ".gitignore": "dist\r\n*.log" });
    expect(initAgent(crlf, TYPES).ok).toBe(true);
    expect(fs.readFileSync(path.join(crlf, ".gitignore"), "utf8")).toBe(
      "dist\r\n*.log\r\n\r\n# Written by assembly-line compile: the analysis cache and the packaged artifact.\r\n.assemblyline/\r\nnode_modules/\r\n",
    );
  });

  it("refuses an agent in another's plugins/ (AL9104, an error), warns elsewhere inside it, and says nothing in its subagents/<name>/", () => {
    const outer = project({});
    expect(initAgent(outer, TYPES).diagnostics).toEqual([]);
    for (const dir of [path.join(outer, "plugins"), path.join(outer, "plugins", "search")]) {
      const refused = initAgent(dir, TYPES);
      expect(refused.ok).toBe(false);
      expect(refused.diagnostics.map((d) => [d.code, d.severity])).toEqual([["AL9104", "error"]]);
      expect(refused.diagnostics[0]!.hint).toMatch(/^Nothing was written\. A subagent of \S+ goes in its subagents\/<name>\/ \(`npx assembly-line init /);
    }
    expect(fs.readdirSync(path.join(outer, "plugins"))).toEqual(["hello"]);
    const nested = initAgent(path.join(outer, "docs", "search"), TYPES);
    expect(nested.ok).toBe(true);
    expect(nested.diagnostics.map((d) => [d.code, d.severity])).toEqual([["AL9104", "warning"]]);
    expect(nested.diagnostics[0]!.hint).toContain(`npx assembly-line init ${path.relative(process.cwd(), path.join(outer, "subagents", "search"))}`);
    const subagent = initAgent(path.join(outer, "subagents", "helper"), TYPES);
    expect(subagent.ok).toBe(true);
    expect(subagent.diagnostics).toEqual([]);
  });
});

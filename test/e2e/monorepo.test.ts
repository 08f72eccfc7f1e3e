/**
 * Monorepos and shared caches (issue 10 item 6), with the real CLI: several roots (or a glob)
 * in one compile, the JSON shape of that; `assembly-line inputs` lists exactly the files whose
 * change changes the lock or the artifact; two checkouts at different absolute paths give
 * byte-identical outputs (and the same inputs list).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { copyAgent } from "../helpers/copy-agent.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { repoRoot, tempDir, writeFiles } from "../helpers/temp-tree.js";
import { isToolchainFile } from "../../cli/commands/inputs.js";

/** plugins.lock and every artifact file, by path relative to the root → SHA-256. */
function outputs(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = (file: string): void => {
    out.set(path.relative(root, file).split(path.sep).join("/"), createHash("sha256").update(fs.readFileSync(file)).digest("hex"));
  };
  add(path.join(root, "plugins.lock"));
  const build = path.join(root, ".assemblyline", "build");
  for (const entry of fs.readdirSync(build, { recursive: true, withFileTypes: true })) if (entry.isFile()) add(path.join(entry.parentPath, entry.name));
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The starter agent plus a skill, an asset, and a module outside the plugin that a tool imports. */
function richAgent(parent: string, name: string): string {
  const root = path.join(parent, name);
  writeStarterAgent(root);
  const tool = path.join(root, "plugins", "hello", "ai.assemblyline", "hello.ts");
  const text = fs
    .readFileSync(tool, "utf8")
    .replace('import { defineTool } from "@assemblyline-agents/core";', 'import { defineTool } from "@assemblyline-agents/core";\nimport prompt from "./prompt.md";\nimport { shout } from "../../../shared/util.ts";')
    .replace("return { greeting: `Hello, ${input.name}!` };", "return { greeting: shout(`${prompt.trim()}, ${input.name}!`) };");
  const entry = path.join(root, "plugins", "hello", "ai.assemblyline", "index.ts");
  writeFiles(root, {
    "plugins/hello/ai.assemblyline/index.ts": fs.readFileSync(entry, "utf8").replace("  tools: {\n", '  configSchema: { type: "object", properties: { style: { type: "string" } } },\n  tools: {\n'),
    "plugins/hello/ai.assemblyline/hello.ts": text,
    "plugins/hello/ai.assemblyline/prompt.md": "Hello there\n",
    "plugins/hello/skills/tone/SKILL.md": "---\nname: tone\ndescription: How to greet.\n---\nBe warm.\n",
    "shared/util.ts": "export function shout(s: string): string {\n  return s.toUpperCase();\n}\n",
    "notes.txt": "Not read by a compile.\n",
  });
  return root;
}

describe("compile with several roots", () => {
  it("compiles roots and globs in one process; JSON is { ok, results: [{ root, ...single-root shape }] }", () => {
    const repo = tempDir("al-mono-");
    richAgent(path.join(repo, "agents"), "one");
    richAgent(path.join(repo, "agents"), "two");
    writeFiles(repo, { "agents/not-an-agent/readme.md": "x\n" });
    const single = runCliJson(["compile", "agents/one"], { cwd: repo });
    expect(Object.keys(single.json).sort()).toEqual(["artifact", "diagnostics", "lockChanged", "lockfile", "ok"]);

    const many = runCliJson(["compile", "agents/*"], { cwd: repo });
    expect(many.status, many.stderr).toBe(0);
    expect(many.json).toEqual({
      ok: true,
      results: [
        { root: "agents/one", ok: true, diagnostics: [], lockfile: "plugins.lock", lockChanged: false, artifact: ".assemblyline/build" },
        { root: "agents/two", ok: true, diagnostics: [], lockfile: "plugins.lock", lockChanged: true, artifact: ".assemblyline/build" },
      ],
    });

    // Explicit roots too; one failing root fails the run (exit 1) and the others are still compiled.
    fs.writeFileSync(path.join(repo, "agents", "two", "agent.md"), "---\nname: two\ncapabilities:\n  missing: {}\n---\n");
    const mixed = runCliJson(["compile", "agents/one", "agents/two"], { cwd: repo });
    expect(mixed.status).toBe(1);
    expect(mixed.json.ok).toBe(false);
    expect(mixed.json.results.map((r: { root: string; ok: boolean }) => [r.root, r.ok])).toEqual([["agents/one", true], ["agents/two", false]]);

    const pretty = runCli(["compile", "agents/one", "agents/two"], { cwd: repo });
    expect(pretty.stdout).toContain("agents/one:\nUp to date:");
    expect(pretty.stdout).toContain("agents/two:\n");
    // SARIF and GitHub: one document, paths relative to the working directory.
    const github = runCli(["compile", "agents/*", "--format", "github"], { cwd: repo });
    expect(github.stdout).toContain("file=agents/two/agent.md");

    const nothing = runCliJson(["compile", "elsewhere/*"], { cwd: repo });
    expect(nothing.status).toBe(1);
    expect(nothing.json.diagnostics[0].code).toBe("AL9116");
  }, 180_000);

  it("refuses several roots that would write one artifact directory (AL9117)", () => {
    const repo = tempDir("al-mono-out-");
    richAgent(repo, "one");
    richAgent(repo, "two");
    const run = runCliJson(["compile", "one", "two", "--out", "dist"], { cwd: repo });
    expect(run.status).toBe(2);
    expect(run.json.diagnostics[0].code).toBe("AL9117");
    expect(fs.existsSync(path.join(repo, "dist"))).toBe(false);
  });
});

describe("assembly-line inputs", () => {
  it("leaves out the toolchain's own files wherever it is installed, and keeps an agent's own files inside the toolchain's folder (new-user trial of 6 December)", () => {
    const toolchain = path.join("/w", "agent", "node_modules", "@assemblyline-agents", "assembly-line");
    const authoring = path.join(toolchain, "dist", "runtime-min", "authoring", "index.js");
    // Installed inside the agent, as `npm install` in the agent puts it: still the toolchain's.
    expect(isToolchainFile(authoring, path.join("/w", "agent"), toolchain)).toBe(true);
    // Installed above the agent (a monorepo's root).
    expect(isToolchainFile(path.join("/m", "node_modules", "x", "a.js"), path.join("/m", "agents", "a"), path.join("/m", "node_modules", "x"))).toBe(true);
    // An agent inside the toolchain's checkout (its examples): the agent's files are its own, the rest the toolchain's.
    expect(isToolchainFile(path.join("/repo", "examples", "a", "agent.md"), path.join("/repo", "examples", "a"), "/repo")).toBe(false);
    expect(isToolchainFile(path.join("/repo", "dist", "x.js"), path.join("/repo", "examples", "a"), "/repo")).toBe(true);
    expect(isToolchainFile(path.join("/w", "agent", "plugins", "p", "index.ts"), path.join("/w", "agent"), toolchain)).toBe(false);
  });

  it("lists exactly the files whose change changes the lock or the artifact", () => {
    const root = richAgent(tempDir("al-inputs-"), "agent");
    const listed = runCli(["inputs", root]);
    expect(listed.status, listed.stderr).toBe(0);
    const files = listed.stdout.trim().split("\n");
    expect(files).toEqual([
      "agent.md",
      "plugins/hello/ai.assemblyline/hello.ts",
      "plugins/hello/ai.assemblyline/index.ts",
      "plugins/hello/ai.assemblyline/prompt.md",
      "plugins/hello/plugin.json",
      "plugins/hello/skills/tone/SKILL.md",
      "shared/util.ts",
    ]);
    expect(runCliJson(["inputs", root]).json).toEqual({ files });

    expect(runCli(["compile", root]).status).toBe(0);
    const baseline = outputs(root);
    // A change to each listed file that keeps the agent valid; then one to an unlisted file.
    const changes: Record<string, (text: string) => string> = {
      "agent.md": (t) => t.replace("  hello: {}\n", "  hello:\n    config:\n      style: warm\n"),
      "plugins/hello/ai.assemblyline/hello.ts": (t) => t.replace("${prompt.trim()}, ", "${prompt.trim()}; "),
      "plugins/hello/ai.assemblyline/index.ts": (t) => t.replace("definition:", 'tags: ["greeting"],\n      definition:'),
      "plugins/hello/ai.assemblyline/prompt.md": () => "Good morning\n",
      "plugins/hello/plugin.json": (t) => t.replace('"0.1.0"', '"0.2.0"'),
      "plugins/hello/skills/tone/SKILL.md": (t) => t.replace("Be warm.", "Be brief."),
      "shared/util.ts": (t) => t.replace("toUpperCase", "toLowerCase"),
      "notes.txt": () => "Changed, and still not read.\n",
      "tsconfig.json": (t) => t.replace('"strict": true', '"strict": false'),
    };
    expect(Object.keys(changes).filter((f) => !files.includes(f)).sort()).toEqual(["notes.txt", "tsconfig.json"]);
    for (const [file, change] of Object.entries(changes)) {
      const absolute = path.join(root, file);
      const original = fs.readFileSync(absolute, "utf8");
      const changed = change(original);
      expect(changed, file).not.toBe(original);
      fs.writeFileSync(absolute, changed);
      const run = runCli(["compile", root]);
      expect(run.status, `${file}: ${run.stderr}`).toBe(0);
      const after = outputs(root);
      if (files.includes(file)) expect(after, `a change to listed ${file} changes the outputs`).not.toEqual(baseline);
      else expect(after, `a change to unlisted ${file} changes nothing`).toEqual(baseline);
      fs.writeFileSync(absolute, original);
    }
    expect(runCli(["compile", root]).status).toBe(0);
    expect(outputs(root), "all files restored").toEqual(baseline);
  }, 300_000);
});

describe("two checkouts at different absolute paths", () => {
  it("give byte-identical plugins.lock and artifact, and the same inputs", () => {
    const example = path.join(repoRoot, "examples", "support-agent");
    const first = copyAgent(example, "al-checkout-a-");
    const secondParent = path.join(tempDir("al-checkout-b-"), "deeper", "path with spaces");
    fs.mkdirSync(secondParent, { recursive: true });
    const second = path.join(secondParent, "support-agent");
    fs.cpSync(first, second, { recursive: true });
    for (const root of [first, second]) {
      fs.rmSync(path.join(root, "plugins.lock"), { force: true });
      const run = runCli(["compile", root]);
      expect(run.status, run.stderr).toBe(0);
    }
    const a = outputs(first);
    expect(a.size).toBeGreaterThan(3);
    expect(outputs(second)).toEqual(a);
    expect(fs.readFileSync(path.join(second, "plugins.lock"))).toEqual(fs.readFileSync(path.join(example, "plugins.lock")));
    expect(runCli(["inputs", second]).stdout).toBe(runCli(["inputs", first]).stdout);
  }, 180_000);
});

/**
 * The project configuration (issue 10 item 5), with the real CLI: every file kind cosmiconfig
 * finds is read; the search goes up from the agent root and paths are relative to the file; a
 * bad configuration is a diagnostic with file, line, column and property path; flags override
 * the configuration; `rules` and `maxWarnings` act on compile's diagnostics.
 *
 * The matrices (every file kind, every broken configuration) ask `compile`'s own configuration
 * step in-process (`loadTargets` and `outputFormat` of cli/compile-targets.ts, the functions
 * `compile` calls before it compiles, and the pretty formatter it prints with); a real CLI run
 * checks each behaviour end to end once per file family (JSON, YAML, JavaScript, TypeScript,
 * package.json) and per broken file name. Every CLI process costs about 0.35 s of CPU to start,
 * and the suite's time follows the number of processes (docs/performance.md, "The test suite's
 * budget").
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { loadTargets, outputFormat, type CompileTarget, type ConfigFlags, type SettingFlags } from "../../cli/compile-targets.js";
import { formatPretty } from "../../diagnostics/format-pretty.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

/**
 * An agent with no plugins and a `tools/` folder, which compile warns about (AL1015). These tests
 * are about the configuration (its search, loaders, flags, rules), not the plugin analysis, so
 * the agent is the smallest one that compiles with a warning: a compile of it takes about 0.3 s
 * of CPU against 0.5-0.6 s for init's starter agent with its plugin.
 */
function agentWithWarning(): string {
  const root = path.join(tempDir("al-config-"), "agent");
  writeFiles(root, {
    "agent.md": "---\nname: agent\ndescription: An agent with no plugins.\n---\n\nYou are agent.\n",
    "tools/old.ts": "export {};\n",
  });
  return root;
}

/** Compiles without `--format`: the output is JSON only when the configuration said so. */
function printsJson(root: string, args: readonly string[] = []): boolean {
  const run = runCli(["compile", "--no-package", ...args], { cwd: root });
  try {
    JSON.parse(run.stdout);
    return true;
  } catch {
    return false;
  }
}

/** In-process, what `compile` run in `root` with `flags` works on: the root's target (its configuration, or its diagnostics relative to the root). */
async function targetOf(root: string, flags: ConfigFlags = {}): Promise<CompileTarget> {
  const [target] = await loadTargets([{ root, displayRoot: "." }], flags);
  return target!;
}

/** Diagnostics without their `message`s. */
function withoutMessages(diagnostics: readonly { readonly message?: unknown }[]): unknown[] {
  return diagnostics.map(({ message: _message, ...rest }) => rest);
}

/** In-process, the output format `compile` run in `root` with `flags` chooses (the flag, else the configuration's, else pretty). */
async function formatChosen(root: string, flags: ConfigFlags & SettingFlags = {}): Promise<string> {
  return outputFormat(flags, [await targetOf(root, flags)]);
}

describe("project configuration files", () => {
  const kinds: Record<string, string> = {
    "assembly-line.config.json": '{ "format": "json" }\n',
    "assembly-line.config.yaml": "format: json\n",
    "assembly-line.config.yml": "format: json\n",
    "assembly-line.config.js": "module.exports = { format: 'json' };\n",
    "assembly-line.config.cjs": "module.exports = { format: 'json' };\n",
    "assembly-line.config.mjs": "export default { format: 'json' };\n",
    "assembly-line.config.ts": "const format: 'json' = 'json';\nexport default { format } satisfies { format: string };\n",
    ".assemblylinerc": "format: json\n",
    ".assemblylinerc.json": '{ "format": "json" }\n',
    ".assemblylinerc.yaml": "format: json\n",
    ".assemblylinerc.mjs": "export default { format: 'json' };\n",
    ".assemblylinerc.ts": "export default { format: 'json' as const };\n",
    "package.json": '{ "name": "agent", "private": true, "assemblyLine": { "format": "json" } }\n',
  };
  it("prints pretty output without a configuration file", () => {
    expect(printsJson(agentWithWarning())).toBe(false);
  });
  // Every file kind through compile's configuration step in-process, with the flags: --format
  // wins over the file (the flag is applied after the search, whatever found the file) and
  // --no-config ignores it (it returns before the search reads any file:
  // build/project-config/load-project-config.ts). One loader of each family (JSON, YAML,
  // JavaScript, TypeScript, package.json) also through the real CLI, which prints JSON; the
  // flags through the real CLI once, on the TypeScript file (the loader that does the most: with
  // --no-config nothing is transpiled).
  const cliChecked = new Set(["assembly-line.config.json", "assembly-line.config.yaml", "assembly-line.config.mjs", "assembly-line.config.ts", "package.json"]);
  const flagsChecked = "assembly-line.config.ts";
  for (const [file, text] of Object.entries(kinds)) {
    it(`reads ${file}`, async () => {
      const root = agentWithWarning();
      writeFiles(root, { [file]: text });
      // compile's configuration step, in-process: this file is found and read, and says JSON;
      // --no-config ignores it; --format wins over it.
      const target = await targetOf(root);
      expect(target.configDiagnostics).toEqual([]);
      expect(target.config.file).toBe(path.join(root, file));
      expect(await formatChosen(root)).toBe("json");
      expect(await formatChosen(root, { config: false })).toBe("pretty");
      expect(await formatChosen(root, { format: "pretty" })).toBe("pretty");
      // The real CLI, once per family: it prints what the configuration asks for; the flags win.
      if (cliChecked.has(file)) expect(printsJson(root)).toBe(true);
      if (file === flagsChecked) {
        expect(printsJson(root, ["--no-config"])).toBe(false);
        expect(printsJson(root, ["--format", "pretty"])).toBe(false);
      }
      // The TypeScript loader leaves no temporary file behind.
      expect(fs.readdirSync(root).filter((name) => name.endsWith(".mjs") && name !== file)).toEqual([]);
    });
  }

  it("is searched from the agent root upwards; paths in it are relative to its folder", () => {
    const root = agentWithWarning();
    const repo = path.dirname(root);
    writeFiles(repo, { "assembly-line.config.json": '{ "outDir": "dist/agent-build" }\n' });
    const run = runCliJson(["compile", root]);
    expect(run.json, run.stderr).toMatchObject({ ok: true, artifact: "../dist/agent-build" });
    expect(fs.existsSync(path.join(repo, "dist", "agent-build", "manifest.json"))).toBe(true);
    // --out wins over outDir.
    const flagged = runCliJson(["compile", root, "--out", path.join(repo, "other")]);
    expect(flagged.json.artifact).toBe("../other");
  });

  it("takes the file named by --config, relative to the working directory", () => {
    const root = agentWithWarning();
    writeFiles(path.dirname(root), { "configs/strict.yaml": "format: json\nrules:\n  AL1015: off\n" });
    const run = runCli(["compile", ".", "--no-package", "--config", "../configs/strict.yaml"], { cwd: root });
    expect(JSON.parse(run.stdout).diagnostics.map((d: { code: string }) => d.code)).not.toContain("AL1015");
    const missing = runCliJson(["compile", ".", "--config", "nope.json"], { cwd: root });
    expect(missing.status).toBe(1);
    expect(missing.json.diagnostics[0]).toMatchObject({ code: "AL9112", file: "nope.json" });
    expect(missing.json.diagnostics[0].message).toContain("does not exist");
    // Not the catalogue's hint about a JavaScript configuration's default export (helper-73).
    expect(missing.json.diagnostics[0].hint).toBe("Check the path of the configuration file named on the command line (relative to the working directory), or run without it.");
  });
});

describe("a bad configuration is a diagnostic, and nothing is compiled", () => {
  const cases: { name: string; file: string; text: string; expected: Record<string, unknown>; hint?: RegExp }[] = [
    { name: "a wrong type", file: "assembly-line.config.json", text: '{\n  "maxWarnings": "3"\n}\n', expected: { code: "AL9111", file: "assembly-line.config.json", line: 2, column: 18, path: "maxWarnings" } },
    { name: "a wrong nested value", file: "assembly-line.config.yaml", text: "host:\n  execution: docker\n", expected: { code: "AL9111", file: "assembly-line.config.yaml", line: 2, column: 14, path: "host.execution" } },
    { name: "a memoryMb the runtime would refuse (under 16)", file: "assembly-line.config.yaml", text: "host:\n  memoryMb: 8\n", expected: { code: "AL9111", file: "assembly-line.config.yaml", line: 2, column: 13, path: "host.memoryMb" } },
    { name: "an unknown key (did you mean)", file: "assembly-line.config.json", text: '{ "outdir": "x" }\n', expected: { code: "AL9111", line: 1, column: 3, path: "outdir" }, hint: /Did you mean 'outDir'/ },
    { name: "a misspelt value of a fixed set (did you mean)", file: "assembly-line.config.json", text: '{ "format": "jsn" }\n', expected: { code: "AL9111", line: 1, column: 13, path: "format" }, hint: /Did you mean 'json'/ },
    { name: "a package.json key", file: "package.json", text: '{\n  "name": "a",\n  "assemblyLine": {\n    "format": "xml"\n  }\n}\n', expected: { code: "AL9111", file: "package.json", line: 4, path: "format" } },
    { name: "JSON syntax", file: ".assemblylinerc.json", text: '{ "format": "json", }\n', expected: { code: "AL9110", file: ".assemblylinerc.json", line: 1 } },
    { name: "YAML syntax", file: "assembly-line.config.yaml", text: "format: json\nrules: [\n", expected: { code: "AL9110", file: "assembly-line.config.yaml" } },
    { name: "a rule for an unknown code", file: "assembly-line.config.json", text: '{ "rules": { "AL1016x": "off" } }\n', expected: { code: "AL9111", path: "rules.AL1016x" } },
    { name: "a rule for a code that does not exist", file: "assembly-line.config.json", text: '{ "rules": { "AL1999": "off" } }\n', expected: { code: "AL9113", path: "rules.AL1999", line: 1, column: 14 } },
    { name: "a rule that lowers an error", file: "assembly-line.config.json", text: '{ "rules": { "AL1001": "warn" } }\n', expected: { code: "AL9114", path: "rules.AL1001" } },
    { name: "a JavaScript configuration that throws", file: "assembly-line.config.mjs", text: "throw new Error('boom');\n", expected: { code: "AL9112", file: "assembly-line.config.mjs" } },
  ];
  // Every case through compile's configuration step in-process (the diagnostics it reports, as
  // JSON prints them, and as pretty output renders them; --no-config ignoring the file, as it
  // returns before any file is read). The real CLI runs the first broken file of each name
  // (JSON, YAML, package.json, .assemblylinerc.json, a throwing module): exit 1, the same
  // diagnostic in JSON and pretty output, nothing compiled; and --no-config once, on the module
  // that throws (a compile that imported it would fail). The other cases of the same file name
  // take the same path through the CLI with another diagnostic, which the in-process step checks.
  const cliChecked = new Set(cases.filter((c, i) => cases.findIndex((d) => d.file === c.file) === i).map((c) => c.name));
  for (const { name, file, text, expected, hint } of cases) {
    it(name, async () => {
      const root = agentWithWarning();
      writeFiles(root, { [file]: text });
      const target = await targetOf(root);
      expect(target.configDiagnostics[0]).toMatchObject(expected);
      if (hint) expect(target.configDiagnostics[0]!.hint).toMatch(hint);
      // Pretty output names the file and line too (run in the root: files as the diagnostics name them).
      expect(formatPretty(target.configDiagnostics)).toContain(`${file}:${expected["line"] ?? ""}`);
      expect((await targetOf(root, { config: false })).configDiagnostics).toEqual([]);
      if (!cliChecked.has(name)) return;
      const run = runCliJson(["compile"], { cwd: root });
      expect(run.status).toBe(1);
      expect(run.json.ok).toBe(false);
      expect(run.json.diagnostics[0]).toMatchObject(expected);
      if (hint) expect(run.json.diagnostics[0].hint).toMatch(hint);
      // The step in-process reported the same diagnostics (their messages name the file relative
      // to the working directory, the repository's here and the root in the CLI run).
      expect(withoutMessages(run.json.diagnostics)).toEqual(withoutMessages(JSON.parse(JSON.stringify(target.configDiagnostics))));
      expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
      const pretty = runCli(["compile", "--format", "pretty"], { cwd: root });
      expect(pretty.status).toBe(1);
      expect(pretty.stderr).toContain(`${file}:${expected["line"] ?? ""}`);
      // --no-config ignores the broken file.
      if (file === "assembly-line.config.mjs") expect(runCli(["compile", "--no-config"], { cwd: root }).status).toBe(0);
    });
  }
});

describe("rules and maxWarnings", () => {
  it("turns a warning off, or raises it to an error that stops the compile", () => {
    const root = agentWithWarning();
    writeFiles(root, { ".assemblylinerc.json": '{ "rules": { "AL1015": "off" } }' });
    const off = runCliJson(["compile"], { cwd: root });
    expect(off.json).toMatchObject({ ok: true, diagnostics: [] });
    fs.rmSync(path.join(root, "plugins.lock"));
    writeFiles(root, { ".assemblylinerc.json": '{ "rules": { "AL1015": "error" } }' });
    const raised = runCliJson(["compile"], { cwd: root });
    expect(raised.status).toBe(1);
    expect(raised.json.diagnostics).toEqual([expect.objectContaining({ code: "AL1015", severity: "error" })]);
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
  });

  it("fails with more warnings than maxWarnings (AL9115); --max-warnings wins", () => {
    const root = agentWithWarning();
    writeFiles(root, { "assembly-line.config.json": '{ "maxWarnings": 0 }' });
    const over = runCliJson(["compile"], { cwd: root });
    expect(over.status).toBe(1);
    expect(over.json.diagnostics.map((d: { code: string }) => d.code).sort()).toEqual(["AL1015", "AL9115"]);
    expect(over.json.diagnostics.find((d: { code: string }) => d.code === "AL9115").message).toContain("maxWarnings in assembly-line.config.json");
    expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
    expect(runCliJson(["compile", "--max-warnings", "1"], { cwd: root }).status).toBe(0);
    const flag = runCliJson(["compile", "--no-config", "--max-warnings", "0"], { cwd: root });
    expect(flag.status).toBe(1);
    expect(flag.json.diagnostics.find((d: { code: string }) => d.code === "AL9115").message).toContain("--max-warnings");
    expect(runCli(["compile", "--max-warnings", "many"], { cwd: root }).status).toBe(2);
  });
});

describe("host policy defaults for call", () => {
  it("takes execution, deadlineMs and outDir from the configuration; flags win", () => {
    const root = path.join(tempDir("al-host-"), "agent");
    writeStarterAgent(root);
    const tool = path.join(root, "plugins", "hello", "ai.assemblyline", "hello.ts");
    // A tool that takes a while, so a short deadline fails it.
    fs.writeFileSync(tool, fs.readFileSync(tool, "utf8").replace("return {", "await new Promise((resolve) => setTimeout(resolve, 1500));\n    return {"));
    writeFiles(root, { "assembly-line.config.yaml": "outDir: build-out\nhost:\n  execution: direct\n  deadlineMs: 100\n" });
    const call = (extra: readonly string[] = []) => runCliJson(["call", "hello", "--input", '{"name":"Ada"}', ...extra], { cwd: root });

    const defaults = call();
    expect(defaults.json.status, defaults.stderr).toBe("failed");
    expect(defaults.json.events[0]).toMatchObject({ type: "tool.execution_started", runtimeBoundary: "host" });
    expect(fs.existsSync(path.join(root, "build-out", "manifest.json"))).toBe(true);
    expect(fs.existsSync(path.join(root, ".assemblyline", "build"))).toBe(false);

    const flags = call(["--deadline", "60000", "--execution", "sandbox"]);
    expect(flags.json).toMatchObject({ status: "ok", output: { greeting: "Hello, Ada!" } });
    expect(flags.json.events[0]).toMatchObject({ runtimeBoundary: "sandbox" });

    const ignored = call(["--no-project-config"]);
    expect(ignored.json.status).toBe("ok");
    expect(ignored.json.events[0]).toMatchObject({ runtimeBoundary: "sandbox" });

    writeFiles(root, { "assembly-line.config.yaml": "host:\n  execution: docker\n" });
    const bad = call();
    expect(bad.status).toBe(1);
    expect(bad.json.diagnostics[0]).toMatchObject({ code: "AL9111", file: "assembly-line.config.yaml", line: 2, path: "host.execution" });
  }, 180_000);
});

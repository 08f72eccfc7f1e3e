/**
 * The tsserver plugin in a REAL tsserver (TypeScript 6.0, the repo's devDependency, and 5.9,
 * installed as the `typescript-5.9` alias), driven over its stdio protocol through
 * `@typescript/server-harness`, on a fixture project where this package is installed by npm
 * from a packed tarball (see `test/helpers/packed-install.ts`). One server per TypeScript
 * version, shared by every case.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import { launchServer, type Server } from "@typescript/server-harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPackedProject, installedPackageDir } from "../helpers/packed-install.js";
import { CONFIG, CONFIG_AGENT_FILES, CONFIG_AGENT_TEXTS, EDITED_CONFIG, writeConfig } from "./config-agent.js";

const require = createRequire(import.meta.url);
const TS_CODE_BASE = 990_000;
const PLUGIN = "@assemblyline-agents/assembly-line/ts-plugin";
const FAULT_MARK = "fault-case";

const DEFINITION = `import { defineTool } from "@assemblyline-agents/core";

export const echo = () => defineTool({
  description: "Echoes the message.",
  inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"], additionalProperties: false },
  async execute(input: { message: string }) {
    return input.message;
  },
});
`;

/** An entry whose inputSchema says `type: "strng"` (and so also drifts from defineTool). */
const BAD_SCHEMA_ENTRY = `export default {
  tools: {
    echo: {
      definition: "./ai.assemblyline/echo.ts",
      factory: "echo",
      description: "Echoes the message.",
      inputSchema: { type: "object", properties: { message: { type: "strng" } }, required: ["message"], additionalProperties: false },
    },
  },
};
`;

const GOOD_SCHEMA_ENTRY = BAD_SCHEMA_ENTRY.replace('"strng"', '"string"');
const TYPO_ENTRY = GOOD_SCHEMA_ENTRY.replace("      description:", "      descripton:").replace("    echo: {", "    typed: {");
const FACTORY_ENTRY = GOOD_SCHEMA_ENTRY.replace("    echo: {", "    shout: {");
/** Our diagnostics plus one of TypeScript's own (a type error), for the fault case. */
const faultEntry = (tool: string) => `${BAD_SCHEMA_ENTRY.replace("    echo: {", `    ${tool}: {`)}\nconst count: number = "three";\nvoid count;\n`;
/** A module that is not part of a plugin yet: its folder gains an `ai.assemblyline/` entry (that imports it) while tsserver runs. */
const SHARED_LIMITS = "export const MAX = Math.max(1, 10);\n";
const GROWN_ENTRY = `import { MAX } from "../shared/limits.js";

export default {
  configSchema: { type: "object", properties: { limit: { type: "integer", maximum: MAX } } },
  tools: {},
};
`;
const ORDINARY = `export function greet(name: string): string {\n  return "hello " + name;\n}\nconst n: number = "x";\nvoid n;\ngreet(1);\n`;

/**
 * A typed entry and a definition module, each with a misspelt key that TypeScript itself reports
 * (TS2561, as the authoring API types the objects): imported by the package's own `./core`
 * export, which resolves with no `paths` mapping.
 */
const TYPED_TYPO_ENTRY = `import { defineAssemblyLinePlugin } from "@assemblyline-agents/assembly-line/core";\n\nexport default defineAssemblyLinePlugin(${TYPO_ENTRY.replace("export default ", "").replace(/;\n$/, "")});\n`;
const TYPED_TYPO_DEFINITION = DEFINITION.replace('"@assemblyline-agents/core"', '"@assemblyline-agents/assembly-line/core"').replace("  description:", "  descripton:");

function plugin(name: string, entry: string): Record<string, string> {
  return {
    [`plugins/${name}/plugin.json`]: `${JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name, version: "1.0.0", description: `Fixture plugin ${name}.` }, null, 2)}\n`,
    [`plugins/${name}/ai.assemblyline/index.ts`]: entry,
    [`plugins/${name}/ai.assemblyline/echo.ts`]: DEFINITION,
  };
}

function agent(root: string, plugins: Record<string, string>, transform: (text: string) => string = (t) => t): Record<string, string> {
  const files: Record<string, string> = { "agent.md": `---\nname: ${root}\ncapabilities:\n${Object.keys(plugins).map((k) => `  ${k}: {}`).join("\n")}\n---\n\nFixture agent.\n` };
  for (const [name, entry] of Object.entries(plugins)) Object.assign(files, plugin(name, entry));
  return Object.fromEntries(Object.entries(files).map(([file, text]) => [`${root}/${file}`, file.endsWith(".ts") ? transform(text) : text]));
}

/** The agent of `./config-agent.ts` (its entry and definition module) with its `assembly-line.config.json`, under `root`. */
function configAgent(root: string): Record<string, string> {
  return {
    ...agent(root, { example: CONFIG_AGENT_TEXTS[CONFIG_AGENT_FILES.entry]! }),
    [`${root}/${CONFIG_AGENT_FILES.definition}`]: CONFIG_AGENT_TEXTS[CONFIG_AGENT_FILES.definition]!,
    [`${root}/assembly-line.config.json`]: `${JSON.stringify(CONFIG, null, 2)}\n`,
  };
}

const tsconfig = (plugins: boolean) =>
  `${JSON.stringify(
    {
      compilerOptions: {
        strict: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        // Without the DOM that es2022's default lib adds (lib.dom.d.ts, about 2 MB): no file
        // here names it, and each program (two per server, a server per TypeScript version)
        // parsed and checked against it, 0.6-0.9 s of CPU each (docs/performance.md, "The test
        // suite's budget", helper-104).
        lib: ["es2022"],
        noEmit: true,
        skipLibCheck: true,
        types: [],
        // Listed twice on purpose: a second registration must not duplicate anything.
        ...(plugins ? { plugins: [{ name: PLUGIN }, { name: PLUGIN }] } : {}),
      },
      ...(plugins ? { exclude: ["plain", "node_modules"] } : {}),
    },
    null,
    2,
  )}\n`;

const FILES: Record<string, string> = {
  "tsconfig.json": tsconfig(true),
  "plain/tsconfig.json": tsconfig(false),
  "plain/ordinary.ts": ORDINARY,
  "src/ordinary.ts": ORDINARY,
  ...agent("lf", { demo: BAD_SCHEMA_ENTRY, typo: TYPO_ENTRY, factory: FACTORY_ENTRY, [FAULT_MARK]: faultEntry("faulty"), twin: faultEntry("twin"), typed: TYPED_TYPO_ENTRY }),
  "lf/plugins/typed/ai.assemblyline/echo.ts": TYPED_TYPO_DEFINITION,
  // One per TypeScript version (both runs share the project): see "picks up a plugin folder created after the server started".
  "lf/plugins/grown-6/shared/limits.ts": SHARED_LIMITS,
  "lf/plugins/grown-5/shared/limits.ts": SHARED_LIMITS,
  // Two plugins that declare the same tool (compile reports AL4012 in one entry): see "answers first from the opened plugin alone".
  ...agent("dup-6", { first: GOOD_SCHEMA_ENTRY, second: GOOD_SCHEMA_ENTRY }),
  ...agent("dup-5", { first: GOOD_SCHEMA_ENTRY, second: GOOD_SCHEMA_ENTRY }),
  // An agent with a project configuration (rules, targets, tokenBudget): see "applies the project configuration".
  ...configAgent("cfg-6"),
  ...configAgent("cfg-5"),
  ...agent("crlf", { demo: BAD_SCHEMA_ENTRY }, (t) => t.replace(/\n/g, "\r\n")),
  ...agent("bom", { demo: BAD_SCHEMA_ENTRY }, (t) => `\uFEFF${t}`),
};

interface CliDiagnostic {
  code: string;
  message: string;
  file: string;
  line: number;
  column: number;
  endLine?: number;
  endColumn?: number;
  hint?: string;
}

interface ProtocolDiagnostic {
  category: string;
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code: number;
  source?: string;
}

interface ProtocolCodeFix {
  fixName: string;
  description: string;
  changes: { fileName: string; textChanges: { start: { line: number; offset: number }; end: { line: number; offset: number }; newText: string }[] }[];
}

let project: string;

beforeAll(() => {
  project = createPackedProject(FILES);
}, 300_000);

/**
 * What `assembly-line compile` (the installed package's own CLI) reports for `file` of the agent
 * at `root`; with `check`, `compile --check`, which writes nothing (no plugins.lock: no change
 * for tsserver's watchers to report).
 */
function cliDiagnostics(root: string, file: string, check = false): CliDiagnostic[] {
  // One compile per state of the agent's files: a compile's report depends only on them
  // (`--no-cache`), so a second question on the same bytes (another file of the same run, the
  // other TypeScript version on an agent neither changed) reads the run made for the first.
  const key = `${root}\0${check}\0${agentFilesDigest(path.join(project, root))}`;
  let diagnostics = compileReports.get(key);
  if (diagnostics === undefined) {
    const bin = path.join(installedPackageDir(project), "dist/bin/assembly-line.cjs");
    let out: string;
    try {
      out = execFileSync(process.execPath, [bin, "compile", path.join(project, root), "--no-package", "--no-cache", ...(check ? ["--check"] : []), "--format", "json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (error) {
      out = (error as { stdout: string }).stdout;
    }
    diagnostics = (JSON.parse(out) as { diagnostics: CliDiagnostic[] }).diagnostics;
    compileReports.set(key, diagnostics);
  }
  return diagnostics.filter((d) => d.file === file);
}

/** The diagnostics of each compile run so far, by agent, `--check` and {@link agentFilesDigest} of the files it read. */
const compileReports = new Map<string, CliDiagnostic[]>();

/** SHA-256 over every file under `root` (its path and bytes), but the compile's own output folder `.assemblyline/`. */
function agentFilesDigest(root: string): string {
  const hash = createHash("sha256");
  const files = fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => !entry.isDirectory());
  const names = files.map((entry) => path.relative(root, path.join(entry.parentPath, entry.name))).filter((name) => !name.split(path.sep).includes(".assemblyline")).sort();
  for (const name of names) hash.update(`${name}\0`).update(fs.readFileSync(path.join(root, name))).update("\0");
  return hash.digest("hex");
}

/** What `assembly-line validate` (the installed package's own CLI) reports for `file` of the plugin folder `pluginDir`. */
function validateDiagnostics(pluginDir: string, file: string): CliDiagnostic[] {
  const bin = path.join(installedPackageDir(project), "dist/bin/assembly-line.cjs");
  let out: string;
  try {
    out = execFileSync(process.execPath, [bin, "validate", path.join(project, pluginDir), "--format", "json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    out = (error as { stdout: string }).stdout;
  }
  return (JSON.parse(out) as { diagnostics: CliDiagnostic[] }).diagnostics.filter((d) => d.file === file);
}

const versions = [
  { label: "TypeScript 6.0", tsserver: require.resolve("typescript/lib/tsserver.js"), version: (require("typescript/package.json") as { version: string }).version, major: "6.0.", grown: "grown-6", dup: "dup-6", cfg: "cfg-6" },
  { label: "TypeScript 5.9", tsserver: require.resolve("typescript-5.9/lib/tsserver.js"), version: (require("typescript-5.9/package.json") as { version: string }).version, major: "5.9.", grown: "grown-5", dup: "dup-5", cfg: "cfg-5" },
];

describe.each(versions)("tsserver plugin in $label", ({ tsserver, version, major, grown, dup, cfg }) => {
  let server: Server;
  let seq = 0;
  const request = async <T>(command: string, args: unknown): Promise<T> => {
    const response = await server.message({ seq: ++seq, type: "request", command, arguments: args });
    if (!response.success) throw new Error(`${command} failed: ${response.message}`);
    return response.body as T;
  };
  const abs = (relative: string) => path.join(project, relative);
  const open = (relative: string) => request("updateOpen", { openFiles: [{ file: abs(relative), projectRootPath: project }] });
  const diagnostics = (relative: string) => request<ProtocolDiagnostic[]>("semanticDiagnosticsSync", { file: abs(relative) });
  const ours = (list: ProtocolDiagnostic[]) => list.filter((d) => d.source === "assembly-line");
  const theirs = (list: ProtocolDiagnostic[]) => list.filter((d) => d.source !== "assembly-line");
  /** Replaces the first `from` in the open buffer (whose text is `text`) by `to`. */
  const replace = (relative: string, text: string, from: string, to: string) => {
    const start = text.indexOf(from);
    expect(start).toBeGreaterThanOrEqual(0);
    const at = (offset: number) => {
      const before = text.slice(0, offset).split("\n");
      return { line: before.length, offset: before.at(-1)!.length + 1 };
    };
    return request("updateOpen", { changedFiles: [{ fileName: abs(relative), textChanges: [{ start: at(start), end: at(start + from.length), newText: to }] }] });
  };

  beforeAll(() => {
    expect(version.startsWith(major)).toBe(true);
    server = launchServer(tsserver, ["--disableAutomaticTypingAcquisition", "--pluginProbeLocations", project], [], { ...process.env, ASSEMBLY_LINE_TS_PLUGIN_FAULT: FAULT_MARK });
  });
  afterAll(async () => {
    await server?.exitOrKill(5000);
  });

  it("reports compile's diagnostics for a bad inputSchema at the exact span, with the CLI's code and message", async () => {
    const file = "lf/plugins/demo/ai.assemblyline/index.ts";
    await open(file);
    const got = ours(await diagnostics(file));
    const expected = cliDiagnostics("lf", "plugins/demo/ai.assemblyline/index.ts");
    const schemaLine = BAD_SCHEMA_ENTRY.split("\n").findIndex((l) => l.includes("strng")) + 1;
    const strng = BAD_SCHEMA_ENTRY.split("\n")[schemaLine - 1]!.indexOf('"strng"') + 1;
    expect(expected.some((d) => d.line === schemaLine && d.column === strng)).toBe(true);
    // Same list, same order: code, message (first line of the text), start and end.
    expect(got.map((d) => ({ code: d.code, text: d.text.split("\n")[0], line: d.start.line, column: d.start.offset, endLine: d.end.line, endColumn: d.end.offset }))).toEqual(
      expected.map((d) => ({ code: TS_CODE_BASE + Number(d.code.slice(2)), text: `${d.code}: ${d.message}`, line: d.line, column: d.column, endLine: d.endLine ?? d.line, endColumn: d.endColumn ?? d.column })),
    );
    // The hint follows the message.
    for (const [i, d] of expected.entries()) if (d.hint) expect(got[i]!.text).toContain(d.hint);
  });

  it("clears the diagnostic when updateOpen fixes the schema", async () => {
    const file = "lf/plugins/demo/ai.assemblyline/index.ts";
    await replace(file, BAD_SCHEMA_ENTRY, '"strng"', '"string"');
    expect(ours(await diagnostics(file))).toEqual([]);
    await replace(file, GOOD_SCHEMA_ENTRY, '"string"', '"strng"');
    expect(ours(await diagnostics(file)).length).toBeGreaterThan(0);
  });

  it("shows the entry's diagnostic when the definition module renames its factory export", async () => {
    const entry = "lf/plugins/factory/ai.assemblyline/index.ts";
    const definition = "lf/plugins/factory/ai.assemblyline/echo.ts";
    await open(entry);
    await open(definition);
    expect(ours(await diagnostics(entry))).toEqual([]);
    await replace(definition, DEFINITION, "export const echo", "export const echoed");
    const after = ours(await diagnostics(entry));
    expect(after.map((d) => d.code)).toEqual([TS_CODE_BASE + 4009]);
    expect(after[0]!.text).toContain("factory 'echo' is not a named export");
    await replace(definition, DEFINITION.replace("export const echo", "export const echoed"), "export const echoed", "export const echo");
    expect(ours(await diagnostics(entry))).toEqual([]);
  });

  it("gives CRLF and BOM copies the same spans as the LF file and as the CLI", async () => {
    const spans: unknown[] = [];
    for (const root of ["lf", "crlf", "bom"]) {
      const file = `${root}/plugins/demo/ai.assemblyline/index.ts`;
      await open(file);
      const got = ours(await diagnostics(file));
      expect(got.length).toBeGreaterThan(0);
      spans.push(got.map((d) => [d.code, d.start, d.end, d.text]));
      const cli = cliDiagnostics(root, "plugins/demo/ai.assemblyline/index.ts");
      expect(got.map((d) => [d.start.line, d.start.offset, d.end.line, d.end.offset])).toEqual(cli.map((d) => [d.line, d.column, d.endLine ?? d.line, d.endColumn ?? d.column]));
    }
    expect(spans[1]).toEqual(spans[0]);
    expect(spans[2]).toEqual(spans[0]);
  });

  it("applies a did-you-mean quick fix through the protocol, and the file comes out clean", async () => {
    const file = "lf/plugins/typo/ai.assemblyline/index.ts";
    // The other TypeScript version's run saved the fixed file.
    fs.writeFileSync(abs(file), TYPO_ENTRY);
    await open(file);
    const unknown = ours(await diagnostics(file)).find((d) => d.code === TS_CODE_BASE + 4001);
    expect(unknown?.text).toContain("descripton");
    const supported = await request<string[]>("getSupportedCodeFixes", { file: abs(file) });
    expect(supported).toContain(String(TS_CODE_BASE + 4001));
    const fixes = await request<ProtocolCodeFix[]>("getCodeFixes", {
      file: abs(file),
      startLine: unknown!.start.line,
      startOffset: unknown!.start.offset,
      endLine: unknown!.end.line,
      endOffset: unknown!.end.offset,
      errorCodes: [unknown!.code],
    });
    const fix = fixes.find((f) => f.fixName === "assembly-line-did-you-mean");
    expect(fix?.description).toBe("Change 'descripton' to 'description'");
    await request("updateOpen", { changedFiles: fix!.changes.map((c) => ({ fileName: c.fileName, textChanges: [...c.textChanges].reverse() })) });
    expect(ours(await diagnostics(file))).toEqual([]);
    await request("updateOpen", { closedFiles: [abs(file)] });
    // The same edit on disk: compile agrees that the file is clean.
    const lines = TYPO_ENTRY.split("\n");
    for (const change of fix!.changes[0]!.textChanges) {
      const line = lines[change.start.line - 1]!;
      lines[change.start.line - 1] = line.slice(0, change.start.offset - 1) + change.newText + line.slice(change.end.offset - 1);
    }
    fs.writeFileSync(abs(file), lines.join("\n"));
    expect(cliDiagnostics("lf", "plugins/typo/ai.assemblyline/index.ts")).toEqual([]);
  });

  it("reports a misspelt key once where TypeScript reports it too (TS2561), in a typed entry and in defineTool (helper-75 K7)", async () => {
    for (const [file, text] of [
      ["lf/plugins/typed/ai.assemblyline/index.ts", TYPED_TYPO_ENTRY],
      ["lf/plugins/typed/ai.assemblyline/echo.ts", TYPED_TYPO_DEFINITION],
    ] as const) {
      await open(file);
      const all = await diagnostics(file);
      const line = text.split("\n").findIndex((l) => l.includes("descripton")) + 1;
      const onKey = all.filter((d) => d.start.line === line);
      expect(theirs(onKey).map((d) => d.code)).toEqual([2561]);
      expect(ours(onKey)).toEqual([]);
      // TypeScript has no fix for TS2561: ours is offered for it, so the rename is not lost (helper-78).
      expect(await request<string[]>("getSupportedCodeFixes", { file: abs(file) })).toContain("2561");
      const ts2561 = theirs(onKey)[0]!;
      const fixes = await request<ProtocolCodeFix[]>("getCodeFixes", {
        file: abs(file),
        startLine: ts2561.start.line,
        startOffset: ts2561.start.offset,
        endLine: ts2561.end.line,
        endOffset: ts2561.end.offset,
        errorCodes: [2561],
      });
      expect(fixes.filter((f) => f.fixName === "assembly-line-did-you-mean").map((f) => f.description)).toEqual(["Change 'descripton' to 'description'"]);
      // compile, which has no TypeScript's diagnostics, still reports it.
      expect(cliDiagnostics("lf", file.slice("lf/".length)).filter((d) => d.line === line).map((d) => d.code)).toEqual(["AL4001"]);
    }
  });

  it("leaves a file outside our scope exactly as TypeScript reports it (diagnostics and completions)", async () => {
    await open("src/ordinary.ts");
    await open("plain/ordinary.ts");
    const decorated = await diagnostics("src/ordinary.ts");
    expect(decorated.length).toBeGreaterThan(0);
    expect(decorated).toEqual(await diagnostics("plain/ordinary.ts"));
    // At the start of `name` in `return "hello " + name;`.
    const at = { line: 2, offset: 21 };
    const withPlugin = await request<{ entries: unknown[] }>("completionInfo", { file: abs("src/ordinary.ts"), ...at });
    const without = await request<{ entries: unknown[] }>("completionInfo", { file: abs("plain/ordinary.ts"), ...at });
    expect(withPlugin.entries.length).toBeGreaterThan(0);
    expect(withPlugin.entries).toEqual(without.entries);
  });

  it("keeps TypeScript's own diagnostics intact when the analyzer throws (test hook)", async () => {
    const faulty = `lf/plugins/${FAULT_MARK}/ai.assemblyline/index.ts`;
    const twin = "lf/plugins/twin/ai.assemblyline/index.ts";
    await open(faulty);
    await open(twin);
    const broken = await diagnostics(faulty);
    const working = await diagnostics(twin);
    expect(ours(working).length).toBeGreaterThan(0);
    expect(theirs(working).length).toBeGreaterThan(0);
    expect(ours(broken)).toEqual([]);
    expect(broken).toEqual(theirs(working));
  });

  it("answers first from the opened plugin alone, then reads the other entries and asks the editor to refresh: the collision shows as compile reports it (helper-106)", async () => {
    const events: string[] = [];
    server.on("event", (event: { event: string }) => events.push(event.event));
    // One server per version, so each has an agent no request has read yet.
    // (`--check`: a plugins.lock written now would make tsserver's watchers refresh the projects too.)
    const [file] = ["first", "second"].map((name) => `${dup}/plugins/${name}/ai.assemblyline/index.ts`).filter((f) => cliDiagnostics(dup, f.slice(dup.length + 1), true).some((d) => d.code === "AL4012"));
    expect(file).toBeDefined();
    const expected = cliDiagnostics(dup, file!.slice(dup.length + 1), true);
    await open(file!);
    expect(ours(await diagnostics(file!)).map((d) => d.code)).not.toContain(TS_CODE_BASE + 4012);
    // The other entry is read once tsserver is idle; the plugin then asks the editor to ask again.
    while (!events.includes("projectsUpdatedInBackground")) await new Promise((resolve) => setTimeout(resolve, 50));
    const got = ours(await diagnostics(file!));
    expect(got.map((d) => [d.code, d.text.split("\n")[0], d.start.line, d.start.offset])).toEqual(expected.map((d) => [TS_CODE_BASE + Number(d.code.slice(2)), `${d.code}: ${d.message}`, d.line, d.column]));
  }, 60_000);

  it("picks up a plugin folder created after the server started, through its directory watcher", async () => {
    // The engine has met the agent `lf` (and so watches it) through its entry.
    await open("lf/plugins/demo/ai.assemblyline/index.ts");
    await diagnostics("lf/plugins/demo/ai.assemblyline/index.ts");
    const limits = `lf/plugins/${grown}/shared/limits.ts`;
    await open(limits);
    // Not in a plugin folder yet: TypeScript's own answer (nothing), and the engine remembers that.
    expect(ours(await diagnostics(limits))).toEqual([]);
    fs.mkdirSync(abs(`lf/plugins/${grown}/ai.assemblyline`), { recursive: true });
    fs.writeFileSync(abs(`lf/plugins/${grown}/plugin.json`), JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: grown, version: "1.0.0", description: "Grown while tsserver ran." }));
    fs.writeFileSync(abs(`lf/plugins/${grown}/ai.assemblyline/index.ts`), GROWN_ENTRY);
    const expected = validateDiagnostics(`lf/plugins/${grown}`, "shared/limits.ts");
    expect(expected.length).toBeGreaterThan(0);
    // The watcher's event arrives asynchronously: ask until it has (the test's timeout bounds the wait).
    let got = ours(await diagnostics(limits));
    while (got.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      got = ours(await diagnostics(limits));
    }
    expect(got.map((d) => [d.code, d.text.split("\n")[0], d.start.line, d.start.offset])).toEqual(expected.map((d) => [TS_CODE_BASE + Number(d.code.slice(2)), `${d.code}: ${d.message}`, d.line, d.column]));
  }, 60_000);
  it("applies the project configuration as compile does (a code off, a warning raised to an error, a target), and follows an edit of it on disk", async () => {
    const files = [CONFIG_AGENT_FILES.entry, CONFIG_AGENT_FILES.definition];
    const category = { error: "error", warning: "warning", info: "message" } as const;
    const fromCli = (d: CliDiagnostic & { severity: "error" | "warning" | "info" }) => [TS_CODE_BASE + Number(d.code.slice(2)), category[d.severity], d.line, d.column, d.endLine ?? d.line, d.endColumn ?? d.column];
    const fromTs = (d: ProtocolDiagnostic) => [d.code, d.category, d.start.line, d.start.offset, d.end.line, d.end.offset];
    const expectedNow = () => Object.fromEntries(files.map((file) => [file, cliDiagnostics(cfg, file, true).map((d) => fromCli(d as CliDiagnostic & { severity: "error" | "warning" | "info" }))]));
    /** Asks until every file shows `expected` (the configuration loads after the first answers; the test's timeout bounds the wait). */
    const settled = async (expected: Record<string, unknown[]>) => {
      for (;;) {
        const got = Object.fromEntries(await Promise.all(files.map(async (file) => [file, ours(await diagnostics(`${cfg}/${file}`)).map(fromTs)] as const)));
        if (JSON.stringify(got) === JSON.stringify(expected)) return got;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const expected = expectedNow();
    // What the configuration does here: AL4032 off in both files, AL4039 an error, gemini's AL4705 (the budget's AL4720 is at agent.md, which tsserver does not show).
    expect(Object.values(expected).flat().map((d) => `${(d as number[])[0]} ${(d as string[])[1]}`)).toEqual([`${TS_CODE_BASE + 4705} message`, `${TS_CODE_BASE + 4039} error`]);
    for (const file of files) await open(`${cfg}/${file}`);
    await settled(expected);

    writeConfig(abs(cfg), EDITED_CONFIG);
    const edited = expectedNow();
    expect(Object.values(edited).flat().map((d) => (d as number[])[0]).sort()).toEqual([TS_CODE_BASE + 4032, TS_CODE_BASE + 4032, TS_CODE_BASE + 4707, TS_CODE_BASE + 4708]);
    await settled(edited);
  }, 60_000);
});

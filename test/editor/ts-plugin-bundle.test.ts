/**
 * The tsserver plugin's bundle (`dist/editor/ts-plugin.cjs`, scripts/build-ts-plugin.mjs) finds
 * what its modules find beside themselves in `dist/`: its first analysis parses with the CLI
 * bundle's minified TypeScript (`dist/cli-bundle/typescript.cjs`), not ts-morph's 9 MB copy, and
 * takes the precompiled ajv validators (`dist/contract/precompiled/`) instead of compiling them
 * (helper-106: both were missed, about 0.35 s of CPU of tsserver's first answer). The bundle runs
 * in a child process (a fresh module cache), decorating a stand-in for tsserver's language
 * service; the real tsserver runs in ts-plugin.test.ts.
 */
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/packed-install.js";
import { writeTree } from "../helpers/temp-tree.js";

const ENTRY = `export default {
  tools: {
    echo: {
      definition: "./ai.assemblyline/echo.ts",
      description: "Echoes.",
      inputSchema: { type: "object", properties: { message: { type: "strng" } } },
    },
  },
};
`;

/** Runs in the child: decorates a stand-in language service with the bundle and asks for one file's diagnostics. */
const CHILD = `
const fs = require("node:fs");
const read = [];
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) { read.push(String(file)); return readFileSync.call(this, file, ...rest); };
const ts = require(process.argv[1] + "/node_modules/typescript");
const createPluginModule = require(process.argv[1] + "/ts-plugin");
const service = { getSemanticDiagnostics: () => [], getProgram: () => undefined, getCodeFixesAtPosition: () => [], getSupportedCodeFixes: () => [] };
const logged = [];
const info = {
  languageService: service,
  project: { projectService: { logger: { info: (text) => logged.push(text) }, getScriptInfo: () => undefined }, refreshDiagnostics() {}, isClosed: () => false },
  serverHost: { watchDirectory: () => ({ close() {} }), setTimeout, clearTimeout },
};
const decorated = createPluginModule({ typescript: ts }).create(info);
decorated.getSemanticDiagnostics(process.argv[2]);
process.stdout.write(JSON.stringify({ modules: Object.keys(require.cache), read, logged }));
`;

describe("the tsserver plugin's bundle", () => {
  it("parses with the CLI bundle's minified TypeScript and loads the precompiled validators", () => {
    const root = writeTree({
      "agent.md": "---\nname: bundle\ncapabilities:\n  demo: {}\n---\n\nFixture.\n",
      "plugins/demo/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "demo", version: "1.0.0", description: "Fixture." }),
      "plugins/demo/ai.assemblyline/index.ts": ENTRY,
    });
    const entry = path.join(root, "plugins/demo/ai.assemblyline/index.ts");
    const out = execFileSync(process.execPath, ["-e", CHILD, REPO_ROOT, entry], { encoding: "utf8", env: { ...process.env, ASSEMBLY_LINE_CODE_CACHE: "0" } });
    const { modules, read, logged } = JSON.parse(out) as { modules: string[]; read: string[]; logged: string[] };
    // It ran without failing (a failure is logged with "failed").
    expect(logged.filter((line) => line.includes("failed"))).toEqual([]);
    expect(logged).toContain("[assembly-line] tsserver plugin enabled for this project");
    const dist = path.join(REPO_ROOT, "dist");
    expect(modules).toContain(path.join(dist, "cli-bundle/typescript.cjs"));
    expect(modules.filter((file) => file.endsWith(`${path.sep}typescript.js`) && file.includes("@ts-morph"))).toEqual([]);
    expect(read.filter((file) => file.startsWith(path.join(dist, "contract/precompiled") + path.sep)).length).toBeGreaterThan(0);
  });
});

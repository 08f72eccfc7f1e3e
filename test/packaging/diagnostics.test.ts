/**
 * Bad input never crashes packaging: each problem becomes an AL7xxx diagnostic with the file,
 * line and column esbuild reports (converted to 1-based UTF-16 columns).
 */
import * as path from "node:path";
import { describe, expect, test } from "vitest";
import * as esbuild from "esbuild";
import { bundleTools, type BuildFunction } from "../../packaging/index.js";
import { writeFiles } from "../helpers/temp-tree.js";
import { copyFixture, tool } from "./helpers.js";

describe("esbuild errors become diagnostics", () => {
  const root = copyFixture("broken-agent");
  const definition = (name: string): string => path.join(root, "plugins/broken/ai.assemblyline", name);
  const tools = [
    "missing-package",
    "missing-file",
    "unknown-asset",
    "bad-attribute",
    "missing-text",
    "syntax-error",
  ].map((name) => tool(root, "broken", name, `ai.assemblyline/${name}.ts`));

  test("every broken definition is reported in one build; nothing is packaged", async () => {
    const result = await bundleTools({ root, tools });
    expect(result.bundles.size).toBe(0);
    expect(result.toolBundles.size).toBe(0);
    const summary = result.diagnostics.map((d) => ({
      code: d.code,
      file: path.relative(root, d.file).split(path.sep).join("/"),
      line: d.line,
      column: d.column,
      severity: d.severity,
    }));
    expect(summary).toEqual([
      { code: "AL7003", file: "plugins/broken/ai.assemblyline/bad-attribute.ts", line: 2, column: 43, severity: "error" },
      { code: "AL7001", file: "plugins/broken/ai.assemblyline/missing-file.ts", line: 3, column: 26, severity: "error" },
      { code: "AL7001", file: "plugins/broken/ai.assemblyline/missing-package.ts", line: 2, column: 21, severity: "error" },
      { code: "AL7001", file: "plugins/broken/ai.assemblyline/missing-text.ts", line: 2, column: 20, severity: "error" },
      { code: "AL7004", file: "plugins/broken/ai.assemblyline/syntax-error.ts", line: 7, column: 23, severity: "error" },
      { code: "AL7002", file: "plugins/broken/ai.assemblyline/unknown-asset.ts", line: 2, column: 17, severity: "error" },
    ]);
  });

  test("messages name the import and say what to do", async () => {
    const result = await bundleTools({ root, tools });
    const byFile = new Map(result.diagnostics.map((d) => [path.basename(d.file), d]));
    expect(byFile.get("missing-package.ts")).toMatchObject({
      message: 'Cannot resolve import "left-pad-that-is-not-installed": a tool bundle must contain every module it imports',
      hint: expect.stringContaining("node_modules"),
      endLine: 2,
      endColumn: 53,
    });
    expect(byFile.get("missing-file.ts")?.message).toContain('"./helpers/not-there.js"');
    expect(byFile.get("unknown-asset.ts")).toMatchObject({
      message: 'Cannot bundle "plugins/broken/ai.assemblyline/data.dat": no asset rule covers files ending in ".dat"',
      hint: 'Import it with { type: "text" } to get a string or with { type: "bytes" } to get a Uint8Array.',
    });
    expect(byFile.get("bad-attribute.ts")?.message).toBe('Import attribute type "css" is not supported in a tool bundle');
    expect(byFile.get("missing-text.ts")?.message).toContain('"./gone.js"');
    expect(byFile.get("syntax-error.ts")?.message).toMatch(/^esbuild cannot bundle this tool definition: Expected "}" but found "]"/);
    for (const d of result.diagnostics) expect(d.message).not.toContain(root);
  });

  test("columns count UTF-16 code units, not UTF-8 bytes", async () => {
    const agent = copyFixture("broken-agent");
    writeFiles(agent, {
      "plugins/broken/ai.assemblyline/accents.ts": 'const label = "héllo ✓"; import x from "./nope.js";\nexport default { label, x };\n',
    });
    const result = await bundleTools({ root: agent, tools: [tool(agent, "broken", "accents", "ai.assemblyline/accents.ts")] });
    expect(result.diagnostics).toHaveLength(1);
    // In UTF-8 bytes the string literal "./nope.js" starts at byte 42; in UTF-16 units at column 40.
    expect(result.diagnostics[0]).toMatchObject({ code: "AL7001", line: 1, column: 40, endColumn: 51 });
  });
});

test("a missing definition module is AL7008 at that module", async () => {
  const root = copyFixture("broken-agent");
  const missing = tool(root, "broken", "ghost", "ai.assemblyline/ghost.ts");
  const result = await bundleTools({ root, tools: [missing] });
  expect(result.diagnostics).toEqual([
    expect.objectContaining({
      code: "AL7008",
      file: missing.definitionFile,
      line: 1,
      column: 1,
      message: 'Definition module "ai.assemblyline/ghost.ts" of tool "ghost" (capability "broken", surface ".") does not exist',
    }),
  ]);
});

test("esbuild warnings are AL7005 warnings and the bundle is still built", async () => {
  const root = copyFixture("warning-agent");
  const result = await bundleTools({ root, tools: [tool(root, "warns", "dup", "ai.assemblyline/duplicate-key.ts")] });
  expect(result.bundles.size).toBe(1);
  expect(result.diagnostics).toEqual([
    expect.objectContaining({
      code: "AL7005",
      severity: "warning",
      file: path.join(root, "plugins/warns/ai.assemblyline/duplicate-key.ts"),
      line: 7,
      message: 'esbuild: Duplicate key "value" in object literal',
    }),
  ]);
});

test("a bundler that fails without a location is AL7009 at the agent root, not a crash", async () => {
  const root = copyFixture("warning-agent");
  const build: BuildFunction = async () => {
    throw new Error("The service was stopped");
  };
  const result = await bundleTools({ root, tools: [tool(root, "warns", "dup", "ai.assemblyline/duplicate-key.ts")] }, { build });
  expect(result.diagnostics).toEqual([
    expect.objectContaining({ code: "AL7009", file: root, line: 1, column: 1, message: expect.stringContaining("The service was stopped") }),
  ]);
  expect(result.bundles.size).toBe(0);
});

test("a build that returns without an expected output file is AL7009 for that bundle", async () => {
  const root = copyFixture("warning-agent");
  const build: BuildFunction = async (options) => ({ ...(await esbuild.build(options)), outputFiles: [] });
  const result = await bundleTools({ root, tools: [tool(root, "warns", "dup", "ai.assemblyline/duplicate-key.ts")] }, { build });
  expect(result.diagnostics.map((d) => d.code)).toEqual(["AL7009", "AL7005"]);
  expect(result.toolBundles.size).toBe(0);
});

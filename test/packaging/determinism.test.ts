/**
 * Deterministic bundle bytes (DESIGN §5–6): the lock records each bundle's integrity, so the
 * same agent must give the same bytes on every run, in every directory, and in a CRLF checkout.
 */
import * as path from "node:path";
import { expect, test } from "vitest";
import { bundleTools, type PackagingResult, type PackagingTool } from "../../packaging/index.js";
import { convertToCrlf } from "../helpers/copy-agent.js";
import { repoRoot, tempDir, writeFiles } from "../helpers/temp-tree.js";
import { copyFixture, tool } from "./helpers.js";

function toolsOf(root: string): PackagingTool[] {
  return [
    tool(root, "assets", "kinds", "ai.assemblyline/kinds.ts"),
    tool(root, "assets", "echo", "ai.assemblyline/echo.ts"),
    tool(root, "assets", "echo", "ai.assemblyline/echo.ts", { surfaceId: "subagents/helper" }),
    tool(root, "assets", "lazy", "ai.assemblyline/lazy-core.ts"),
  ];
}

async function packageFixture(root: string): Promise<PackagingResult<Uint8Array>> {
  const result = await bundleTools({ root, tools: toolsOf(root) });
  expect(result.diagnostics).toEqual([]);
  expect(result.bundles.size).toBe(4);
  return result;
}

/** Bundles as comparable plain data: path → base64 of the bytes. */
function snapshot(result: PackagingResult<Uint8Array>): Record<string, string> {
  return Object.fromEntries([...result.bundles].map(([file, bytes]) => [file, Buffer.from(bytes).toString("base64")]));
}

test("the same input twice gives identical bytes and integrities", async () => {
  const root = copyFixture("assets-agent");
  const first = await packageFixture(root);
  const second = await packageFixture(root);
  expect(snapshot(second)).toEqual(snapshot(first));
  expect([...second.toolBundles]).toEqual([...first.toolBundles]);
});

test("the same agent in another directory gives identical bytes, with no absolute path inside", async () => {
  const near = copyFixture("assets-agent", tempDir());
  const far = copyFixture("assets-agent", tempDir(), "deeper", "and deeper", "ünïcode");
  const a = await packageFixture(near);
  const b = await packageFixture(far);
  expect(snapshot(b)).toEqual(snapshot(a));
  for (const [root, result] of [[near, a], [far, b]] as const) {
    for (const bytes of result.bundles.values()) {
      const text = Buffer.from(bytes).toString("utf8");
      expect(text).not.toContain(root);
      expect(text).not.toContain(path.dirname(root));
      expect(text).not.toContain(repoRoot);
      expect(text).not.toContain("runtime-min/authoring");
    }
  }
});

/**
 * Text-looking files the fixture imports as exact bytes: the SVG (a data URL) and notes.txt
 * (also imported `with { type: "bytes" }`). Their bytes are the value, so a project keeps them
 * out of Git's line-ending conversion (`.gitattributes` `-text`), and so does the CRLF checkout.
 */
const EXACT_TEXT_LOOKING = ["plugins/assets/ai.assemblyline/assets/icon.svg", "plugins/assets/ai.assemblyline/assets/notes.txt"];

test("a CRLF checkout gives the same bytes as an LF checkout", async () => {
  const lf = copyFixture("assets-agent");
  const crlf = copyFixture("assets-agent");
  // Definitions, text assets, the text-imported browser.js and the JSON all change.
  expect(convertToCrlf(crlf, { keep: EXACT_TEXT_LOOKING })).toBeGreaterThanOrEqual(16);
  const a = await packageFixture(lf);
  const b = await packageFixture(crlf);
  expect(snapshot(b)).toEqual(snapshot(a));
});

test("a CRLF checkout of a file imported as exact bytes changes the bundle: the bytes are the value", async () => {
  const lf = copyFixture("assets-agent");
  const crlf = copyFixture("assets-agent");
  convertToCrlf(crlf, { keep: EXACT_TEXT_LOOKING.filter((file) => !file.endsWith("icon.svg")) });
  const a = snapshot(await packageFixture(lf));
  const b = snapshot(await packageFixture(crlf));
  const kinds = "bundles/root/assets/ai.assemblyline/kinds.mjs";
  expect(b[kinds]).not.toBe(a[kinds]);
  expect({ ...b, [kinds]: "" }).toEqual({ ...a, [kinds]: "" });
});

test("bundle bytes do not depend on the order tools are listed in", async () => {
  const root = copyFixture("assets-agent");
  const forward = await bundleTools({ root, tools: toolsOf(root) });
  const backward = await bundleTools({ root, tools: toolsOf(root).reverse() });
  expect(snapshot(backward)).toEqual(snapshot(forward));
  expect([...backward.toolBundles]).toEqual([...forward.toolBundles]);
});

test("a tsconfig.json above the agent root does not change the bundle", async () => {
  const definition = {
    "plugins/assets/ai.assemblyline/fields.ts":
      'import { defineTool } from "@assemblyline-agents/core";\nclass Counter { count = 1; }\nexport default defineTool({ description: "d", inputSchema: { type: "object" }, execute: () => ({ count: new Counter().count }) });\n',
  };
  const plainParent = tempDir();
  const configuredParent = tempDir();
  writeFiles(configuredParent, {
    "tsconfig.json": JSON.stringify({ compilerOptions: { useDefineForClassFields: false, paths: { "@assemblyline-agents/core": ["./nowhere.ts"] } } }),
  });
  const results: string[] = [];
  for (const parent of [plainParent, configuredParent]) {
    const root = copyFixture("assets-agent", parent);
    writeFiles(root, definition);
    const result = await bundleTools({ root, tools: [tool(root, "assets", "fields", "ai.assemblyline/fields.ts")] });
    expect(result.diagnostics).toEqual([]);
    results.push(Buffer.from([...result.bundles.values()][0]!).toString("utf8"));
  }
  expect(results[1]).toBe(results[0]);
  expect(results[0]).toContain("count = 1;");
});

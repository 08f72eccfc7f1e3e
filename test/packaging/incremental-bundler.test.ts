/**
 * The incremental esbuild bundler of `compile --watch` (issue 10 item 4): one esbuild context
 * serves every rebuild while the bundle set stays the same, a rebuild sees changed files, and
 * its bytes equal a one-off build's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { createIncrementalBundler } from "../../packaging/incremental-bundler.js";
import { writeTree } from "../helpers/temp-tree.js";

const schema = '{ type: "object", properties: { message: { type: "string" } } }';
const bundler = createIncrementalBundler();
afterAll(() => bundler.dispose());

function agent(): string {
  return writeTree({
    "agent.md": "---\nname: inc\ncapabilities:\n  tools: {}\n---\n",
    "plugins/tools/plugin.json": JSON.stringify({ $schema: "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json", name: "tools", version: "1.0.0", description: "Tools." }),
    "plugins/tools/ai.assemblyline/index.ts": `export default { tools: {\n  a: { definition: "./ai.assemblyline/a.ts", description: "A.", inputSchema: ${schema} },\n  b: { definition: "./ai.assemblyline/b.ts", description: "B.", inputSchema: ${schema} },\n} };\n`,
    "plugins/tools/ai.assemblyline/a.ts": 'export default { async execute() { return "a1"; } };\n',
    "plugins/tools/ai.assemblyline/b.ts": 'export default { async execute() { return "b1"; } };\n',
  });
}

describe("createIncrementalBundler", () => {
  it("reuses one context, sees edits, and gives the bytes of a one-off build", async () => {
    const root = agent();
    const first = await compileAgent({ root, bundler: bundler.build, cache: false });
    expect(first.ok, JSON.stringify(first.diagnostics)).toBe(true);
    fs.writeFileSync(path.join(root, "plugins/tools/ai.assemblyline/a.ts"), 'export default { async execute() { return "a2"; } };\n');
    const second = await compileAgent({ root, bundler: bundler.build, cache: false });
    expect(bundler.contexts()).toBe(1);
    const a = "bundles/root/tools/ai.assemblyline/a.mjs";
    const b = "bundles/root/tools/ai.assemblyline/b.mjs";
    expect(second.bundles!.get(a)).not.toBe(first.bundles!.get(a));
    expect(second.bundles!.get(b)).toBe(first.bundles!.get(b));
    expect(fs.readFileSync(path.join(root, ".assemblyline/build", a), "utf8")).toContain('"a2"');
    const oneOff = await compileAgent({ root, cache: false });
    expect(oneOff.bundles).toEqual(second.bundles);
    // A new bundle set (a tool removed) replaces the context.
    const entry = path.join(root, "plugins/tools/ai.assemblyline/index.ts");
    fs.writeFileSync(entry, fs.readFileSync(entry, "utf8").replace(/\n  b: .*\n/, "\n"));
    const third = await compileAgent({ root, bundler: bundler.build, cache: false });
    expect([...third.bundles!.keys()]).toEqual([a]);
    expect(bundler.contexts()).toBe(2);
  });
});

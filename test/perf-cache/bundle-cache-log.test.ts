/**
 * `bundles.bin` as a sealed log (issue 14 item 4, sixth round: `packaging/bundle-cache.ts`): a
 * compile that rebuilt one bundle appends it to the file it read instead of writing every bundle
 * again; the next compile reads the bundles the last one used (and reuses them), a torn append
 * reads as a miss (a cold bundle step, the same artifact), and the file is then written whole.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { readSealedLog } from "../../common/sealed-file.js";
import { BUNDLE_CACHE_FILE, BUNDLE_CACHE_MAGIC, BundleCache } from "../../packaging/bundle-cache.js";
import { outputsOf, pluginJson } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

const NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
const definition = (text: string): string =>
  `import { defineTool } from "@assemblyline-agents/core";\n\nexport default defineTool({\n  async execute() {\n    return "${text}";\n  }\n});\n`;

function writeAgent(root: string): void {
  const files: Record<string, string> = { "agent.md": `---\nname: log\ncapabilities:\n${NAMES.map((n) => `  ${n}: {}\n`).join("")}---\n\nAn agent.\n` };
  for (const name of NAMES) {
    files[`plugins/${name}/plugin.json`] = pluginJson(name);
    files[`plugins/${name}/ai.assemblyline/index.ts`] = `export default { tools: { ${name}: { definition: "./ai.assemblyline/${name}.ts", description: "The ${name} tool.", inputSchema: { type: "object" } } } };\n`;
    files[`plugins/${name}/ai.assemblyline/${name}.ts`] = definition(name);
  }
  writeFiles(root, files);
}

describe("bundles.bin as a sealed log", () => {
  it("appends the rebuilt bundle, reads back every bundle, and reads a torn append as a miss", async () => {
    const root = path.join(tempDir("al-bundle-log-"), "agent");
    writeAgent(root);
    const file = path.join(root, BUNDLE_CACHE_FILE);
    const segments = (): number => readSealedLog(file, BUNDLE_CACHE_MAGIC)?.segments.length ?? 0;
    expect((await compileAgent({ root })).ok).toBe(true);
    expect(segments()).toBe(1);
    const inode = fs.statSync(file).ino;
    const whole = fs.statSync(file).size;

    fs.writeFileSync(path.join(root, "plugins/alpha/ai.assemblyline/alpha.ts"), definition("alpha 2"));
    const changed = await compileAgent({ root });
    expect(changed.ok).toBe(true);
    expect([segments(), fs.statSync(file).ino]).toEqual([2, inode]);
    expect(fs.statSync(file).size - whole).toBeLessThan(whole / 2);
    expect(BundleCache.load(root).size).toBe(NAMES.length);
    const outputs = outputsOf(root);

    // Torn: a miss (every bundle built again), the same artifact, and the cache written whole.
    fs.truncateSync(file, fs.statSync(file).size - 5);
    expect(BundleCache.load(root).size).toBe(0);
    fs.rmSync(path.join(root, ".assemblyline", "build"), { recursive: true });
    const again = await compileAgent({ root });
    expect(again.ok).toBe(true);
    expect(outputsOf(root)).toEqual(outputs);
    expect(segments()).toBe(1);
    expect(BundleCache.load(root).size).toBe(NAMES.length);
  });
});

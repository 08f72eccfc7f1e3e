/**
 * Each `agent.md`'s parsed front matter is kept in the analysis cache
 * (`AnalysisCache.frontMatter`, issue 14 item 4, tenth round): a compile after a definition
 * changed does not parse the unchanged `agent.md` again. What is kept is used only for the same
 * path and exactly the same text, and gives what a parse gives: every compile reports and writes
 * what a compile without the cache does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { compileAgent, type CompileResult } from "../../build/compile.js";
import { parseFrontMatter, type FrontMatter } from "../../compiler/agent/front-matter.js";
import { AnalysisCache } from "../../compiler/static-analysis/analysis-cache.js";
import { outputsOf, pluginJson, TWO_TOOL_ENTRY } from "../helpers/agent-outputs.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

/** A front matter with a field the toolchain does not read and a nested mapping. */
const AGENT_MD = "---\nname: kept\ncolour: blue\ncapabilities:\n  alpha: {}\n  beta:\n    config: { mode: fast }\n---\n\nAn agent whose front matter is kept.\n";

/** Everything a compile's caller sees of the front matter: the located value, body offset, diagnostics, line map. */
function plain(frontMatter: FrontMatter): unknown {
  return {
    value: frontMatter.located?.value,
    locations: frontMatter.located ? [...(frontMatter.located.locations as ReadonlyMap<string, unknown>)] : undefined,
    bodyOffset: frontMatter.bodyOffset,
    diagnostics: frontMatter.diagnostics,
    lineMap: frontMatter.lineMap,
  };
}

describe("the analysis cache keeps agent.md's parsed front matter", () => {
  it("gives back what the parse gave, for the same path and exactly the same text only", () => {
    const root = tempDir("al-front-matter-");
    const file = path.join(root, "agent.md");
    let parses = 0;
    const parse = (at: string, text: string) => () => (parses++, parseFrontMatter(at, text));

    const first = AnalysisCache.load(root);
    expect(plain(first.frontMatter(file, AGENT_MD, parse(file, AGENT_MD)))).toEqual(plain(parseFrontMatter(file, AGENT_MD)));
    expect(parses).toBe(1);
    expect(first.save()).toBe(true);
    // A front matter is no module's analysis: a cache holding only one still makes a cold compile.
    expect(AnalysisCache.load(root).size).toEqual({ analyses: 0, verdicts: 0, plugins: 0 });

    // Kept: not parsed again, and equal to a parse (line map included).
    const second = AnalysisCache.load(root);
    const kept = second.frontMatter(file, AGENT_MD, parse(file, AGENT_MD));
    expect(parses).toBe(1);
    expect(plain(kept)).toEqual(plain(parseFrontMatter(file, AGENT_MD)));
    expect(kept.located?.value).toEqual({ name: "kept", colour: "blue", capabilities: { alpha: {}, beta: { config: { mode: "fast" } } } });

    // One character changed, the length kept: parsed again.
    const edited = AGENT_MD.replace("name: kept", "name: kebt");
    expect(edited.length).toBe(AGENT_MD.length);
    expect(plain(second.frontMatter(file, edited, parse(file, edited)))).toEqual(plain(parseFrontMatter(file, edited)));
    expect(parses).toBe(2);

    // Another path with the same text (the diagnostics name the file): parsed again.
    const other = path.join(root, "subagents", "helper", "agent.md");
    expect(plain(second.frontMatter(other, AGENT_MD, parse(other, AGENT_MD)))).toEqual(plain(parseFrontMatter(other, AGENT_MD)));
    expect(parses).toBe(3);

    // A front matter the parser rejects is kept with its diagnostic.
    const broken = AGENT_MD.replace("{ mode: fast }", "{ mode: fast");
    second.frontMatter(file, broken, parse(file, broken));
    expect(second.save()).toBe(true);
    const third = AnalysisCache.load(root);
    const keptBroken = third.frontMatter(file, broken, parse(file, broken));
    expect(parses).toBe(4);
    expect(keptBroken.diagnostics.map((d) => d.code)).toEqual(["AL1006"]);
    expect(plain(keptBroken)).toEqual(plain(parseFrontMatter(file, broken)));
  });

  it("keeps only what a compile used: a front matter not asked for is dropped on save", () => {
    const root = tempDir("al-front-matter-");
    const file = path.join(root, "agent.md");
    let parses = 0;
    const parse = () => (parses++, parseFrontMatter(file, AGENT_MD));
    const first = AnalysisCache.load(root);
    first.frontMatter(file, AGENT_MD, parse);
    first.save();
    // A compile that did not ask (e.g. the file is gone) saves without it ...
    const second = AnalysisCache.load(root);
    expect(second.save()).toBe(true);
    // ... so the next one parses.
    AnalysisCache.load(root).frontMatter(file, AGENT_MD, parse);
    expect(parses).toBe(2);
  });

  it("every compile, before and after agent.md changes, reports and writes what a compile without the cache does", async () => {
    const root = path.join(tempDir("al-front-matter-compile-"), "agent");
    const plugin = (name: string): Record<string, string> => ({
      [`plugins/${name}/plugin.json`]: pluginJson(name),
      [`plugins/${name}/ai.assemblyline/index.ts`]:
        `export default { configSchema: { type: "object", properties: { mode: { type: "string" } } }, tools: { ${name}_wave: { definition: "./ai.assemblyline/wave.ts", description: "Waves.", inputSchema: { type: "object" } } } };\n`,
      [`plugins/${name}/ai.assemblyline/wave.ts`]: `export default { async execute() { return "${name}"; } };\n`,
    });
    writeFiles(root, {
      "agent.md": AGENT_MD,
      "plugins/alpha/plugin.json": pluginJson("alpha"),
      "plugins/alpha/ai.assemblyline/index.ts": TWO_TOOL_ENTRY,
      "plugins/alpha/ai.assemblyline/greet.ts": "export default { async execute() { return 'hi'; } };\n",
      "plugins/alpha/ai.assemblyline/count.ts": "export default { async execute() { return 1; } };\n",
      ...plugin("beta"),
      ...plugin("gamma"),
    });
    const outcome = (result: CompileResult): unknown => {
      expect(result.ok, JSON.stringify(result.diagnostics)).toBe(true);
      return { diagnostics: result.diagnostics, outputs: outputsOf(root) };
    };
    /** A compile with the cache, then one without (which neither reads nor writes it): the same outcome. */
    const compileBoth = async (): Promise<unknown> => {
      const cached = outcome(await compileAgent({ root }));
      expect(outcome(await compileAgent({ root, cache: false }))).toEqual(cached);
      return cached;
    };
    const agentMd = path.join(root, "agent.md");
    const first = await compileBoth();
    // The kept front matter (nothing changed).
    expect(await compileBoth()).toEqual(first);
    // The same length, other capabilities: gamma instead of beta, its config moved.
    const swapped = AGENT_MD.replace("beta:", "gamma:").replace("mode: fast", "mode: slow").replace("alpha: {}", "alpha:  {}");
    expect(swapped.length).toBe(AGENT_MD.length + 2);
    fs.writeFileSync(agentMd, swapped);
    const afterSwap = (await compileBoth()) as { outputs: Record<string, string> };
    expect(Buffer.from(afterSwap.outputs["plugins.lock"]!, "base64").toString("utf8")).toContain("gamma");
    expect(Buffer.from(afterSwap.outputs["plugins.lock"]!, "base64").toString("utf8")).not.toContain('"beta');
    // A misspelt field (an error, reported where the kept front matter locates it), then fixed.
    fs.writeFileSync(agentMd, swapped.replace("colour: blue", "nam: blue"));
    const misspelt = await compileAgent({ root });
    expect(misspelt.diagnostics.map((d) => d.code)).toContain("AL1027");
    expect(JSON.parse(JSON.stringify((await compileAgent({ root })).diagnostics))).toEqual(JSON.parse(JSON.stringify(misspelt.diagnostics)));
    expect((await compileAgent({ root, cache: false })).diagnostics).toEqual(misspelt.diagnostics);
    fs.writeFileSync(agentMd, swapped.replace("colour: blue", "description: Waves back."));
    const fixed = (await compileBoth()) as { diagnostics: readonly { code: string }[] };
    expect(fixed.diagnostics.map((d) => d.code)).not.toContain("AL1027");
  });
});

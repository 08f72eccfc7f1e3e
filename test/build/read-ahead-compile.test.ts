/**
 * `assembly-line compile` reads the plugin folders ahead on another thread (`common/read-ahead.ts`,
 * asked for by `analyzeAgent` through the CLI's disk host; docs/performance.md, "Thirteenth
 * round"): a cold compile asks for every plugin folder, in the order it reads them, and writes
 * byte for byte what a compile without the read-ahead writes (lock, report, compile record's
 * inputs); a compile that will reuse stored plugins asks for none of their folders.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const asked = vi.hoisted(() => ({ folders: [] as string[][] }));
vi.mock("../../common/read-ahead.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../common/read-ahead.js")>();
  return {
    ...original,
    startReadAhead: (...args: Parameters<typeof original.startReadAhead>) => {
      asked.folders.push([...args[0]]);
      return original.startReadAhead(...args);
    },
  };
});

import { runCompile } from "../../cli/commands/compile.js";
import { INPUTS_RECORD_FILE } from "../../cli/inputs-record.js";
import { RACY_MARGIN_MS } from "../../compiler/plugin-reuse.js";
import { createNodeHost } from "../../common/host.js";
import { READ_AHEAD_MIN_FOLDERS } from "../../common/read-ahead.js";
import { tempDir } from "../helpers/temp-tree.js";

interface GeneratorModule {
  generateAgent(dir: string, options: { plugins: number; tools: number }): number;
}
const { generateAgent } = (await import(pathToFileURL(path.resolve(import.meta.dirname, "../../bench/generate-agent.mjs")).href)) as GeneratorModule;

/** Runs `compile <root> --no-package --format json` in this process; returns stdout and the exit code. */
async function compileHere(root: string, options: { cache?: false } = {}): Promise<{ code: number; stdout: string }> {
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    const code = await runCompile([root], { package: false, format: "json", ...options });
    return { code, stdout: chunks.join("") };
  } finally {
    write.mockRestore();
  }
}

const PLUGINS = READ_AHEAD_MIN_FOLDERS + 4;


describe("compile with the read-ahead", () => {
  beforeEach(() => {
    asked.folders = [];
    process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"] = "0";
  });
  afterEach(() => {
    delete process.env["ASSEMBLY_LINE_ANALYSIS_WORKER"];
    delete process.env["ASSEMBLY_LINE_READ_AHEAD"];
  });

  it("reads every plugin folder ahead on a cold compile, and writes what a compile without it writes", async () => {
    const ahead = tempDir("al-read-ahead-compile-");
    const alone = tempDir("al-read-ahead-compile-");
    for (const root of [ahead, alone]) generateAgent(root, { plugins: PLUGINS, tools: 2 });

    process.env["ASSEMBLY_LINE_READ_AHEAD"] = "0";
    // The lock in place (then the compile records its inputs), no cache: a fresh checkout.
    for (const root of [ahead, alone]) expect((await compileHere(root, { cache: false })).code).toBe(0);
    // A file changed within the racy margin before a compile is never trusted by a stored record.
    await new Promise((resolve) => setTimeout(resolve, RACY_MARGIN_MS + 100));
    const without = await compileHere(alone);
    expect(without.code).toBe(0);
    expect(asked.folders).toEqual([]);

    delete process.env["ASSEMBLY_LINE_READ_AHEAD"];
    const withReadAhead = await compileHere(ahead);
    expect(withReadAhead.code).toBe(0);
    const plugins = fs.readdirSync(path.join(ahead, "plugins")).sort().map((name) => path.join(ahead, "plugins", name));
    expect(asked.folders).toEqual([plugins]);

    expect(fs.readFileSync(path.join(ahead, "plugins.lock"), "utf8")).toBe(fs.readFileSync(path.join(alone, "plugins.lock"), "utf8"));
    expect(withReadAhead.stdout.split(ahead).join("<root>")).toBe(without.stdout.split(alone).join("<root>"));
    // The inputs record holds the same probes with the same answers (the `stat`s are each copy's own).
    const probes = (root: string): unknown[] =>
      (JSON.parse(fs.readFileSync(path.join(root, INPUTS_RECORD_FILE), "utf8")) as { probes: { op: string; path: string; answer: unknown }[] }).probes.map(({ op, path: probePath, answer }) => ({
        op,
        path: path.relative(root, probePath),
        answer: typeof answer === "string" ? answer.split(root).join("<root>") : answer,
      }));
    expect(probes(ahead).length).toBeGreaterThan(PLUGINS * 4);
    expect(probes(ahead)).toEqual(probes(alone));

    // One plugin changed: its folder and every other have stored records, so nothing is read ahead.
    asked.folders = [];
    fs.appendFileSync(path.join(ahead, "plugins", "plugin-0000", "ai.assemblyline", "tool-0.ts"), "\n");
    expect((await compileHere(ahead)).code).toBe(0);
    expect(asked.folders).toEqual([[]]);
  });

  it("gives the disk host no read-ahead with ASSEMBLY_LINE_READ_AHEAD=0", () => {
    expect(createNodeHost({ readAhead: true }).readAhead).toBeDefined();
    process.env["ASSEMBLY_LINE_READ_AHEAD"] = "0";
    expect(createNodeHost({ readAhead: true }).readAhead).toBeUndefined();
  });

  it("reads ahead on a compile without the cache too (--no-cache: the compile driver's own disk host)", async () => {
    const root = tempDir("al-read-ahead-compile-");
    generateAgent(root, { plugins: PLUGINS, tools: 2 });
    expect((await compileHere(root, { cache: false })).code).toBe(0);
    expect(asked.folders).toHaveLength(1);
    expect(asked.folders[0]).toHaveLength(PLUGINS);
  });
});

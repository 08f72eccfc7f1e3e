/**
 * Issue 12 item 9: a seeded fuzz test of `compile --format json` on mutated inputs — agent.md,
 * plugin.json, entries (`ai.assemblyline/index.ts`), definitions, mcp.json, SKILL.md,
 * plugins.lock and the analysis cache — and on odd tree shapes (a folder where a file is
 * expected and the reverse, links that loop or leave the root). It fails on exit code 2, a
 * stack trace, or stdout that is not exactly one JSON object.
 *
 * The CLI's `main` runs in this process (stdout and stderr captured), so an iteration costs a
 * compile, not a Node start. `npm test` runs AL_FUZZ_ITERATIONS (default 40) iterations from
 * AL_FUZZ_SEED (default 12); a failure prints the seed and iteration to replay:
 *
 *     AL_FUZZ_ITERATIONS=2000 AL_FUZZ_SEED=7 npx vitest run test/hardening/fuzz-compile.test.ts
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";
import { seededRandom } from "../helpers/seeded-random.js";

const ITERATIONS = Number(process.env.AL_FUZZ_ITERATIONS ?? 40);
const SEED = Number(process.env.AL_FUZZ_SEED ?? 12);
/** Every this many iterations the compile also packages (esbuild); the others stop at the lock. */
const PACKAGE_EVERY = 10;

/** The files mutated, relative to the agent root (`.assemblyline/cache/analysis.bin` is binary). */
const TARGETS = [
  "agent.md",
  "subagents/researcher/agent.md",
  "plugins/support-tools/plugin.json",
  "plugins/example/plugin.json",
  "plugins/support-tools/ai.assemblyline/index.ts",
  "plugins/example/ai.assemblyline/index.ts",
  "plugins/support-tools/ai.assemblyline/lookup-record.ts",
  "plugins/example/ai.assemblyline/echo.ts",
  "plugins/example/mcp.json",
  "plugins/support-tools/skills/escalation/SKILL.md",
  "plugins.lock",
  ".assemblyline/cache/analysis.bin",
] as const;

const TOKENS = ["{", "}", "[", "]", '"', ":", ",", "---", "\n", "\r\n", "\0", "\uFEFF", "\\", "${", "../", "null", "-1e999", "🦀", "'", "`", "export default ", "defineTool(", "__proto__", "#", "- ", "  ", "\t"];

let base: string;
let outside: string;

beforeAll(async () => {
  base = copyAgent(supportAgentRoot, "al-fuzz-base-");
  fs.writeFileSync(
    path.join(base, "plugins/example/mcp.json"),
    `{ "$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": { "docs": { "type": "streamable-http", "url": "https://example.com/mcp" } } }\n`,
  );
  outside = tempDir("al-fuzz-outside-");
  // One real compile, so the lock and the analysis cache exist to be mutated.
  const first = await runCompile(base, true);
  expect(first.code, first.stderr).not.toBe(2);
}, 120_000);

/** Runs `compile <root> --format json` through the CLI's `main`, capturing its output. */
async function runCompile(root: string, pack: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => ((stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((stderr += String(chunk)), true)) as typeof process.stderr.write;
  try {
    const code = await main(["compile", root, "--format", "json", ...(pack ? [] : ["--no-package"])]);
    return { code, stdout, stderr };
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
}

/** Mutates bytes: delete, duplicate or replace a span, insert tokens, flip bytes, truncate. */
function mutateBytes(bytes: Buffer, random: () => number): Buffer {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  let out = Buffer.from(bytes);
  const rounds = 1 + Math.floor(random() * 4);
  for (let round = 0; round < rounds; round++) {
    const at = Math.floor(random() * (out.length + 1));
    const span = Math.floor(random() * Math.min(64, out.length - at + 1));
    switch (Math.floor(random() * 7)) {
      case 0:
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + span)]);
        break;
      case 1:
        out = Buffer.concat([out.subarray(0, at + span), out.subarray(at, at + span), out.subarray(at + span)]);
        break;
      case 2:
        out = Buffer.concat([out.subarray(0, at), Buffer.from(pick(TOKENS).repeat(1 + Math.floor(random() * 3))), out.subarray(at)]);
        break;
      case 3:
        for (let i = 0; i < 1 + span / 8 && out.length > 0; i++) out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
        break;
      case 4:
        out = out.subarray(0, at);
        break;
      case 5:
        out = Buffer.concat([out.subarray(0, at), Buffer.from("[".repeat(2000) + "]".repeat(random() < 0.5 ? 2000 : 3)), out.subarray(at)]);
        break;
      default:
        out = Buffer.concat([out.subarray(0, at), Buffer.from("x".repeat(1 + Math.floor(random() * 100_000))), out.subarray(at)]);
    }
  }
  return out;
}

/** Applies one mutation to `root`; returns what it did (for the failure message). */
function mutate(root: string, random: () => number): string {
  try {
    return mutateOnce(root, random);
  } catch (error) {
    // An earlier mutation made this one impossible (its folder is now a file, say).
    return `(skipped: ${(error as NodeJS.ErrnoException).code ?? error})`;
  }
}

function mutateOnce(root: string, random: () => number): string {
  const target = TARGETS[Math.floor(random() * TARGETS.length)] as string;
  const file = path.join(root, target);
  const shape = random();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (shape < 0.06) {
    fs.rmSync(file, { recursive: true, force: true });
    fs.mkdirSync(file);
    return `${target} -> empty folder`;
  }
  if (shape < 0.1) {
    fs.rmSync(file, { recursive: true, force: true });
    fs.symlinkSync(path.join(outside, "victim.txt"), file);
    return `${target} -> symlink outside`;
  }
  if (shape < 0.13) {
    fs.rmSync(file, { recursive: true, force: true });
    fs.symlinkSync(file, file);
    return `${target} -> symlink loop`;
  }
  if (shape < 0.16) {
    const parent = path.dirname(file);
    if (parent !== root) {
      fs.rmSync(parent, { recursive: true, force: true });
      fs.writeFileSync(parent, "a file where a folder was");
      return `${path.relative(root, parent)} -> file`;
    }
  }
  if (shape < 0.19) {
    fs.rmSync(file, { recursive: true, force: true });
    return `${target} removed`;
  }
  // The fuzzer itself never writes through a link it planted.
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  const before = stat?.isFile() ? fs.readFileSync(file) : Buffer.alloc(0);
  if (stat && !stat.isFile()) fs.rmSync(file, { recursive: true, force: true });
  fs.writeFileSync(file, mutateBytes(before, random));
  return `${target} mutated`;
}

describe(`compile fuzz (seed ${SEED}, ${ITERATIONS} iterations)`, () => {
  it("never exits 2, never prints a stack trace, always prints one JSON object", async () => {
    fs.writeFileSync(path.join(outside, "victim.txt"), "precious\n");
    const random = seededRandom(SEED);
    for (let iteration = 0; iteration < ITERATIONS; iteration++) {
      const root = path.join(tempDir("al-fuzz-"), "agent");
      fs.cpSync(base, root, { recursive: true, verbatimSymlinks: true });
      const steps: string[] = [];
      const mutations = 1 + Math.floor(random() * 3);
      for (let m = 0; m < mutations; m++) steps.push(mutate(root, random));
      const run = await runCompile(root, iteration % PACKAGE_EVERY === 0);
      const where = `seed ${SEED}, iteration ${iteration}: ${steps.join("; ")}`;
      expect(run.code, `${where}\n${run.stderr}`).not.toBe(2);
      expect(run.stderr, where).not.toMatch(/\n\s+at .+:\d+:\d+\)?\n|internal error/);
      let document: unknown;
      expect(() => (document = JSON.parse(run.stdout)), `${where}\nstdout: ${run.stdout.slice(0, 500)}`).not.toThrow();
      expect(typeof document === "object" && document !== null && !Array.isArray(document), where).toBe(true);
      expect(fs.readFileSync(path.join(outside, "victim.txt"), "utf8"), where).toBe("precious\n");
      fs.rmSync(path.dirname(root), { recursive: true, force: true });
    }
  }, 600_000);
});

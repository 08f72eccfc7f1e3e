/**
 * Vitest global setup: checks that every code of the diagnostics catalog is produced by at
 * least one test (issue 8: "a test that fails on an unproduced code").
 *
 * `setup` creates a fresh directory and exports its path as `AL_RECORD_DIAGNOSTICS`, so
 * `createDiagnostic` (diagnostics/diagnostic.ts) in every test worker, worker thread and
 * spawned CLI process appends the codes it produces there. `teardown` reads them back and,
 * when the whole suite ran (every test file, no `-t` name filter), prints the list of catalog
 * codes nobody produced and sets the exit code to 1, so `npm test` fails. A run of a few files
 * (`npx vitest run test/x.test.ts`) records but never fails on coverage.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestProject } from "vitest/node";
import { allDiagnosticMessages } from "../../diagnostics/catalog/index.js";
import { DiagnosticExamples } from "../../diagnostics/catalog/examples.js";
import { RECORD_DIAGNOSTICS_ENV } from "../../diagnostics/diagnostic.js";

/** The repository root (not imported from test/helpers: those register vitest hooks). */
const repoRoot = path.resolve(import.meta.dirname, "..", "..");

/**
 * Reads every code recorded under `dir` (one file per process or thread, one JSON line
 * `{ code, message }` per code) into code → the distinct messages seen for it.
 */
export function readRecordedCodes(dir: string): Map<string, Set<string>> {
  const codes = new Map<string, Set<string>>();
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(".codes")) continue;
    for (const line of fs.readFileSync(path.join(dir, name), "utf8").split("\n")) {
      if (!line) continue;
      let record: { code?: unknown; message?: unknown };
      try {
        record = JSON.parse(line);
      } catch {
        continue; // a line cut short by a process killed mid-write
      }
      if (typeof record.code !== "string" || typeof record.message !== "string") continue;
      const messages = codes.get(record.code) ?? new Set<string>();
      messages.add(record.message);
      codes.set(record.code, messages);
    }
  }
  return codes;
}

/** Catalog codes (sorted) that are not in `produced`. */
export function unproducedCodes(produced: ReadonlyMap<string, unknown>): string[] {
  return allDiagnosticMessages()
    .map((message) => message.code)
    .filter((code) => !produced.has(code));
}

/** Set to `1` (by `npm run docs:examples`) to add recorded messages as examples for codes that have none. */
export const UPDATE_EXAMPLES_ENV = "AL_UPDATE_DIAGNOSTIC_EXAMPLES";

const examplesFile = path.join(repoRoot, "diagnostics", "catalog", "examples.ts");

/**
 * Picks the example for a code among the messages the tests produced: machine-specific
 * absolute paths (temp directories, the checkout) are shortened, then the shortest message
 * wins (ties in code-unit order), so the choice does not depend on test order.
 */
export function pickExample(messages: Iterable<string>): string {
  const tmp = fs.realpathSync(os.tmpdir());
  const cleaned = [...messages].map((message) =>
    message
      .split(repoRoot + path.sep).join("")
      .replace(new RegExp(`(?:${escapeRegExp(tmp)}|${escapeRegExp(os.tmpdir())})[\\/][^\\/'"\\s]+`, "g"), "<tmp>")
      .replace(/\s+/g, " "),
  );
  return cleaned.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))[0] ?? "";
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Rewrites diagnostics/catalog/examples.ts: existing examples stay, codes without one get the recorded message. */
function writeExamples(recorded: ReadonlyMap<string, ReadonlySet<string>>): void {
  const examples: Record<string, string> = { ...DiagnosticExamples };
  const known = new Set(allDiagnosticMessages().map((message) => message.code));
  for (const code of Object.keys(examples)) if (!known.has(code)) delete examples[code];
  for (const [code, messages] of recorded) if (known.has(code) && examples[code] === undefined) examples[code] = pickExample(messages);
  const lines = Object.keys(examples)
    .sort()
    .map((code) => `  ${code}: ${JSON.stringify(examples[code])},`);
  const text = fs.readFileSync(examplesFile, "utf8");
  const start = text.indexOf("{\n", text.indexOf("DiagnosticExamples")) + 2;
  const end = text.lastIndexOf("};");
  fs.writeFileSync(examplesFile, `${text.slice(0, start)}${lines.join("\n")}\n${text.slice(end)}`);
}

/** Vitest global setup entry; returns the teardown that does the check. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-produced-codes-"));
  process.env[RECORD_DIAGNOSTICS_ENV] = dir;
  return async () => {
    try {
      const vitest = project.vitest;
      const ran = vitest.state.getFiles();
      const all = await vitest.globTestSpecifications();
      const wholeSuite =
        vitest.config.testNamePattern === undefined &&
        ran.length > 0 &&
        new Set(all.map((spec) => spec.moduleId)).size === new Set(ran.map((file) => file.filepath)).size;
      if (!wholeSuite) return;
      const recorded = readRecordedCodes(dir);
      if (process.env[UPDATE_EXAMPLES_ENV] === "1") writeExamples(recorded);
      const missing = unproducedCodes(recorded);
      if (missing.length > 0) {
        // Vitest only logs an error thrown by a teardown; the exit code is what fails `npm test`.
        process.exitCode = 1;
        console.error(
          `\nFAIL diagnostic coverage: ${missing.length} catalog code(s) are produced by no test: ${missing.join(", ")}.\n` +
            "Every code needs a test that makes the toolchain report it (or remove a code that truly cannot happen).\n",
        );
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

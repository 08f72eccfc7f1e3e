/**
 * docs/diagnostics.md, rendered from the catalog so the two never drift: `npm run docs`
 * writes it, and `test/diagnostics/catalog.test.ts` fails when the file is not current.
 * Each code shows its severity, message template, why it exists and an example message
 * (from `./examples.ts`, recorded from the tests).
 */
import { DiagnosticExamples } from "./examples.js";
import { CatalogStages } from "./index.js";
import type { DiagnosticMessage } from "./types.js";

/** Path of the generated page, relative to the repository root. */
export const DIAGNOSTICS_DOC_PATH = "docs/diagnostics.md";

const STAGE_TITLES: Readonly<Record<string, string>> = {
  AL1: "AL1xxx — agent loading (agent.md, surfaces, capabilities)",
  AL2: "AL2xxx — Agent Plugins v1 packages (plugin.json, skills, mcp.json, paths)",
  AL3: "AL3xxx — static analysis of ai.assemblyline entries and definitions",
  AL4: "AL4xxx — descriptor validation",
  AL5: "AL5xxx — config",
  AL6: "AL6xxx — plugins.lock, content hashing and `add`",
  AL7: "AL7xxx — packaging",
  AL8: "AL8xxx — runtime-min",
  AL9: "AL9xxx — usage and internal",
};

const INTRO = `# Diagnostic codes

<!-- Generated from diagnostics/catalog/ by \`npm run docs\`; do not edit. -->

Every problem the toolchain reports carries a stable code (\`AL\` + four digits; the first digit
names the stage), a severity (only \`error\` fails a compile, exit 1), the file, line, column and
property path, and usually a hint. Codes are stable: they are never renumbered or reused.

Where a text names its source, "Agent Plugins v1 §n" is the Agent Plugins specification 1.0.0,
"seed" is the Assembly Line plugin-tools contract (the tool contract this runtime implements),
"DESIGN §n" the toolchain's design decisions, and "issue n" the work item that set the rule.
"A reviewed connection" is the framework's place for authenticated provider operations:
credentials never pass through plugin config.

Every code is produced by at least one test: \`npm test\` records each code the toolchain
reports (\`createDiagnostic\` appends it to a file under \`AL_RECORD_DIAGNOSTICS\`, set by the
global setup \`test/setup/diagnostic-coverage.ts\`; CLI processes the tests spawn inherit it) and a
run of the whole suite fails, naming them, when a catalog code was never produced. A new code
needs a test that makes the toolchain report it; \`npm run docs:examples\` then records its example.

In the tables, *message* is the template (\`{0}\`, \`{1}\`, … are filled in when reported) and
*example* a message the test suite really produced (\`<tmp>\` stands for a temporary directory).
`;

/** The whole markdown of docs/diagnostics.md: an introduction and one table per stage. */
export function renderDiagnosticsDoc(): string {
  const out: string[] = [INTRO];
  for (const stage of CatalogStages) {
    const entries = Object.values(stage.table).sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    if (entries.length === 0) continue;
    out.push(`## ${STAGE_TITLES[stage.prefix] ?? stage.prefix}`, "", "| code | severity | message | why | example |", "|---|---|---|---|---|");
    for (const entry of entries) out.push(`| ${entry.code} | ${entry.severity} | ${cell(entry.message)} | ${cell(entry.docs)} | ${cell(exampleOf(entry))} |`);
    out.push("");
  }
  return out.join("\n");
}

/** The example message of a catalog entry: the recorded one, else the bare template. */
export function exampleOf(entry: DiagnosticMessage): string {
  return DiagnosticExamples[entry.code] ?? entry.message;
}

/** Table-cell text: `|` escaped, one line, and `<` written `&lt;` so `<tmp>` is not read as HTML. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/\n/g, " ");
}

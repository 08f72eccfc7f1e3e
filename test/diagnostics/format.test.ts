/** The formatters are pure functions of the same diagnostic data (STYLE §4). */
import { describe, expect, it } from "vitest";
import * as path from "node:path";
import { createDiagnostic, relativizeDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { folderStart } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { formatGithub, formatSarif, toJsonDiagnostic } from "../../diagnostics/format-machine.js";
import { formatPretty, summary } from "../../diagnostics/format-pretty.js";

const source = 'export default {\n  tools: {\n    echo: { descripton: "Echo." }\n  }\n};\n';
const unknownField: Diagnostic = createDiagnostic(
  Diagnostics.EntryUnknownField,
  { file: "plugins/p/ai.assemblyline/index.ts", line: 3, column: 13, endLine: 3, endColumn: 23 },
  ["descripton", "tool 'echo'"],
  { path: ["tools", "echo", "descripton"], hint: "Did you mean 'description'?" },
);

describe("formatPretty", () => {
  it("prints no code frame for a file that is not text, and control characters of a text file as pictures (helper-73, defect 12)", () => {
    const gzip = "\u001f\uFFFD\b\u0000\u0000\u0000\u0000\u0000\u0000\u0003\uFFFD\uFFFD\u001b[2J".repeat(4);
    const tarball = createDiagnostic(Diagnostics.EntryUnknownField, { file: "nopkg.tgz", line: 1, column: 1 }, ["x", "y"]);
    const binary = formatPretty([tarball], { color: false, readSource: () => gzip });
    expect(binary).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F]/);
    expect(binary).not.toContain(" | ");
    const withEscape = formatPretty([{ ...unknownField, line: 1, column: 17, endLine: undefined, endColumn: undefined }], { color: false, readSource: () => "export default {\u001b[2J};\n" });
    expect(withEscape).toContain("> 1 | export default {\u241b[2J};\n      |                 ^");
    // One stray Latin-1 byte (AL1003) leaves a text file text: its frame is shown.
    expect(formatPretty([tarball], { color: false, readSource: () => "---\nname: a\n---\nCaf\uFFFD au lait, a long enough line.\n" })).toContain(" | ");
  });

  // helper-89's review, finding 6: a message, path or hint can quote a plugin's words (a file
  // name, a description); their control characters are shown, never sent to the terminal.
  it("shows control characters in the file, message, path, hint and related locations as pictures", () => {
    const hostile = { ...unknownField, file: "plugins/p/\u001b[2J.ts", message: "Unknown field '\u001b]0;x\u0007' in tool 'echo'.", path: "tools.echo.\u009b", hint: "Did you mean \r'description'?", related: [{ file: "a\u001b.ts", line: 1, column: 1, message: "here\u007f" }] };
    const text = formatPretty([hostile], { color: false, readSource: () => undefined });
    expect(text).not.toMatch(/[\u0000-\u0009\u000B-\u001F\u007F-\u009F]/);
    expect(text).toContain("plugins/p/␛[2J.ts:3:13 - error AL4001: Unknown field '␛]0;x␇' in tool 'echo'.");
    expect(text).toContain("hint: Did you mean ␍'description'?");
    expect(text).toContain("related: a␛.ts:1:1 here\u2421");
  });

  it("prints the location, code, message, property path, a code frame and the hint", () => {
    const text = formatPretty([unknownField], { color: false, readSource: () => source });
    expect(text).toBe(
      [
        "plugins/p/ai.assemblyline/index.ts:3:13 - error AL4001: Unknown field 'descripton' in tool 'echo'.",
        "  at tools.echo.descripton",
        "",
        "    1 | export default {",
        "    2 |   tools: {",
        '  > 3 |     echo: { descripton: "Echo." }',
        "      |             ^^^^^^^^^^",
        "    4 |   }",
        "  hint: Did you mean 'description'?",
        "",
        "Found 1 error.",
        "",
      ].join("\n"),
    );
  });

  it("never prints the source line of a diagnostic that may hold a credential", () => {
    const secret = createDiagnostic(Diagnostics.ConfigValueLooksLikeCredential, { file: "agent.md", line: 2, column: 10 }, ["a GitHub token"]);
    const text = formatPretty([secret], { color: false, readSource: () => "---\ntoken: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n---\n" });
    expect(text).not.toContain("ghp_");
    expect(text).toContain("the source line is not shown");
  });

  it("prints no location for a diagnostic about the command line or the root itself (file \"\")", () => {
    const root = createDiagnostic(Diagnostics.AgentRootMissing, { file: "", line: 1, column: 1 }, ["agents/nope"]);
    expect(formatPretty([root], { color: false }).split("\n")[0]).toBe("error AL1024: The agent root 'agents/nope' does not exist.");
  });

  it("prints a folder without a line and column, in pretty output and GitHub annotations (helper-78 D8.2)", () => {
    const folder = createDiagnostic(Diagnostics.ToolsFolderIgnored, folderStart("/agent/tools"));
    expect(folder.file).toBe("/agent/tools/");
    const reported = relativizeDiagnostic(folder, "/agent", path.posix.relative);
    expect(reported).toMatchObject({ file: "tools/", line: 1, column: 1 });
    expect(formatPretty([reported], { color: false }).split("\n")[0]).toBe("tools/ - warning AL1015: The tools/ folder of this MD-first surface is never discovered.");
    expect(formatGithub([reported])).toMatch(/^::warning file=tools\/,title=AL1015::/);
  });

  it("a whole-run diagnostic (file \"\") is a GitHub annotation without file, line or column, and a SARIF result without a location (new-user trial)", () => {
    const run = createDiagnostic(Diagnostics.AgentRootMissing, { file: "", line: 1, column: 1 }, ["agents/nope"]);
    expect(formatGithub([run])).toMatch(/^::error title=AL1024::The agent root 'agents\/nope' does not exist\./);
    expect(formatGithub([run], "agents/support")).not.toMatch(/file=|line=|col=/);
    const result = JSON.parse(formatSarif([run], "1.2.3", "agents/support")).runs[0].results[0];
    expect(result.ruleId).toBe("AL1024");
    expect(result.locations).toBeUndefined();
  });

  it("a folder's SARIF location has no region (a folder has no lines), and a related folder prints without a line and column", () => {
    const folder = relativizeDiagnostic(createDiagnostic(Diagnostics.ToolsFolderIgnored, folderStart("/agent/tools")), "/agent", path.posix.relative);
    const result = JSON.parse(formatSarif([folder], "1.2.3")).runs[0].results[0];
    expect(result.locations).toEqual([{ physicalLocation: { artifactLocation: { uri: "tools/", uriBaseId: "%SRCROOT%" } } }]);
    const pointing = { ...unknownField, related: [{ ...folderStart("plugins/x"), message: "rejected for AL2002" }] };
    expect(formatPretty([pointing], { color: false })).toContain("  related: plugins/x/ rejected for AL2002");
  });

  it("summarises errors and warnings", () => {
    const warning = { ...unknownField, severity: "warning" as const };
    expect(summary([unknownField, unknownField, warning])).toBe("Found 2 errors and 1 warning.");
    expect(formatPretty([])).toBe("");
  });
});

describe("machine formats", () => {
  it("JSON has DESIGN §7's fields", () => {
    expect(toJsonDiagnostic(unknownField)).toEqual({
      code: "AL4001",
      severity: "error",
      message: "Unknown field 'descripton' in tool 'echo'.",
      file: "plugins/p/ai.assemblyline/index.ts",
      line: 3,
      column: 13,
      endLine: 3,
      endColumn: 23,
      path: "tools.echo.descripton",
      hint: "Did you mean 'description'?",
    });
  });

  it("GitHub annotations are escaped and placed under the agent's folder", () => {
    expect(formatGithub([unknownField], "agents/support")).toBe(
      "::error file=agents/support/plugins/p/ai.assemblyline/index.ts,line=3,col=13,endLine=3,endColumn=23,title=AL4001 at tools.echo.descripton::Unknown field 'descripton' in tool 'echo'. Did you mean 'description'?\n",
    );
  });

  it("SARIF names the rule from the catalog and the file under the agent's folder", () => {
    const log = JSON.parse(formatSarif([unknownField], "1.2.3", "agents/support"));
    expect(log.version).toBe("2.1.0");
    expect(log.runs[0].tool.driver).toMatchObject({ name: "assembly-line", version: "1.2.3", rules: [{ id: "AL4001" }] });
    // The rule's short description reads as a sentence; the template keeps its placeholders in messageStrings.
    const rule = log.runs[0].tool.driver.rules[0];
    expect(rule.shortDescription.text).not.toMatch(/\{\d+\}/);
    expect(rule.shortDescription.text).toContain("…");
    expect(rule.messageStrings.default.text).toMatch(/\{0\}/);
    expect(log.runs[0].results[0]).toMatchObject({
      ruleId: "AL4001",
      level: "error",
      locations: [{ physicalLocation: { artifactLocation: { uri: "agents/support/plugins/p/ai.assemblyline/index.ts", uriBaseId: "%SRCROOT%" }, region: { startLine: 3, startColumn: 13 } } }],
    });
    // Without a source root the log holds no absolute path.
    expect(log.runs[0].originalUriBaseIds).toBeUndefined();
  });

  it("SARIF locations are relative URIs against %SRCROOT%, which originalUriBaseIds places at the working directory", () => {
    const spaced = { ...unknownField, file: "plugins/my plugin/ai.assemblyline/index.ts" };
    const log = JSON.parse(formatSarif([spaced], "1.2.3", "agents/support", "/home/me/repo"));
    expect(log.runs[0].originalUriBaseIds).toEqual({ "%SRCROOT%": { uri: "file:///home/me/repo/" } });
    expect(log.runs[0].results[0].locations[0].physicalLocation.artifactLocation).toEqual({ uri: "agents/support/plugins/my%20plugin/ai.assemblyline/index.ts", uriBaseId: "%SRCROOT%" });
  });
});

/**
 * Issue 13 item 5: credential values are detected by a maintained rule set (secretlint's
 * recommended preset, driven synchronously in `compiler/config/secret-scan.ts`) plus our own
 * shapes, and a finding never reaches plugins.lock, a diagnostic, or any output.
 *
 * The tokens are assembled from pieces so this file itself holds no complete token.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { lintSource } from "@secretlint/core";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { compileAgent } from "../../build/compile.js";
import { credentialKindOfValue, maskDiagnostic, maskSecretsIn } from "../../compiler/config/credentials.js";
import { asynchronousScanners, scanForSecrets, SECRET_RULE_OPTIONS, secretScannerRuleIds } from "../../compiler/config/secret-scan.js";
import { formatDiagnosticsFrom } from "../../cli/output.js";
import { formatGithub } from "../../diagnostics/format-machine.js";
import { runCli, runCliJson } from "../helpers/run-cli.js";
import { copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";

const join = (...parts: string[]) => parts.join("");
/** One token per family the issue names, with the kind the diagnostic must say. */
const TOKENS = {
  huggingface: { value: join("hf_", "abcdefghijklmnopqrstuvwxyzABCDEFGH"), kind: "a Hugging Face token" },
  github: { value: join("ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"), kind: "a GitHub token" },
  slack: { value: join("xoxb-", "1234567890-1234567890123-", "abcdefghijABCDEFGHIJklmn"), kind: "a Slack token" },
  aws: { value: join("AKIA", "IOSFODNN7", "EXAMPL3"), kind: "an AWS credential" },
  stripe: { value: join("sk_", "live_", "abcdefghijklmnop1234567890"), kind: "a Stripe secret key" },
} as const;

/** The example agent with `value` as the private-search capability's `index` config. */
async function agentWithConfigValue(value: string): Promise<{ root: string; lockBefore: string }> {
  const root = copyAgent(supportAgentRoot, "al-secret-");
  expect((await compileAgent({ root, package: false, displayRoot: "." })).ok).toBe(true);
  const agentMd = path.join(root, "agent.md");
  fs.writeFileSync(agentMd, fs.readFileSync(agentMd, "utf8").replace("index: products", `index: "${value}"`));
  return { root, lockBefore: fs.readFileSync(path.join(root, "plugins.lock"), "utf8") };
}

describe("credential values: detection", () => {
  for (const [family, { value, kind }] of Object.entries(TOKENS)) {
    it(`detects ${family} (${kind})`, () => expect(credentialKindOfValue(value)).toBe(kind));
  }

  it("leaves ordinary config alone", () => {
    for (const value of ["products", "#F7F7F5", "https://api.example.com/v1", "Example | Confidential", "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="]) {
      expect(credentialKindOfValue(value)).toBeUndefined();
    }
  });

  it("runs the preset's 25 text scanners, none of which answers asynchronously", () => {
    expect(secretScannerRuleIds().length).toBeGreaterThanOrEqual(20);
    expect(secretScannerRuleIds()).toEqual(expect.arrayContaining(["@secretlint/secretlint-rule-huggingface", "@secretlint/secretlint-rule-github", "@secretlint/secretlint-rule-slack", "@secretlint/secretlint-rule-aws"]));
    for (const { value } of Object.values(TOKENS)) expect(asynchronousScanners(`token: ${value}`)).toEqual([]);
  });

  it("finds exactly what secretlint's own lintSource finds (same rules, same options)", async () => {
    const config = {
      rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommendedPreset, rules: Object.entries(SECRET_RULE_OPTIONS).map(([id, options]) => ({ id, options })) }],
    };
    const corpus = [...Object.values(TOKENS).map((t) => t.value), "products", "https://user:pa55word@example.com/x", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----", join("npm_", "a".repeat(36))];
    for (const content of corpus) {
      const result = await lintSource({ source: { content, filePath: "/value.txt", ext: ".txt", contentType: "text" }, options: { config: config as never } });
      const expected = result.messages.map((m) => [m.ruleId, m.messageId]).sort();
      expect(scanForSecrets(content).map((f) => [f.ruleId, f.messageId]).sort()).toEqual(expected);
    }
  });

  it("masks every token in a text, keeping positions", () => {
    const text = Object.values(TOKENS).map((t, i) => `line ${i}: ${t.value} end`).join("\n");
    const masked = maskSecretsIn(text);
    expect(masked).toHaveLength(text.length);
    for (const { value } of Object.values(TOKENS)) expect(masked).not.toContain(value);
    expect(masked.split("\n").map((l) => l.replace(/\*+/, "*"))).toEqual(Object.values(TOKENS).map((_, i) => `line ${i}: * end`));
  });

  it("masks a diagnostic that echoes a value", () => {
    const d = { code: "AL5002", severity: "error" as const, message: `Config of capability 'x': index must be one of "a" (got "${TOKENS.github.value}").`, file: "agent.md", line: 1, column: 1 };
    expect(maskDiagnostic(d).message).not.toContain(TOKENS.github.value);
  });
});

/** The family whose token goes through every output format of the real CLI (each CLI process costs about 0.4 s of CPU to start). */
const FIRST_FAMILY = Object.keys(TOKENS)[0];

describe("credential values: never written, never printed", () => {
  for (const [family, { value, kind }] of Object.entries(TOKENS)) {
    it(`${family}: compile fails with AL5001, keeps the lock, and prints the token nowhere`, async () => {
      const { root, lockBefore } = await agentWithConfigValue(value);
      const result = await compileAgent({ root, package: false, displayRoot: "." });
      expect(result.ok).toBe(false);
      const finding = result.diagnostics.find((d) => d.code === "AL5001");
      expect(finding).toMatchObject({ severity: "error", file: "agent.md", path: 'capabilities["private-search"].config.index', message: `This config value looks like ${kind}.` });
      expect(finding!.hint).toContain("A connection is");
      expect(JSON.stringify(result.diagnostics)).not.toContain(value);
      expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).toBe(lockBefore);
      expect(fs.readFileSync(path.join(root, "plugins.lock"), "utf8")).not.toContain(value);

      // The printed forms of these diagnostics, in-process: pretty output (AL5001 withholds its
      // source line; a frame that showed it would be masked) and GitHub's annotations.
      expect(formatDiagnosticsFrom(result.diagnostics, root, false)).toContain("AL5001");
      expect(formatDiagnosticsFrom(result.diagnostics, root, false)).not.toContain(value);
      expect(formatGithub(result.diagnostics, root)).not.toContain(value);

      // The real CLI: pretty output (the code frame) for every family; every format and
      // --check for the first family. The other outputs print the diagnostics' messages and
      // paths, which hold no value whatever the token's family (checked above, in-process).
      const pretty = runCli(["compile", root, "--no-package"]);
      expect(pretty.status).toBe(1);
      expect(pretty.stderr).toContain("AL5001");
      expect(pretty.stdout + pretty.stderr).not.toContain(value);
      if (family !== FIRST_FAMILY) return;
      const check = runCli(["compile", root, "--check"]);
      expect(check.stdout + check.stderr).not.toContain(value);
      for (const format of ["json", "sarif", "github"]) {
        const run = runCli(["compile", root, "--no-package", "--format", format]);
        expect(run.stdout + run.stderr).not.toContain(value);
      }
    });
  }

  it("a token on a line next to another diagnostic is masked in that diagnostic's code frame", async () => {
    const { root } = await agentWithConfigValue(TOKENS.huggingface.value);
    const agentMd = path.join(root, "agent.md");
    // A misspelled field two lines below the token: its code frame shows the token's line.
    fs.writeFileSync(agentMd, fs.readFileSync(agentMd, "utf8").replace("  # Approval gates", "  support-tool: {}\n  # Approval gates"));
    const run = runCli(["compile", root, "--no-package"]);
    expect(run.stderr).toMatch(/\*{10,}/);
    expect(run.stderr).not.toContain(TOKENS.huggingface.value);
    expect(runCliJson(["compile", root, "--no-package"]).json.diagnostics.length).toBeGreaterThan(1);
  });
});

/**
 * Secret detection in config values through a maintained rule set: secretlint's recommended
 * preset (`@secretlint/secretlint-rule-preset-recommend`: GitHub, Slack, AWS, Hugging Face,
 * OpenAI, Anthropic, npm, GitLab, SendGrid, Shopify, private keys, basic-auth URLs, … — 25
 * scanners kept up to date upstream), complemented in `credentials.ts` by the shapes that
 * preset does not cover (Stripe keys, JSON Web Tokens, bearer values).
 *
 * Why the rules are driven here rather than through `@secretlint/core`'s `lintSource`:
 * `lintSource` returns a Promise, while config validation runs inside the synchronous
 * analysis (`analyzeAgent`, shared by the CLI and the editor). A secretlint rule is a
 * documented plain object (`meta`, `create(context, options)` returning `{ file(source) }`)
 * and every text scanner of the preset reports synchronously, so this module calls the
 * scanners as `lintSource` does (same rules, same options) and collects their reports at once.
 * test/config/secret-scan.test.ts checks that the findings equal `lintSource`'s on a corpus
 * and that no scanner answers asynchronously, so a preset upgrade that changed either fails it.
 *
 * Version: 12.0.0 is the last release of the preset (and of `@secretlint/core`) whose
 * `engines` accepts Node 20 (12.1.0 and later need Node 22); the preset has no dependencies.
 *
 * Nothing here keeps or returns the secret: a finding is the rule that matched and a kind in
 * words, never the matched text (secretlint's own messages embed it; they are not used).
 */
import { createRequire } from "node:module";

/** One secret found in a value: which rule matched and what it found, in words (no secret text). */
export interface SecretFinding {
  /** secretlint rule id (`@secretlint/secretlint-rule-github`). */
  readonly ruleId: string;
  /** The rule's message id (`GITHUB_TOKEN`). */
  readonly messageId: string;
  /** Words for the finding, e.g. "a GitHub token". */
  readonly kind: string;
}

/** The part of a secretlint rule this module uses (see `@secretlint/types` `SecretLintRuleCreator`). */
interface ScannerRule {
  readonly meta: { readonly id: string; readonly type?: string; readonly supportedContentTypes?: readonly string[] };
  create(context: unknown, options: unknown): { file?(source: unknown): unknown };
}

/**
 * Options per rule id, as a `.secretlintrc` would give them: the AWS rule also scans for
 * access key ids (`AKIA…`), which it skips by default because they need no assignment context.
 */
export const SECRET_RULE_OPTIONS: Readonly<Record<string, unknown>> = {
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};

/** Readable names of the preset's rules (otherwise "a secret (<rule>)"). */
const RULE_KINDS: Readonly<Record<string, string>> = {
  "@secretlint/secretlint-rule-aws": "an AWS credential",
  "@secretlint/secretlint-rule-github": "a GitHub token",
  "@secretlint/secretlint-rule-slack": "a Slack token",
  "@secretlint/secretlint-rule-huggingface": "a Hugging Face token",
  "@secretlint/secretlint-rule-openai": "an OpenAI API key",
  "@secretlint/secretlint-rule-anthropic": "an Anthropic API key",
  "@secretlint/secretlint-rule-npm": "an npm token",
  "@secretlint/secretlint-rule-gcp": "a Google Cloud credential",
  "@secretlint/secretlint-rule-gitlab": "a GitLab token",
  "@secretlint/secretlint-rule-sendgrid": "a SendGrid API key",
  "@secretlint/secretlint-rule-shopify": "a Shopify token",
  "@secretlint/secretlint-rule-privatekey": "a private key",
  "@secretlint/secretlint-rule-basicauth": "a URL with a password",
  "@secretlint/secretlint-rule-database-connection-string": "a database connection string with a password",
};

let loadedScanners: readonly ScannerRule[] | undefined;

/**
 * The preset's module. In the CLI bundle (CommonJS, so `require` is defined there) esbuild joins
 * the preset into the bundle (`BUNDLED_PACKAGES` of scripts/build-cli-bundle.mjs) through the
 * `require` call below, and runs it on first use: its code then comes from the code cache.
 * Loaded from `node_modules/` it is an ES module, which Node 20 compiles at every start (no code
 * cache for ES modules): about 22 ms of CPU, and every compile that reports a diagnostic or has
 * a config value loads it (docs/performance.md, "The test suite's budget", helper-98). The
 * unbundled ES modules of `dist/` (the language server, the `./compiler` export) have no
 * `require` and load it from `node_modules/` as before.
 */
function loadPreset(): typeof import("@secretlint/secretlint-rule-preset-recommend") {
  return typeof require === "function"
    ? (require("@secretlint/secretlint-rule-preset-recommend") as typeof import("@secretlint/secretlint-rule-preset-recommend"))
    : (createRequire(import.meta.url)("@secretlint/secretlint-rule-preset-recommend") as typeof import("@secretlint/secretlint-rule-preset-recommend"));
}

/**
 * The preset's text scanners, loaded on first use (issue 14 item 1): the preset is about 10 ms
 * of a compile's start, and an agent without config values never scans.
 */
function scanners(): readonly ScannerRule[] {
  loadedScanners ??= (loadPreset().rules as unknown as readonly ScannerRule[]).filter(
    (rule) => rule.meta.type === "scanner" && (rule.meta.supportedContentTypes ?? []).some((type) => type === "text" || type === "all"),
  );
  return loadedScanners;
}

/** The rule ids of the scanners {@link scanForSecrets} runs, in preset order. */
export function secretScannerRuleIds(): readonly string[] {
  return scanners().map((rule) => rule.meta.id);
}

/** A source as secretlint's `file` handlers read it: one value, as text, with no file behind it. */
function sourceOf(value: string) {
  return { content: value, filePath: "", ext: "", contentType: "text" as const };
}

/** A rule context whose translator keeps only the message id (secretlint's words embed the secret). */
function contextFor(report: (messageId: string, range: readonly [number, number] | undefined) => void) {
  return {
    sharedOptions: {},
    createTranslator: () => (messageId: string) => ({ message: messageId, messageId, data: {} }),
    report(descriptor: { readonly message: { readonly messageId: string }; readonly range?: readonly [number, number] }) {
      report(descriptor.message.messageId, Array.isArray(descriptor.range) ? descriptor.range : undefined);
    },
    ignore() {},
  };
}

/**
 * Character ranges of `text` that secretlint's recommended scanners report as secrets
 * (`[start, end)`, unsorted, possibly overlapping). For {@link maskSecretsIn}.
 */
export function secretRanges(text: string): [number, number][] {
  const ranges: [number, number][] = [];
  const source = sourceOf(text);
  for (const rule of scanners()) {
    const context = contextFor((_messageId, range) => {
      if (range && range[0] >= 0 && range[1] > range[0]) ranges.push([range[0], Math.min(range[1], text.length)]);
    });
    try {
      settle(rule.create(context, SECRET_RULE_OPTIONS[rule.meta.id] ?? {}).file?.(source));
    } catch {
      // Nothing found by a rule that cannot read this text.
    }
  }
  return ranges;
}

/**
 * Runs every scanner of the recommended preset over `value` (one config string) and returns
 * what they found, one finding per rule and message id, in preset order. Never throws: a rule
 * that throws counts as having found nothing; one that answers asynchronously is not waited for
 * (none does for text; see the module comment).
 */
export function scanForSecrets(value: string): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const seen = new Set<string>();
  const source = sourceOf(value);
  for (const rule of scanners()) {
    const id = rule.meta.id;
    const context = contextFor((messageId) => {
      if (seen.has(`${id}\0${messageId}`)) return;
      seen.add(`${id}\0${messageId}`);
      findings.push({ ruleId: id, messageId, kind: RULE_KINDS[id] ?? `a secret (${id.replace(/^@secretlint\/secretlint-rule-/, "")})` });
    });
    try {
      settle(rule.create(context, SECRET_RULE_OPTIONS[id] ?? {}).file?.(source));
    } catch {
      // A rule that cannot read this value found nothing in it.
    }
  }
  return findings;
}

/** Rule ids whose `file` handler answers `value` with a Promise (a test hook: must stay empty). */
export function asynchronousScanners(value: string): string[] {
  const source = sourceOf(value);
  return scanners().filter((rule) => {
    const answer = rule.create(contextFor(() => undefined), SECRET_RULE_OPTIONS[rule.meta.id] ?? {}).file?.(source);
    return settle(answer);
  }).map((rule) => rule.meta.id);
}

/** True (and its rejection silenced) when `value` is a Promise. */
function settle(value: unknown): boolean {
  if (typeof (value as { then?: unknown } | null)?.then !== "function") return false;
  (value as Promise<unknown>).then(undefined, () => undefined);
  return true;
}

/**
 * Credential detection (DESIGN §4; seed "Plugin descriptor": "Authored tools cannot declare or
 * receive credentials; move authenticated provider operations into a reviewed connection").
 *
 * Names are split into words (camelCase, snake_case, kebab-case, dots) and compared word by
 * word, so `maxTokens` and `author` pass while `apiKey`, `AUTH_TOKEN` and `client-secret` do not.
 * Values are matched by secretlint's maintained recommended rule set (`secret-scan.ts`) and
 * by the published shapes of keys it does not cover; generic long strings are not flagged (a
 * data-URI logo is not a secret).
 */
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { scanForSecrets, secretRanges } from "./secret-scan.js";

/** Single words that name a credential. */
const SECRET_WORDS = new Set(["secret", "secrets", "password", "passwd", "pwd", "passphrase", "token", "credential", "credentials", "apikey", "bearer", "privatekey", "accesskey", "cookie"]);
/** Adjacent word pairs that name a credential. */
const SECRET_PAIRS = new Set(["api key", "private key", "access key", "secret key", "client secret", "auth token", "access token", "refresh token", "session key", "signing key"]);

/** Splits an identifier-like name into lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0);
}

/** True when `name` (a config key, a configSchema property, a requiredConfig name) names a credential. */
export function looksLikeCredentialName(name: string): boolean {
  const words = nameWords(name);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.has(words[i]!)) return true;
    if (i + 1 < words.length && SECRET_PAIRS.has(`${words[i]} ${words[i + 1]}`)) return true;
  }
  return false;
}

/**
 * Published shapes of API keys and tokens that complement secretlint's preset (prefix-based,
 * so ordinary strings do not match): Stripe keys, JSON Web Tokens and bearer values are not
 * in the preset; the others overlap it and stay as a second net.
 */
const SECRET_VALUE_PATTERNS: readonly { readonly kind: string; readonly pattern: RegExp }[] = [
  { kind: "an OpenAI/Anthropic-style API key", pattern: /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/ },
  { kind: "a Stripe secret key", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { kind: "a GitHub token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/ },
  { kind: "a Slack token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { kind: "an AWS access key id", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: "a Google API key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: "an npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: "a JSON Web Token", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: "a private key", pattern: /-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----/ },
  { kind: "a bearer token", pattern: /^Bearer\s+[A-Za-z0-9._~+/=-]{16,}$/ },
  { kind: "a URL with a password", pattern: /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:[^/\s@]+@/i },
];

/**
 * What kind of credential `value` looks like, or `undefined` when it does not look like one:
 * first secretlint's recommended rule set (`secret-scan.ts`), then the shapes it does not
 * cover (above: Stripe keys, JSON Web Tokens, bearer values, `sk-…` keys). The answer never
 * contains any part of `value`.
 */
export function credentialKindOfValue(value: string): string | undefined {
  const [finding] = scanForSecrets(value);
  if (finding) return finding.kind;
  for (const { kind, pattern } of SECRET_VALUE_PATTERNS) if (pattern.test(value)) return kind;
  return undefined;
}

/**
 * `text` with every credential-shaped part replaced by `*` of the same length (so line and
 * column positions in it stay valid): what secretlint's recommended scanners report, and the
 * complementary shapes above. Used on everything printed from an agent's files: diagnostic
 * messages and hints, and the source shown in code frames (issue 13 item 5: "a finding never
 * reaches a diagnostic or any output").
 */
export function maskSecretsIn(text: string): string {
  const ranges = secretRanges(text);
  for (const { pattern } of SECRET_VALUE_PATTERNS) {
    // Anchored shapes (a whole bearer value, a URL with a password) are matched line by line (m).
    const flags = `${pattern.flags.replace(/[gm]/g, "")}g${pattern.source.startsWith("^") ? "m" : ""}`;
    for (const match of text.matchAll(new RegExp(pattern.source, flags))) ranges.push([match.index, match.index + match[0].length]);
  }
  let masked = text;
  for (const [start, end] of ranges) masked = masked.slice(0, start) + "*".repeat(end - start) + masked.slice(end);
  return masked;
}

/**
 * `diagnostic` with {@link maskSecretsIn} applied to its message, hint and related messages
 * (the same object when nothing changes). Applied to every diagnostic a compile or a
 * `validate` reports, whatever produced it, so a value echoed by any message is masked.
 */
export function maskDiagnostic(diagnostic: Diagnostic): Diagnostic {
  // Only strings are masked: whatever else a producer put there is passed on unchanged.
  const mask = <T>(text: T): T => (typeof text === "string" ? (maskSecretsIn(text) as T) : text);
  const message = mask(diagnostic.message);
  const hint = mask(diagnostic.hint);
  const related = diagnostic.related?.map((r) => (typeof r.message === "string" ? { ...r, message: maskSecretsIn(r.message) } : r));
  const relatedChanged = related?.some((r, i) => r.message !== diagnostic.related![i]!.message) ?? false;
  if (message === diagnostic.message && hint === diagnostic.hint && !relatedChanged) return diagnostic;
  return { ...diagnostic, message, ...(hint === undefined ? {} : { hint }), ...(related ? { related } : {}) };
}

/** Codes whose finding means a credential was written where it must not be (AL4029, AL5001). */
export const CREDENTIAL_CODES: ReadonlySet<string> = new Set(["AL4029", "AL5001"]);

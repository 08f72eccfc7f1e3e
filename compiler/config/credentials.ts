/**
 * Credential detection (DESIGN §4; seed "Plugin descriptor": "Authored tools cannot declare or
 * receive credentials; move authenticated provider operations into a reviewed connection").
 *
 * Names are split into words (camelCase, snake_case, kebab-case, dots) and compared word by
 * word, so `maxTokens` and `author` pass while `apiKey`, `AUTH_TOKEN` and `client-secret` do not.
 * Values are matched against the published shapes of common keys and tokens; generic long
 * strings are not flagged (a data-URI logo is not a secret).
 */

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

/** Published shapes of API keys and tokens (prefix-based, so ordinary strings do not match). */
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

/** What kind of credential `value` looks like, or `undefined` when it does not look like one. */
export function credentialKindOfValue(value: string): string | undefined {
  for (const { kind, pattern } of SECRET_VALUE_PATTERNS) if (pattern.test(value)) return kind;
  return undefined;
}

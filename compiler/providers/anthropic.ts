/**
 * `anthropic`: Claude tool use without `strict` (the Messages API `tools` parameter). "Define
 * tools" documents the name rule and that `input_schema` is a JSON Schema object; it documents
 * no refused keyword and no cap on the number of non-strict tools, so only the name is checked
 * (docs/providers.md says so).
 */
import type { NameRule, ProviderProfile } from "./profile.js";
import { ANTHROPIC_DEFINE_TOOLS, CHECKED } from "./sources.js";

/** Define tools, `name`: "Must match the regex `^[a-zA-Z0-9_-]{1,128}$`." */
export const ANTHROPIC_NAME: NameRule = {
  pattern: /^[a-zA-Z0-9_-]{1,128}$/,
  rule: "1–128 characters of a-z, A-Z, 0-9, '_' and '-'",
  severity: "error",
  source: ANTHROPIC_DEFINE_TOOLS.title,
};

export const anthropicProfile: ProviderProfile = {
  id: "anthropic",
  title: "Anthropic Claude tool use (non-strict)",
  version: CHECKED,
  sources: [ANTHROPIC_DEFINE_TOOLS],
  name: ANTHROPIC_NAME,
  notes: [
    "The name pattern is the current page's `^[a-zA-Z0-9_-]{1,128}$`; earlier versions of the page said `{1,64}`. Assembly Line's own tool-name rule (1–64 of the same characters) is stricter either way.",
    "No limit on the number of non-strict tools per request is documented; none is checked.",
  ],
};

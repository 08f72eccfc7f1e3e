/**
 * `openai`: OpenAI function calling with `strict: false` (the default). The API reference
 * documents the function-name rule and the 128-function cap; no schema subset is documented
 * for non-strict functions, so no keyword is judged (docs/providers.md says so).
 */
import type { NameRule, ProviderProfile, ToolCap } from "./profile.js";
import { CHECKED, OPENAI_API_REFERENCE, OPENAI_FUNCTION_CALLING } from "./sources.js";

/** `function.name`: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64." */
export const OPENAI_NAME: NameRule = {
  pattern: /^[a-zA-Z0-9_-]{1,64}$/,
  rule: "1–64 characters of a-z, A-Z, 0-9, '_' and '-'",
  severity: "error",
  source: OPENAI_API_REFERENCE.title,
};

/** `tools`: "A max of 128 functions are supported." */
export const OPENAI_TOOL_CAP: ToolCap = { limit: 128, counts: "snapshot", what: "tools (functions per request)", source: OPENAI_API_REFERENCE.title };

export const openaiProfile: ProviderProfile = {
  id: "openai",
  title: "OpenAI function calling (strict: false)",
  version: CHECKED,
  sources: [OPENAI_API_REFERENCE, OPENAI_FUNCTION_CALLING],
  name: OPENAI_NAME,
  toolCap: OPENAI_TOOL_CAP,
  notes: ["Without `strict: true` OpenAI documents no keyword subset, no required/closed-object rule and no size budget for `parameters`; none is checked."],
};

/**
 * Rules both Gemini targets share: the function-name pattern and the declaration cap (Vertex
 * AI function-calling reference, read on the profiles' date).
 */
import type { NameRule, ToolCap } from "./profile.js";
import { VERTEX_FUNCTION_CALLING } from "./sources.js";

/** "Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 64." */
export const GEMINI_NAME: NameRule = {
  pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
  rule: "1–64 characters of a-z, A-Z, 0-9, '_', '.', ':' and '-', starting with a letter or '_'",
  severity: "error",
  source: VERTEX_FUNCTION_CALLING.title,
};

/** "The maximum number of function declarations that can be provided with the request is 128." */
export const GEMINI_TOOL_CAP: ToolCap = { limit: 128, counts: "snapshot", what: "tools (function declarations per request)", source: VERTEX_FUNCTION_CALLING.title };

/**
 * Diagnostics of provider profiles (AL470x–AL471x) and token budgets (AL472x): what a model API
 * would do with the tools a surface sends it (issue 11 items 1 and 2). Every message names
 * the target, the tool and the rule's source; docs/providers.md lists the rules.
 */
import { defineMessages } from "./types.js";

export const ProviderMessages = defineMessages({
  ProviderToolNameRejected: {
    code: "AL4701",
    severity: "error",
    message: "Tool '{0}' has a name target '{1}' refuses: names must be {2}.",
    hint: "Rename the tool (its key under `tools` in the plugin entry) to fit the target; keep the old name in `aliases` so tool_search still finds it.",
    docs: "Model APIs check function names before anything else; a name outside the target's pattern fails the whole request (docs/providers.md).",
  },
  ProviderToolNameAdvisory: {
    code: "AL4702",
    severity: "warning",
    message: "Tool '{0}' has a name target '{1}' advises against: names should be {2}.",
    hint: "Rename the tool to fit the recommended pattern; clients may rewrite or refuse other names.",
    docs: "MCP 2025-11-25 says tool names SHOULD be 1–128 characters of A-Z, a-z, 0-9, '_', '-' and '.'; a broken SHOULD is a warning.",
  },
  ProviderKeywordRejected: {
    code: "AL4703",
    severity: "error",
    message: "Target '{0}' refuses the input schema of tool '{1}': {2}.",
    docs: "The target's documented schema subset does not allow this keyword or value here; the API answers the whole request with an error (docs/providers.md). Removing the keyword also removes it from the run-time input check, which uses the schema as written: a bound the tool needs must then be checked in its code.",
  },
  ProviderKeywordIgnored: {
    code: "AL4704",
    severity: "warning",
    message: "Target '{0}' silently drops part of the input schema of tool '{1}': {2}.",
    docs: "The request succeeds, but the model is not held to this part of the schema. The keyword stays in the schema, so the run-time input check (against the locked schema as written) still refuses a call that breaks it, as invalid_input the model can correct.",
  },
  ProviderKeywordTransformed: {
    code: "AL4705",
    severity: "info",
    message: "Target '{0}' accepts the input schema of tool '{1}' only after a known rewrite: {2}.",
    docs: "The provider or its SDK rewrites this construct into one it supports (e.g. the Gemini SDK turns a `null` type into `nullable`); the model sees the rewritten form.",
  },
  ProviderKeywordUnverified: {
    code: "AL4706",
    severity: "warning",
    message: "Target '{0}' may not accept the input schema of tool '{1}': {2}.",
    docs: "The keyword is outside the target's documented subset and the documentation does not say whether it is refused or ignored; the check does not guess.",
  },
  ProviderStrictPropertyOptional: {
    code: "AL4707",
    severity: "error",
    message: "Target '{0}' requires every property of tool '{1}' to be required, but '{2}' is optional: {3}.",
    hint: "Add the property to `required` and make it nullable (a union with `null`); the tool then treats null as absent.",
    docs: "OpenAI strict mode: \"All fields must be required\"; an optional parameter is emulated with a union type with `null` (Structured Outputs, Supported schemas).",
  },
  ProviderStrictObjectOpen: {
    code: "AL4708",
    severity: "error",
    message: "Target '{0}' requires `additionalProperties: false` on every object, but {2} in tool '{1}' is open: {3}.",
    hint: "Add `\"additionalProperties\": false` to this object.",
    docs: "Strict modes generate only the listed keys and refuse open objects (OpenAI Structured Outputs; Anthropic structured outputs, JSON Schema limitations).",
  },
  ProviderSchemaBudgetExceeded: {
    code: "AL4709",
    severity: "error",
    message: "The input schema of tool '{1}' has {2} {3}; target '{0}' allows at most {4} ({5}).",
    docs: "Strict modes compile the schema into a grammar and cap its size: nesting depth, total properties, enum values and string length (docs/providers.md).",
  },
  ProviderToolCapExceeded: {
    code: "AL4710",
    severity: "error",
    message: "Surface '{0}' starts with {1} {2}; target '{3}' allows at most {4} ({5}).",
    hint: "Set `visibility: \"deferred\"` on tools the model rarely needs: they stay callable through tool_search and leave the initial snapshot.",
    docs: "A request carries every tool of the surface's initial snapshot; the target refuses a request with more tools than its cap.",
  },
  ProviderRequestBudgetExceeded: {
    code: "AL4711",
    severity: "error",
    message: "Surface '{0}' has {1} {2}; target '{3}' allows at most {4} per request ({5}).",
    docs: "Anthropic's strict tool use limits optional and union-typed parameters across all strict schemas of one request (Schema complexity limits).",
  },
  ProviderUnknownTarget: {
    code: "AL4712",
    severity: "error",
    message: "Unknown target '{0}'.",
    docs: "`--target` and the config's `targets` take provider profile ids; docs/providers.md lists them.",
  },
  TokenBudgetExceeded: {
    code: "AL4720",
    severity: "error",
    message: "Surface '{0}' starts with {1} tokens of tool definitions ({2}), over its tokenBudget of {3}. Largest tools: {4}; the core tools take {5}.",
    hint: "Set `visibility: \"deferred\"` on the largest tools (the model finds them with tool_search when it needs them), or raise tokenBudget. A core tool the agent does not need can be removed with a `<name>: { disabled: true }` descriptor in a plugin's entry (not tool_search while tools are deferred: nothing else activates them, AL4038).",
    docs: "Every tool of the initial snapshot is sent with every request; `tokenBudget` caps what that costs (docs/providers.md, Token budgets).",
  },
  TokenBudgetUnknownSurface: {
    code: "AL4721",
    severity: "warning",
    message: "tokenBudget names surface '{0}', which this agent does not have (its surfaces: {1}).",
    docs: "tokenBudget keys are surface paths: \".\" for the root and \"subagents/<name>\" for a child; a key that matches no surface checks nothing.",
  },
});

/**
 * The codes of {@link ProviderMessages}: what `targets` and `tokenBudget` add to a compile, over
 * the whole agent's tool snapshot (`build/model-facing-checks.ts`). The language server takes
 * them for an open file from its whole-agent analysis (`editor/lsp/server.ts`).
 */
export const MODEL_FACING_CODES: ReadonlySet<string> = new Set(Object.values(ProviderMessages).map((message) => message.code));

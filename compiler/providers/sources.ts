/**
 * The pages the provider profiles were read from (issue 11 item 1: "dated and versioned, each
 * with a source note"). One place, so docs/providers.md and the profiles cite the same titles.
 * Every page was read on {@link CHECKED}; a profile changes only when someone re-reads them.
 */
import type { ProfileSource } from "./profile.js";

/** The date every source below was read. */
export const CHECKED = "2026-12-01";

export const OPENAI_STRUCTURED_OUTPUTS: ProfileSource = {
  title: "OpenAI Structured Outputs guide, 'Supported schemas'",
  url: "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas",
  checked: CHECKED,
};
export const OPENAI_FUNCTION_CALLING: ProfileSource = {
  title: "OpenAI Function calling guide, 'Strict mode'",
  url: "https://platform.openai.com/docs/guides/function-calling#strict-mode",
  checked: CHECKED,
};
export const OPENAI_API_REFERENCE: ProfileSource = {
  title: "OpenAI API reference, Chat Completions `tools` and `function.name`",
  url: "https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",
  checked: CHECKED,
};
export const ANTHROPIC_DEFINE_TOOLS: ProfileSource = {
  title: "Anthropic Tool use, 'Define tools' (`name`, `input_schema`)",
  url: "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools",
  checked: CHECKED,
};
export const ANTHROPIC_STRUCTURED_OUTPUTS: ProfileSource = {
  title: "Anthropic Structured outputs, 'JSON Schema limitations' and 'Schema complexity limits'",
  url: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations",
  checked: CHECKED,
};
export const ANTHROPIC_STRICT_TOOL_USE: ProfileSource = {
  title: "Anthropic 'Strict tool use'",
  url: "https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use",
  checked: CHECKED,
};
export const GEMINI_SCHEMA_REFERENCE: ProfileSource = {
  title: "Gemini API reference, `Schema` (a select subset of an OpenAPI 3.0 schema object)",
  url: "https://ai.google.dev/api/caching#Schema",
  checked: CHECKED,
};
export const GEMINI_SDK_TRANSFORMERS: ProfileSource = {
  title: "Google Gen AI SDK for JavaScript, src/_transformers.ts `tTool`/`processJsonSchema` (googleapis/js-genai@3440cbcb)",
  url: "https://github.com/googleapis/js-genai/blob/3440cbcb54135aafe2928cb55ed77ace49cd8cba/src/_transformers.ts",
  checked: CHECKED,
};
export const GEMINI_JSON_SCHEMA: ProfileSource = {
  title: "Gemini API Structured output, 'JSON Schema support'",
  url: "https://ai.google.dev/gemini-api/docs/structured-output#json-schema",
  checked: CHECKED,
};
export const VERTEX_FUNCTION_CALLING: ProfileSource = {
  title: "Vertex AI Function calling reference (128 declarations; function name rules)",
  url: "https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/function-calling",
  checked: CHECKED,
};
export const GEMINI_CLI_22210: ProfileSource = {
  title: "google-gemini/gemini-cli#22210 (a client sanitising schemas the Gemini API refused)",
  url: "https://github.com/google-gemini/gemini-cli/issues/22210",
  checked: CHECKED,
};
export const MCP_TOOL_NAMES: ProfileSource = {
  title: "MCP specification 2025-11-25, Server › Tools › 'Tool names'",
  url: "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
  checked: CHECKED,
};

/**
 * Token counts of tool definitions (issue 11 item 2): each tool's name, description and input
 * schema serialised as one target puts them in the request body, counted with OpenAI's
 * `o200k_base` encoding (the `gpt-tokenizer` package). For the OpenAI targets that is a count of
 * the JSON OpenAI receives; for the other targets the same encoding gives an estimate (their
 * tokenizers are not public), and every output says which it is.
 *
 * The encoding's tables are large, so they are loaded on first use ({@link loadTokenCounter}),
 * never by a compile that asks for no target and no budget.
 */
import type { JsonObject } from "../../common/json-value.js";
import type { TargetId } from "./profile.js";

/** The encoding every count uses. */
export const TOKEN_ENCODING = "o200k_base";

/** Counts the tokens of a text. */
export type TokenCounter = (text: string) => number;

/** The part of a tool a model is sent. */
export interface TokenizedTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonObject;
}

let counter: Promise<TokenCounter> | undefined;

/** Loads `gpt-tokenizer`'s o200k_base encoder once per process. */
export function loadTokenCounter(): Promise<TokenCounter> {
  counter ??= import("gpt-tokenizer/encoding/o200k_base").then((encoding) => (text: string) => encoding.countTokens(text));
  return counter;
}

/**
 * The tool as `target` puts it in a request, as compact JSON (the text that is counted):
 * OpenAI `{"type":"function","function":{"name","description","parameters"}}` (plus
 * `"strict":true` for `openai-strict`), Anthropic `{"name","description","input_schema"}`,
 * Gemini `{"name","description","parameters"|"parametersJsonSchema"}`, MCP
 * `{"name","description","inputSchema"}`.
 */
export function toolWireJson(tool: TokenizedTool, target: TargetId = "openai"): string {
  const { name, description, inputSchema } = tool;
  switch (target) {
    case "openai":
      return JSON.stringify({ type: "function", function: { name, description, parameters: inputSchema } });
    case "openai-strict":
      return JSON.stringify({ type: "function", function: { name, description, parameters: inputSchema, strict: true } });
    case "anthropic":
      return JSON.stringify({ name, description, input_schema: inputSchema });
    case "anthropic-strict":
      return JSON.stringify({ name, description, input_schema: inputSchema, strict: true });
    case "gemini":
      return JSON.stringify({ name, description, parameters: inputSchema });
    case "gemini-json-schema":
      return JSON.stringify({ name, description, parametersJsonSchema: inputSchema });
    case "mcp-2025-11-25":
      return JSON.stringify({ name, description, inputSchema });
  }
}

/** True when the count uses the target's own tokenizer (the OpenAI targets); else it is an estimate. */
export function isExactCount(target: TargetId): boolean {
  return target === "openai" || target === "openai-strict";
}

/** Words for outputs: what was counted, and whether it is an estimate. */
export function tokenCountLabel(target: TargetId = "openai"): string {
  return isExactCount(target) ? `${TOKEN_ENCODING}, the tool JSON as OpenAI receives it` : `${TOKEN_ENCODING}, an estimate for ${target}`;
}

/** Tokens per tool (in the given order) and their sum. */
export function countToolTokens(tools: readonly TokenizedTool[], count: TokenCounter, target: TargetId = "openai"): { readonly tools: readonly { readonly name: string; readonly tokens: number }[]; readonly total: number } {
  const counted = tools.map((tool) => ({ name: tool.name, tokens: count(toolWireJson(tool, target)) }));
  return { tools: counted, total: counted.reduce((sum, tool) => sum + tool.tokens, 0) };
}

/**
 * Links a core tool implementation to its catalog metadata (`../snapshot/core-catalog.ts`), so
 * names, descriptions, schemas and visibility are written once.
 */
import { ToolCallError } from "../failures.js";
import { getCoreToolSpec } from "../../contract/core-catalog.js";
import type { CoreTool } from "./types.js";

/**
 * Name, description, input schema and visibility of core tool `name`.
 * @throws Error when `name` is not in the core tool catalog (a programming error).
 */
export function pickSpec(name: string): Pick<CoreTool, "name" | "description" | "inputSchema" | "visibility"> {
  const spec = getCoreToolSpec(name);
  if (!spec) throw new Error(`"${name}" is not in the core tool catalog.`);
  return { name: spec.name, description: spec.description, inputSchema: spec.inputSchema, visibility: spec.visibility };
}

/** Reads an optional string input field; `undefined` when absent. */
export function optionalString(input: { readonly [key: string]: unknown }, key: string): string | undefined {
  const value = input[key];
  return typeof value === "string" ? value : undefined;
}

/** Reads an optional integer input field; `fallback` when absent. */
export function optionalInteger(input: { readonly [key: string]: unknown }, key: string, fallback: number): number {
  const value = input[key];
  return typeof value === "number" && Number.isFinite(value) ? Math.floor(value) : fallback;
}

/**
 * Reads a required string input field. The dispatcher validates input against the schema
 * first; this guards direct callers.
 * @throws ToolCallError `invalid_input` when the field is not a string.
 */
export function requiredString(input: { readonly [key: string]: unknown }, key: string): string {
  const value = input[key];
  if (typeof value !== "string") throw new ToolCallError("invalid_input", `input.${key} must be a string.`);
  return value;
}

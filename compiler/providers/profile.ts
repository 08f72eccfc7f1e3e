/**
 * What a provider profile is (issue 11 item 1): the rules one model API applies to the tool
 * definitions it receives, dated and with the page each rule was read from. A profile is plain
 * data plus small judging functions; `check-tool.ts` runs them and `check-targets.ts` turns
 * their findings into catalog diagnostics. Nothing here fetches anything: the rules were read
 * once, on the date each profile gives, and are re-checked by hand (docs/providers.md).
 */
import type { JsonObject } from "../../common/json-value.js";
import type { SchemaNode, SchemaPath } from "./schema-walk.js";
import { didYouMean } from "../../common/did-you-mean.js";

/** The target ids `compile --target` and the config's `targets` accept. */
export const TARGET_IDS = ["openai", "openai-strict", "anthropic", "anthropic-strict", "gemini", "gemini-json-schema", "mcp-2025-11-25"] as const;

/** One target id. */
export type TargetId = (typeof TARGET_IDS)[number];

/** True when `id` is a target id. */
export function isTargetId(id: string): id is TargetId {
  return (TARGET_IDS as readonly string[]).includes(id);
}

/** "Did you mean 'openai-strict'? Known targets: …" for an id that is not a target. */
export function unknownTargetHint(id: string): string {
  const near = didYouMean(id, TARGET_IDS);
  return `${near ? `Did you mean '${near}'? ` : ""}Known targets: ${TARGET_IDS.join(", ")}.`;
}

/**
 * The hint for a keyword a strict target refuses, so the schema must lose it: where the rule
 * goes instead. The runtime validates a call's input against the inputSchema as the lock pins
 * it (`runtime-min/execution/validate-input.ts`), the schema as written, so a removed bound is
 * enforced by nothing but the tool's own code (new-user trial 129, finding 5: the hint said "the
 * tool still validates its input at run time", and `limit: -5` reached the tool).
 */
export function removedRuleHint(keyword: string, what: "bound" | "rule" | "constraint"): string {
  return `Remove '${keyword}', state the ${what} in the description, and check it in the tool's code (throw a RecoverableToolError): the run-time input check uses the schema as written, so once '${keyword}' is gone nothing else enforces it.`;
}

/** A page a rule was read from, and when. */
export interface ProfileSource {
  readonly title: string;
  readonly url: string;
  /** ISO date the page was read for this profile. */
  readonly checked: string;
}

/**
 * How a target treats one thing it was sent:
 * - `rejected`: the API refuses the request (error, exit 1);
 * - `ignored`: accepted, but silently dropped or not enforced (warning);
 * - `transformed`: accepted only after a known rewrite, e.g. by the provider's SDK (info);
 * - `unverified`: outside the target's documented subset; what it does is not documented (warning).
 */
export type Treatment = "rejected" | "ignored" | "transformed" | "unverified";

/** The verdict on one keyword of one subschema; `undefined` means accepted as written. */
export interface KeywordVerdict {
  readonly treatment: Treatment;
  /** Why, in the target's terms ("OpenAI strict mode does not support 'allOf'"). */
  readonly reason: string;
  /** What to do instead. */
  readonly hint: string;
  /** Which source says so (a {@link ProfileSource} title). */
  readonly source: string;
}

/** A tool-name rule: the pattern a target requires (`error`) or recommends (`warning`). */
export interface NameRule {
  readonly pattern: RegExp;
  /** The rule in words ("1–64 characters of a-z, A-Z, 0-9, '_' and '-'"). */
  readonly rule: string;
  readonly severity: "error" | "warning";
  readonly source: string;
}

/** A cap on how many tools one request may carry. */
export interface ToolCap {
  readonly limit: number;
  /** `snapshot`: every tool of the initial snapshot (core and authored); `authored`: authored tools only. */
  readonly counts: "snapshot" | "authored";
  readonly what: string;
  readonly source: string;
}

/** A size budget one schema broke (depth, properties, enum values, string length). */
export interface BudgetOverrun {
  readonly path: SchemaPath;
  /** What was counted ("object properties in the schema"). */
  readonly what: string;
  readonly actual: number;
  readonly limit: number;
  readonly hint: string;
  readonly source: string;
}

/** A budget over every tool of one request that was broken. */
export interface RequestOverrun {
  readonly what: string;
  readonly actual: number;
  readonly limit: number;
  readonly hint: string;
  readonly source: string;
  /** What was counted, per tool: the schema path of each counted property, in schema order (new-user trial 129, finding 4). */
  readonly counted?: readonly { readonly tool: string; readonly paths: readonly SchemaPath[] }[];
  /** What one counted property is, for its related location ("a union-typed parameter"). */
  readonly item?: string;
}

/** The input of a request-wide check: one tool a request carries. */
export interface RequestTool {
  readonly name: string;
  readonly inputSchema: JsonObject;
}

/** One provider profile. */
export interface ProviderProfile {
  readonly id: TargetId;
  /** "OpenAI function calling (strict: true, Structured Outputs)". */
  readonly title: string;
  /** Version of this profile's rules: the date they were last read and changed. */
  readonly version: string;
  /** The pages the rules come from. */
  readonly sources: readonly ProfileSource[];
  readonly name: NameRule;
  readonly toolCap?: ToolCap;
  /** Judges one keyword of one subschema (the refused / dropped / rewritten / undocumented keywords). */
  readonly judgeKeyword?: (keyword: string, node: SchemaNode, root: JsonObject) => KeywordVerdict | undefined;
  /** Strict-mode object rules: every property required, `additionalProperties: false`. */
  readonly strictObjects?: { readonly allRequired: boolean; readonly closed: boolean; readonly source: string };
  /** Size budgets of one schema. */
  readonly schemaBudgets?: (root: JsonObject) => BudgetOverrun[];
  /** Budgets over every authored tool of one request (Anthropic's strict-mode limits). */
  readonly requestBudgets?: (tools: readonly RequestTool[]) => RequestOverrun[];
  /** Remarks for docs/providers.md: numbers that could not be confirmed, readings we chose. */
  readonly notes: readonly string[];
}

/// <reference path="./assets.d.ts" preserve="true" />
/**
 * The authoring API that plugin code imports as `@assemblyline-agents/core` (seed: "Tool
 * implementation", "Approval Gates", "Durable Steps", "Safe Model Output", "Execution Context").
 *
 * This module is bundled into every tool bundle, so it must stay dependency-free and must not
 * rely on object identity across copies: errors and policies are recognised by `Symbol.for`
 * brands, which are shared between the host's copy and a bundle's copy.
 */

/** A JSON value as tools receive and return it. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** JSON Schema object used as a tool's `inputSchema` (root must be `type: "object"`). */
export type JsonSchema = { readonly [keyword: string]: unknown };

/**
 * Side effect class of an approval-gated tool. `"external"` (the default of
 * {@link approvalRequired}) is a write outside the run; `"idempotent"` is a write that is safe
 * to repeat with the same idempotency key.
 */
export type SideEffect = "external" | "idempotent" | (string & {});

/** An always-approve policy: the call stops at `approval_required` until a host approves it. */
export interface ApprovalPolicy {
  readonly reason: string;
  readonly sideEffect: SideEffect;
}

const approvalBrand = Symbol.for("assemblyline.approvalPolicy");
const recoverableBrand = Symbol.for("assemblyline.recoverableToolError");
const toolBrand = Symbol.for("assemblyline.toolDefinition");
const pluginBrand = Symbol.for("assemblyline.pluginEntry");

/**
 * Creates an always-approve policy (seed "Approval Gates").
 *
 * @param reason shown to the person who approves the call.
 * @param sideEffect defaults to `"external"`.
 * @example
 * needsApproval: approvalRequired("Recording a note is a durable side effect.", "idempotent")
 */
export function approvalRequired(reason: string, sideEffect: SideEffect = "external"): ApprovalPolicy {
  const policy = { reason, sideEffect };
  Object.defineProperty(policy, approvalBrand, { value: true });
  return Object.freeze(policy);
}

/**
 * Thrown by a tool when model-supplied input passed the JSON schema but fails richer,
 * tool-specific validation. The call fails with `failure.kind: "invalid_input"` and the run
 * continues (seed "Tool implementation").
 *
 * @example
 * if (!input.document.endsWith("}")) throw new RecoverableToolError("Document is incomplete.");
 */
export class RecoverableToolError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RecoverableToolError";
    Object.defineProperty(this, recoverableBrand, { value: true });
  }

  /** True for any `RecoverableToolError`, including one from another bundle's copy of this module. */
  static isRecoverable(error: unknown): boolean {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[recoverableBrand] === true;
  }
}

/** A sandbox for isolated file and shell work inside the run's workspace (seed "Execution Model"). */
export interface ToolSandbox {
  /** Absolute path of the run's workspace directory inside the sandbox. */
  readonly workspace: string;
  /** Reads a workspace file as UTF-8 text. */
  readFile(path: string): Promise<string>;
  /** Reads a workspace file's exact bytes. */
  readFileBytes(path: string): Promise<Uint8Array>;
  /** Writes a workspace file (text as UTF-8, a `Uint8Array` as its exact bytes), atomically. */
  writeFile(path: string, contents: string | Uint8Array): Promise<void>;
  /** Runs a shell command in the workspace with the sandbox environment allowlist. */
  exec(command: string, options?: { readonly timeoutMs?: number }): Promise<{ stdout: string; stderr: string; exitCode: number }>;
}

/** Options of {@link ToolExecutionContext.step}. */
export interface StepOptions {
  /** JSON metadata stored with the step record (for audit; not part of the key). */
  readonly metadata?: { readonly [key: string]: JsonValue };
}

/**
 * What `execute(input, ctx)` receives (seed "Execution Context").
 */
export interface ToolExecutionContext<Config = { readonly [key: string]: JsonValue }> {
  /** The run this call belongs to. */
  readonly runId: string;
  /** The model's tool-call id (stable across retries of the same call). */
  readonly toolCallId: string;
  /** Read-only merged config plus the host's `requiredConfig` values. */
  readonly config: Readonly<Config>;
  /** Records a tool-emitted event in the run's event log, in order. */
  emit(type: string, data?: { readonly [key: string]: JsonValue }): Promise<void>;
  /**
   * A key derived from the run and tool-call id: stable across retries of this call, distinct
   * across calls and across `name`s.
   */
  idempotencyKey(name: string): string;
  /**
   * Runs `fn` once per run and `key`; later calls with the same key in the same run return the
   * persisted JSON result (and record `durable_step.replayed`) instead of running `fn`.
   * The first run also returns the JSON round-trip of the result.
   */
  step<T>(key: string, fn: () => Promise<T> | T, options?: StepOptions): Promise<T>;
  /** Isolated file/shell work in the run's workspace. */
  getSandbox(): Promise<ToolSandbox>;
}

/** A tool implementation (seed "Tool implementation"). */
export interface ToolDefinition<Input = any, Output = any, ModelOutput = unknown> {
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly needsApproval?: ApprovalPolicy;
  execute(input: Input, ctx: ToolExecutionContext): Promise<Output> | Output;
  /** The bounded projection the model sees; the full result is persisted. */
  toModelOutput?(output: Output): ModelOutput;
}

/**
 * Declares a tool implementation. Returns its argument (branded), so the module's default
 * export — or a factory's return value — is the `ToolDefinition` the runtime executes.
 *
 * @example
 * export default defineTool({
 *   description: "Echo a message back to the caller.",
 *   inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
 *   async execute(input: { message: string }) { return { message: input.message }; },
 * });
 */
export function defineTool<Input = any, Output = any, ModelOutput = unknown>(
  definition: ToolDefinition<Input, Output, ModelOutput>,
): ToolDefinition<Input, Output, ModelOutput> {
  Object.defineProperty(definition, toolBrand, { value: true });
  return definition;
}

/**
 * Side effects a descriptor's `needsApproval` may name: the built-in `"external"` (the default)
 * and `"idempotent"` (seed "Approval Gates"), offered for completion, or any other string, kept
 * as a label for the host's policy, as with {@link SideEffect} (helper-78 D4: `compile` accepted
 * `"billing"` where `tsc` refused it, TS2322). A near miss of a built-in (`"extrenal"`) is
 * warning AL4032 with "Did you mean 'external'?", from `compile` and the editor plugin.
 *
 * @example
 * needsApproval: { reason: "Charges the customer's card.", sideEffect: "billing" }
 */
export type DescriptorSideEffect = "external" | "idempotent" | (string & {});

/** The approval policy as written in a descriptor (`needsApproval: { reason, sideEffect }`). */
export interface DescriptorApproval {
  readonly reason: string;
  readonly sideEffect?: DescriptorSideEffect;
}

/** `tools.<name>` of an `ai.assemblyline` entry (DESIGN §3); read statically, never executed. */
export interface ToolDescriptor {
  /** Plugin-relative module path beginning with `./`. */
  readonly definition?: string;
  /** Named export of the definition module that returns the ToolDefinition (given the merged config). */
  readonly factory?: string;
  readonly description?: string;
  readonly inputSchema?: JsonSchema;
  /** Tool-level config defaults; the agent's capability config wins. */
  readonly config?: { readonly [key: string]: JsonValue };
  /** Names of non-secret values the host supplies at run time (read-only `ctx.config`). */
  readonly requiredConfig?: readonly string[];
  readonly visibility?: "visible" | "deferred" | "hidden";
  /** Only to remove a core default tool of the same name. */
  readonly disabled?: boolean;
  readonly tags?: readonly string[];
  readonly aliases?: readonly string[];
  readonly namespace?: string;
  readonly needsApproval?: DescriptorApproval;
}

/** The default export of an `ai.assemblyline` entry. */
export interface AssemblyLinePlugin {
  /** JSON Schema of the agent-owned options (`capabilities.<name>.config`). */
  readonly configSchema?: JsonSchema;
  readonly tools: { readonly [toolName: string]: ToolDescriptor };
}

/** `true` when `Given` has no key that `Shape` lacks. */
type HasOnlyKeysOf<Given, Shape> = [Exclude<keyof Given, keyof Shape>] extends [never] ? true : false;

/**
 * What a descriptor written as `Descriptor` is checked against: itself (so its literal types
 * are kept) while it has only known keys, else the closed {@link ToolDescriptor}, so that
 * TypeScript's excess-property check names the unknown key ("'descripton' does not exist in
 * type 'ToolDescriptor'. Did you mean to write 'description'?"). Likewise `needsApproval`.
 */
type CheckedDescriptor<Descriptor> =
  HasOnlyKeysOf<Descriptor, ToolDescriptor> extends true
    ? { [K in keyof Descriptor]: K extends "needsApproval" ? (HasOnlyKeysOf<Descriptor[K], DescriptorApproval> extends true ? Descriptor[K] : DescriptorApproval) : Descriptor[K] }
    : ToolDescriptor;

/**
 * The parameter type of {@link defineAssemblyLinePlugin} for an argument of type `Plugin`:
 * `Plugin` itself with each tool descriptor checked by {@link CheckedDescriptor}, or the closed
 * {@link AssemblyLinePlugin} when the entry has a key other than `configSchema` and `tools`.
 * It maps `Plugin`'s own keys, so TypeScript still infers `Plugin` from the argument; and
 * `Plugin extends AssemblyLinePlugin` keeps enum values (`visibility`) checked.
 */
export type CheckedAssemblyLinePlugin<Plugin> =
  HasOnlyKeysOf<Plugin, AssemblyLinePlugin> extends true
    ? { [K in keyof Plugin]: K extends "tools" ? { [Name in keyof Plugin[K]]: CheckedDescriptor<Plugin[K][Name]> } : Plugin[K] }
    : AssemblyLinePlugin;

/**
 * Wraps an `ai.assemblyline` entry's default export for type-checking. The compiler reads the
 * argument statically; at run time this returns it unchanged.
 *
 * The result keeps the argument's literal types, and `tsc` rejects what the compiler would
 * reject in the entry's shape: an unknown key in the entry, in a tool descriptor or in its
 * `needsApproval` (with TypeScript's "Did you mean to write 'description'?"), and a value
 * outside an enum (`visibility`; `needsApproval.sideEffect` takes any label, its near misses are
 * `compile`'s warning AL4032). Issue 9: before, the
 * `const T extends AssemblyLinePlugin` parameter switched excess-property checks off.
 *
 * @example
 * export default defineAssemblyLinePlugin({
 *   configSchema: { type: "object", properties: { index: { type: "string" } }, required: ["index"] },
 *   tools: { search: { definition: "./search.ts", factory: "createSearchTool", description: "…", inputSchema: { type: "object" } } },
 * });
 */
export function defineAssemblyLinePlugin<const T extends AssemblyLinePlugin>(plugin: CheckedAssemblyLinePlugin<T>): T {
  Object.defineProperty(plugin, pluginBrand, { value: true });
  return plugin as T;
}

/**
 * Runs one tool call against a loaded bundle module: resolves the ToolDefinition (default
 * export, or `factory(config)`), runs `execute(input, ctx)`, applies `toModelOutput`, and
 * classifies every failure (seed "Tool implementation", "Safe Model Output"; issue 4 item 3).
 *
 * Shared by the sandbox child and `direct` execution, so both boundaries classify alike.
 */
import { RecoverableToolError, type ToolDefinition } from "../authoring/index.js";
import { copyJson, NotJsonError, type Json } from "./json-copy.js";
import type { CallRequest, CallResponse } from "./protocol.js";
import { describeThrown, messageText } from "./thrown-message.js";
import { createToolContext, type ContextChannel } from "./tool-context.js";

/** A bundle's module namespace (its exports by name). */
export type BundleModule = { readonly [exportName: string]: unknown };

/** The outcome of one call, without the bridge's request id. */
export type CallOutcome =
  | { readonly ok: true; readonly output: Json; readonly modelOutput: Json }
  | {
      readonly ok: false;
      readonly failureKind: Extract<CallResponse, { ok: false }>["failureKind"];
      readonly error: string;
      /** Where an unexpected throw came from (for the host's log; never shown to the model). */
      readonly stack?: string;
      /**
       * The tool's full result when `execute` succeeded and only `toModelOutput` failed: the
       * runtime persists it (seed "Safe Model Output": the full result is persisted), the model
       * sees only the error.
       */
      readonly output?: Json;
      /** The size of a result refused over `maxResultBytes` (the host words `error` for the call's surface). */
      readonly resultBytes?: number;
      /** The sandbox process found the bundle's copy changed and imported nothing (`CallResponse.copyChanged`). */
      readonly copyChanged?: true;
    };

/** What running a definition takes of a call: all of it but the copy's identity, which only the sandbox process checks (direct mode has none to check). */
export type DefinitionRequest = Omit<CallRequest, "bundleIdentity">;

class ConfigurationFailure extends Error {}

/**
 * Caches resolved definitions per tool, factory and config, so a factory runs once per warm
 * process rather than once per call. Failed resolutions are not cached (the next call retries).
 */
export class DefinitionCache {
  /** By bundle, tool and factory (a NUL-joined key): the config's JSON and its definition. */
  private readonly resolved = new Map<string, { readonly config: string; readonly definition: ToolDefinition }>();
  /**
   * The last request resolved and its definition: a call with the same strings and the same
   * factory config object (one per tool in the host and the child) skips the key and the JSON
   * of the config (issue 14 item 2).
   */
  private last: (Pick<CallRequest, "bundlePath" | "toolName" | "factory" | "factoryConfig"> & { readonly definition: ToolDefinition }) | undefined;

  /** Resolves the definition of `request` from `module`; throws {@link ConfigurationFailure}. */
  async resolve(module: BundleModule, request: DefinitionRequest): Promise<ToolDefinition> {
    const last = this.last;
    if (
      last &&
      last.factoryConfig === request.factoryConfig &&
      last.toolName === request.toolName &&
      last.bundlePath === request.bundlePath &&
      last.factory === request.factory
    ) {
      return last.definition;
    }
    const definition = await this.resolveByKey(module, request);
    const { bundlePath, toolName, factory, factoryConfig } = request;
    this.last = { bundlePath, toolName, factory, factoryConfig, definition };
    return definition;
  }

  private async resolveByKey(module: BundleModule, request: DefinitionRequest): Promise<ToolDefinition> {
    const key = `${request.bundlePath}\u0000${request.toolName}\u0000${request.factory ?? ""}`;
    const config = request.factory === undefined ? "" : JSON.stringify(request.factoryConfig);
    const cached = this.resolved.get(key);
    if (cached && cached.config === config) return cached.definition;
    const definition = await resolveDefinition(module, request);
    this.resolved.set(key, { config, definition });
    return definition;
  }
}

/**
 * Executes `request` with `module` and returns its outcome; never throws.
 *
 * Classification: a missing export, a factory that throws or returns no ToolDefinition, and a
 * definition that asks for approval the lock does not record are `configuration_error`;
 * `RecoverableToolError` is `invalid_input`; any other throw, a result (or model output) that
 * is not JSON, and a throwing `toModelOutput` are `execution_error`.
 */
export async function executeDefinition(module: BundleModule, request: DefinitionRequest, cache: DefinitionCache, channel: ContextChannel): Promise<CallOutcome> {
  let definition: ToolDefinition;
  try {
    definition = await cache.resolve(module, request);
  } catch (error) {
    const cause: unknown = error instanceof ConfigurationFailure ? error.cause : undefined;
    const stack = cause === undefined ? undefined : stackOf(cause);
    return { ok: false, failureKind: "configuration_error", error: messageOf(error), ...(stack ? { stack } : {}) };
  }
  const drift = approvalDrift(definition, request);
  if (drift) return { ok: false, failureKind: "configuration_error", error: drift };
  const context = createToolContext(
    { runId: request.runId, toolCallId: request.toolCallId, config: request.ctxConfig, workspace: request.workspace },
    channel,
  );
  let result: unknown;
  try {
    // The input is already a private copy: parsed from the envelope, or copied by the host.
    result = await definition.execute(request.input, context);
  } catch (error) {
    if (RecoverableToolError.isRecoverable(error)) return { ok: false, failureKind: "invalid_input", error: messageOf(error) };
    const stack = stackOf(error);
    // With its causes: `fetch` throws "fetch failed" and keeps the reason in `cause` (helper-78 D3).
    return { ok: false, failureKind: "execution_error", error: describeThrown(error), ...(stack ? { stack } : {}) };
  }
  return projectResult(definition, request.toolName, result);
}

async function projectResult(definition: ToolDefinition, toolName: string, result: unknown): Promise<CallOutcome> {
  let output: Json;
  try {
    output = copyJson(result, "result");
  } catch (error) {
    return { ok: false, failureKind: "execution_error", error: `Tool '${toolName}' returned a value that is not JSON: ${messageOf(error)}` };
  }
  if (typeof definition.toModelOutput !== "function") return { ok: true, output, modelOutput: output };
  try {
    const projected: unknown = await definition.toModelOutput(copyJson(output, "result"));
    return { ok: true, output, modelOutput: copyJson(projected, "model output") };
  } catch (error) {
    const what = error instanceof NotJsonError ? "returned a value that is not JSON" : "threw";
    return { ok: false, failureKind: "execution_error", error: `toModelOutput of tool '${toolName}' ${what}: ${error instanceof NotJsonError ? messageOf(error) : describeThrown(error)}`, output };
  }
}

async function resolveDefinition(module: BundleModule, request: DefinitionRequest): Promise<ToolDefinition> {
  const where = `the bundle of tool '${request.toolName}'`;
  if (request.factory === undefined) {
    if (!("default" in module) || module.default === undefined) {
      throw new ConfigurationFailure(`${capitalize(where)} has no default export; the module must \`export default defineTool({...})\` or the descriptor must name a factory.`);
    }
    return checkDefinition(module.default, `The default export of ${where}`);
  }
  const factory = module[request.factory];
  if (factory === undefined) {
    const named = Object.keys(module).filter((name) => name !== "default").sort();
    const available = named.length > 0 ? ` It exports: ${named.join(", ")}.` : "";
    throw new ConfigurationFailure(`${capitalize(where)} has no export '${request.factory}' (the descriptor's factory).${available}`);
  }
  if (typeof factory !== "function") throw new ConfigurationFailure(`The factory '${request.factory}' of tool '${request.toolName}' is not a function.`);
  let produced: unknown;
  try {
    produced = await (factory as (config: unknown) => unknown)(copyJson(request.factoryConfig, "config"));
  } catch (error) {
    // The factory's own error is the cause: its stack goes to the event log (helper-75: a throwing
    // factory left no stack, where a throwing execute did).
    throw new ConfigurationFailure(`The factory '${request.factory}' of tool '${request.toolName}' threw: ${describeThrown(error)}`, { cause: error });
  }
  return checkDefinition(produced, `The value returned by factory '${request.factory}' of tool '${request.toolName}'`);
}

function checkDefinition(value: unknown, what: string): ToolDefinition {
  if (value === null || typeof value !== "object" || typeof (value as { execute?: unknown }).execute !== "function") {
    throw new ConfigurationFailure(`${what} is not a ToolDefinition (an object with an execute function, as defineTool({...}) returns).`);
  }
  return value as ToolDefinition;
}

function approvalDrift(definition: ToolDefinition, request: DefinitionRequest): string | undefined {
  const policy = definition.needsApproval as { reason?: unknown } | undefined;
  if (request.approval !== "none" || policy === undefined || policy === null) return undefined;
  const reason = typeof policy.reason === "string" ? ` ("${policy.reason}")` : "";
  return `The implementation of tool '${request.toolName}' asks for approval${reason}, but the locked contract has no approval policy, so the call was not run. Recompile so plugins.lock records the policy.`;
}

/**
 * The outcome of a bundle whose `import()` failed. A bundle that cannot be loaded at all (a
 * syntax error, a missing file: the artifact is broken) is a `configuration_error`; a bundle
 * whose own top-level code threw is the tool's code failing, so an `execution_error` like any
 * other throw (issue 4: configuration_error covers missing requiredConfig, a throwing factory
 * and a missing export; "any other throw" is execution_error). An agent path with a backslash,
 * which no file URL Node loads can name, is a `configuration_error` that says so.
 */
export function bundleLoadFailure(error: unknown, toolName: string): CallOutcome {
  const code = (error as { code?: unknown } | null)?.code;
  if (/%5C/i.test(messageOf(error))) {
    // pathToFileURL writes a backslash of a POSIX path as %5C, which Node's ES module loader
    // refuses (ERR_INVALID_MODULE_SPECIFIER; a loader hook may say ERR_MODULE_NOT_FOUND).
    return {
      ok: false,
      failureKind: "configuration_error",
      error: `Loading the bundle of tool '${toolName}' failed: the agent's path has a backslash (\\), which Node's module loader refuses in a file URL. Move the agent to a folder whose path has none.`,
    };
  }
  if (error instanceof SyntaxError || code === "ERR_MODULE_NOT_FOUND" || code === "ENOENT") {
    return { ok: false, failureKind: "configuration_error", error: `Loading the bundle of tool '${toolName}' failed: ${messageOf(error)}` };
  }
  const stack = stackOf(error);
  return { ok: false, failureKind: "execution_error", error: `The bundle of tool '${toolName}' threw while loading: ${describeThrown(error)}`, ...(stack ? { stack } : {}) };
}

/**
 * The message of anything thrown: `Error.message`, a string as is, anything else as JSON; without
 * its causes (those are `describeThrown`'s, for what a tool threw).
 */
export function messageOf(error: unknown): string {
  return messageText(error);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The first lines of an error's stack (bundle paths and lines), or `undefined` without one. Only
 * the tool's own frames are kept: the runtime's frames below them (`executeDefinition`,
 * `runCall`, in the sandbox child's `[eval1]` or the host's module) and Node's own
 * (`node:internal/…`, its module loader for a bundle that throws while loading) say nothing
 * about the tool and were shown as if they were its (helper-75's trial, K3).
 */
function stackOf(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  if (typeof stack !== "string") return undefined;
  const own = runtimeFile();
  const lines: string[] = [];
  for (const line of stack.split("\n")) {
    if (!FRAME.test(line)) {
      lines.push(line);
      continue;
    }
    const file = frameFile(line);
    // The first of the runtime's frames: every frame below it is the runtime calling the tool.
    if (own !== undefined && file === own) break;
    if (file?.startsWith("node:internal/")) continue;
    lines.push(line);
  }
  return lines.slice(0, 12).join("\n");
}

/** A frame line of a V8 stack (`    at f (file:1:2)`, `    at file:1:2`). */
const FRAME = /^\s+at /;

/** The file a V8 frame line names (`file:///…/[eval1]`, `node:internal/…`), without line and column. */
function frameFile(line: string): string | undefined {
  const match = /\(([^()]*):\d+:\d+\)$/.exec(line) ?? /^\s+at (?:async )?([^\s()]*):\d+:\d+$/.exec(line);
  return match?.[1];
}

let ownFile: string | undefined | null = null;

/**
 * The file the runtime's own code runs from, as V8 names it in a frame: the sandbox child's
 * evaluated script (`…/workspace/[eval1]`), the host bundle, or this module in `dist/`. Read
 * from a stack made here, since a bundle renames where this code lives.
 */
function runtimeFile(): string | undefined {
  if (ownFile === null) {
    const here = new Error().stack?.split("\n").find((line) => FRAME.test(line));
    ownFile = here === undefined ? undefined : frameFile(here);
  }
  return ownFile;
}

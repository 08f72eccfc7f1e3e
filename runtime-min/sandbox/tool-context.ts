/**
 * Builds the `ctx` a tool's `execute(input, ctx)` receives (seed "Execution Context", "Durable
 * Steps", "Approval Gates"). The same code serves the sandbox child and `direct` execution;
 * only the {@link ContextChannel} differs (bridge requests vs. direct host calls), so a tool
 * behaves the same under either boundary.
 */
import { createRequire } from "node:module";
import type { JsonValue, StepOptions, ToolExecutionContext, ToolSandbox } from "../authoring/index.js";
import { copyJson, type Json } from "./json-copy.js";
import { eventTypeProblem } from "./event-type.js";
import type { ContextOperation, StepLookup, StepRecorded } from "./protocol.js";

/** Sends one `ctx` operation to the host and resolves with its answer (rejects with its error). */
export interface ContextChannel {
  request(operation: ContextOperation): Promise<Json | undefined>;
}

/** What identifies the call a context belongs to. */
export interface ContextIdentity {
  readonly runId: string;
  readonly toolCallId: string;
  /** Effective config plus the host's `requiredConfig` values. */
  readonly config: { readonly [key: string]: Json };
  /** Absolute path of the run's workspace. */
  readonly workspace: string;
}

let loadedCrypto: typeof import("node:crypto") | undefined;

/**
 * `node:crypto`, loaded on the first idempotency key: the sandbox child runs under a V8 flag
 * (its heap limit) that makes V8 refuse Node's embedded code cache, so every built-in module it
 * loads is compiled from source, and `node:crypto` costs about 4 ms of each sandbox process's
 * start (issue 14 item 3, docs/performance.md).
 */
function nodeCrypto(): typeof import("node:crypto") {
  return (loadedCrypto ??= createRequire(import.meta.url)("node:crypto") as typeof import("node:crypto"));
}

/**
 * The idempotency key of `name` within a tool call: a SHA-256 over the run id, the tool-call
 * id and the name (base64url, prefixed `idem_`). Stable across retries of the same call,
 * distinct across calls, runs and names (seed "Approval Gates": "derived from the tool-call id").
 */
export function deriveIdempotencyKey(runId: string, toolCallId: string, name: string): string {
  const { createHash } = nodeCrypto();
  const digest = createHash("sha256").update(JSON.stringify(["assemblyline.idempotency.v1", runId, toolCallId, name])).digest("base64url");
  return `idem_${digest}`;
}

/**
 * The read-only `ctx.config` made from each config object: a deep-frozen copy, made once per
 * object rather than once per call (issue 14 item 2). The host and the sandbox child keep one
 * config object per tool, and a frozen copy can be shared by calls, since none can change it.
 */
const frozenConfigs = new WeakMap<object, { readonly [key: string]: JsonValue }>();

/** Creates the context of one call. */
export function createToolContext(identity: ContextIdentity, channel: ContextChannel): ToolExecutionContext {
  let config = frozenConfigs.get(identity.config);
  if (!config) {
    config = deepFreeze(copyJson(identity.config, "ctx.config")) as { readonly [key: string]: JsonValue };
    frozenConfigs.set(identity.config, config);
  }
  const context: ToolExecutionContext = {
    runId: identity.runId,
    toolCallId: identity.toolCallId,
    config,
    emit: (type, data) => emitEvent(channel, type, data),
    idempotencyKey(name: string): string {
      if (typeof name !== "string") throw new TypeError("ctx.idempotencyKey(name) needs a string name.");
      return deriveIdempotencyKey(identity.runId, identity.toolCallId, name);
    },
    step: (key, fn, options) => runStep(channel, key, fn, options),
    getSandbox: async () => createSandbox(channel, identity.workspace),
  };
  return Object.freeze(context);
}

async function emitEvent(channel: ContextChannel, type: string, data: unknown): Promise<void> {
  // One rule with the host's check of the bridge message (`./event-type.ts`).
  const problem = eventTypeProblem(type);
  if (problem !== undefined) throw typeof type === "string" && type !== "" ? new Error(problem) : new TypeError(problem);
  const copied = data === undefined ? {} : copyJson(data, "event data");
  if (copied === null || typeof copied !== "object" || Array.isArray(copied)) throw new TypeError("ctx.emit(type, data): data must be a plain object.");
  if (Object.prototype.hasOwnProperty.call(copied, "type")) throw new Error("ctx.emit(type, data): data cannot have a 'type' key; the event's type is the first argument.");
  await channel.request({ op: "emit", type, data: copied });
}

async function runStep<T>(channel: ContextChannel, key: string, fn: () => Promise<T> | T, options: StepOptions | undefined): Promise<T> {
  if (typeof key !== "string" || key === "") throw new TypeError("ctx.step(key, fn) needs a non-empty string key.");
  if (typeof fn !== "function") throw new TypeError("ctx.step(key, fn) needs a function to run.");
  const found = (await channel.request({ op: "step.lookup", key })) as StepLookup | undefined;
  if (found?.found) return found.value as T;
  const metadata = options?.metadata === undefined ? undefined : copyJson(options.metadata, "step metadata");
  if (metadata !== undefined && (metadata === null || typeof metadata !== "object" || Array.isArray(metadata))) {
    throw new TypeError("ctx.step(key, fn, { metadata }): metadata must be a plain object.");
  }
  const result = await fn();
  // `undefined` is a valid step result (a step run for its side effect) and replays as undefined.
  const value = result === undefined ? undefined : copyJson(result, `step '${key}' result`);
  const recorded = (await channel.request({ op: "step.record", key, value, metadata: metadata as { [key: string]: Json } | undefined })) as StepRecorded;
  // The host sends the stored value back only when it is not the one sent (`StepRecorded`).
  return (recorded.kept ? value : recorded.value) as T;
}

function createSandbox(channel: ContextChannel, workspace: string): ToolSandbox {
  return Object.freeze({
    workspace,
    async readFile(filePath: string): Promise<string> {
      if (typeof filePath !== "string") throw new TypeError("sandbox.readFile(path) needs a string path.");
      return (await channel.request({ op: "sandbox.readFile", path: filePath })) as string;
    },
    async readFileBytes(filePath: string): Promise<Uint8Array> {
      if (typeof filePath !== "string") throw new TypeError("sandbox.readFileBytes(path) needs a string path.");
      const base64 = (await channel.request({ op: "sandbox.readFileBytes", path: filePath })) as string;
      return new Uint8Array(Buffer.from(base64, "base64"));
    },
    async writeFile(filePath: string, contents: string | Uint8Array): Promise<void> {
      if (typeof filePath !== "string" || (typeof contents !== "string" && !(contents instanceof Uint8Array))) {
        throw new TypeError("sandbox.writeFile(path, contents) needs a string path and string or Uint8Array contents.");
      }
      if (typeof contents === "string") await channel.request({ op: "sandbox.writeFile", path: filePath, contents });
      else await channel.request({ op: "sandbox.writeFile", path: filePath, base64: Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength).toString("base64") });
    },
    async exec(command: string, options?: { readonly timeoutMs?: number }) {
      if (typeof command !== "string") throw new TypeError("sandbox.exec(command) needs a string command.");
      return (await channel.request({ op: "sandbox.exec", command, timeoutMs: options?.timeoutMs })) as { stdout: string; stderr: string; exitCode: number };
    },
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object") {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

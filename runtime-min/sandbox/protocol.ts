/**
 * Messages of the file-backed bridge between the host and a sandbox child (seed "Execution
 * Model": "The file-backed bridge publishes live request and response envelopes with atomic
 * replacement").
 *
 * Every message is one JSON envelope, sent as an inline frame or as a file (see `./bridge.ts`).
 * Ids are unique per bridge and per direction. This module imports types only, so the
 * sandbox child can bundle it.
 */
import type { CopyIdentity } from "../artifact/copy-identity.js";
import type { Json } from "./json-copy.js";

/** What the child needs to run one tool call. Host → child. */
export interface CallRequest {
  readonly kind: "call";
  /** Request id; the child answers with a {@link CallResponse} of the same id. */
  readonly id: number;
  readonly runId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  /** Absolute path of the verified bundle copy to import. */
  readonly bundlePath: string;
  /**
   * The file the host hashed at `bundlePath` (`../artifact/copy-identity.ts`): the child imports
   * the copy only when the file it finds there has this identity (security trial 128, HIGH 3).
   */
  readonly bundleIdentity: CopyIdentity;
  /** Named export to call with `factoryConfig`; absent means the default export is the tool. */
  readonly factory?: string;
  /** The tool's effective config (`{ ...descriptor.config, ...capabilityConfig }`). */
  readonly factoryConfig: { readonly [key: string]: Json };
  /** Effective config plus the host's `requiredConfig` values: becomes read-only `ctx.config`. */
  readonly ctxConfig: { readonly [key: string]: Json };
  readonly input: Json;
  /**
   * `"granted"` when the locked policy gated the call and a host approved it; `"none"` when the
   * locked contract has no approval policy. A definition that asks for approval while the lock
   * does not is refused (drift), so a stale lock never lets a gated side effect run unapproved.
   */
  readonly approval: "none" | "granted";
  /** Absolute path of the run's workspace (`ctx.getSandbox().workspace`). */
  readonly workspace: string;
}

/**
 * The fields of a {@link CallRequest} that stay the same from call to call of one tool in one
 * sandbox process (its run, bundle, configs and workspace). The host sends them once, with the
 * first call that needs them, under a number later calls name ({@link CallMessage}; issue 14
 * item 2: about 300 bytes of JSON less to write, read and parse per call).
 */
export type CallSetup = Pick<CallRequest, "runId" | "toolName" | "bundlePath" | "bundleIdentity" | "factory" | "factoryConfig" | "ctxConfig" | "workspace">;

/**
 * How many {@link CallSetup}s each side keeps. Both sides add a setup when it is sent and drop
 * the oldest beyond this many, in the same order (messages arrive in the order sent), so the
 * host only ever names a setup the child still holds.
 */
export const MAX_CALL_SETUPS = 32;

/** A call as it crosses the bridge. Host → child. */
export interface CallMessage {
  readonly kind: "call";
  /** Request id; the child answers with a {@link CallResponse} of the same id. */
  readonly id: number;
  /** The number of the call's {@link CallSetup}. */
  readonly setup: number;
  /** The setup itself, on the first call that names this number. */
  readonly setupFields?: CallSetup;
  readonly toolCallId: string;
  readonly input: Json;
  readonly approval: "none" | "granted";
}

/** The result of one call. Child → host. */
export type CallResponse =
  | {
      readonly kind: "result";
      readonly id: number;
      readonly ok: true;
      /** The full result (persisted). */
      readonly output: Json;
      /** What the model sees: `toModelOutput(output)`; absent when it is `output` itself (no `toModelOutput`). */
      readonly modelOutput?: Json;
    }
  | {
      readonly kind: "result";
      readonly id: number;
      readonly ok: false;
      readonly failureKind: "invalid_input" | "configuration_error" | "execution_error";
      readonly error: string;
      /** Stack of an unexpected throw (execution_error) or of a throwing factory (configuration_error), for the host's event log only. */
      readonly stack?: string;
      /** The tool's full result when only `toModelOutput` failed: persisted, never shown to the model. */
      readonly output?: Json;
      /** The size of a result refused over `maxResultBytes`: the host words the refusal for the call's surface. */
      readonly resultBytes?: number;
      /**
       * True when the child did not import the bundle because the file it found at `bundlePath`
       * is not the one the host hashed (`CallRequest.bundleIdentity`): the host refuses the call
       * with AL8012 and ends the process (security trial 128, HIGH 3).
       */
      readonly copyChanged?: true;
    };

/**
 * The longest `error` or `stack` of a failed {@link CallResponse}, in UTF-16 code units: the
 * child cuts a longer one ({@link clipFailureText}), and the host refuses a message with a longer
 * one as a protocol break (`./child-message-check.ts`).
 */
export const MAX_FAILURE_TEXT_CHARS = 64 * 1024;

/** `text` cut to {@link MAX_FAILURE_TEXT_CHARS}, with a note saying so when it was longer. */
export function clipFailureText(text: string): string {
  if (text.length <= MAX_FAILURE_TEXT_CHARS) return text;
  const note = ` … (${text.length - MAX_FAILURE_TEXT_CHARS + 64} more characters cut)`;
  return `${text.slice(0, MAX_FAILURE_TEXT_CHARS - 64)}${note}`.slice(0, MAX_FAILURE_TEXT_CHARS);
}

/** The `ctx` operations a tool can ask the host for (seed "Execution Context"). */
export type ContextOperation =
  | { readonly op: "emit"; readonly type: string; readonly data: { readonly [key: string]: Json } }
  | { readonly op: "step.lookup"; readonly key: string }
  | { readonly op: "step.record"; readonly key: string; readonly value: Json | undefined; readonly metadata: { readonly [key: string]: Json } | undefined }
  | { readonly op: "sandbox.readFile"; readonly path: string }
  /** Answered with the file's bytes in base64 (envelopes are JSON). */
  | { readonly op: "sandbox.readFileBytes"; readonly path: string }
  /** `contents` is UTF-8 text; `base64` carries exact bytes (a `Uint8Array`). */
  | { readonly op: "sandbox.writeFile"; readonly path: string; readonly contents: string }
  | { readonly op: "sandbox.writeFile"; readonly path: string; readonly base64: string }
  | { readonly op: "sandbox.exec"; readonly command: string; readonly timeoutMs: number | undefined };

/** A `ctx` request made during call `callId`. Child → host. */
export interface ContextRequest {
  readonly kind: "ctx";
  readonly id: number;
  /** Id of the {@link CallRequest} this request belongs to. */
  readonly callId: number;
  readonly operation: ContextOperation;
}

/** The answer to a {@link ContextRequest}. Host → child. */
export type ContextResponse =
  | { readonly kind: "ctx_result"; readonly id: number; readonly ok: true; readonly value: Json | undefined }
  /** A refused or failed ctx operation: its message, and Node's error `code` (`"ENOENT"`…) when the failure had one. */
  | { readonly kind: "ctx_result"; readonly id: number; readonly ok: false; readonly error: string; readonly code?: string };

/** Sent once by the child when it is ready for calls. Child → host. */
export interface ReadyMessage {
  readonly kind: "ready";
  readonly pid: number;
}

/** Every message the host sends. */
export type HostMessage = CallMessage | ContextResponse;
/** Every message the child sends. */
export type ChildMessage = CallResponse | ContextRequest | ReadyMessage;

/**
 * Answer of `step.record`: `kept: true` when the value sent is the one stored (it is not sent
 * back: up to `maxResultBytes` of JSON the child already holds), else the value stored first
 * for the key (a racing duplicate won).
 */
export type StepRecorded = { readonly kept: true } | { readonly kept: false; readonly value?: Json };

/** Answer of `step.lookup`: the persisted value, or `found: false`. */
export type StepLookup = { readonly found: true; readonly value: Json | undefined } | { readonly found: false };

/**
 * True for the `ctx.getSandbox()` file exchanges (read or write a workspace file): their
 * requests and answers always travel as file envelopes published by atomic replacement, never
 * inline on the socket (seed "Execution Model"; issue 14 item 2; see `./bridge.ts`).
 */
export function exchangesFileContents(operation: ContextOperation): boolean {
  return operation.op === "sandbox.readFile" || operation.op === "sandbox.readFileBytes" || operation.op === "sandbox.writeFile";
}

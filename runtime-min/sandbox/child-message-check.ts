/**
 * The host's check of every message a sandbox child sends (helper-89's review of 6 December,
 * finding 4). Tool code runs in the child's process and can write its own frames on the bridge
 * socket, skipping every check the child's `ctx` (`./tool-context.ts`) and result code
 * (`./execute-definition.ts`, `./json-copy.ts`) make. So the host trusts nothing of a message's
 * shape: a message that no well-behaved child sends is a protocol break (the worker stops the
 * process and the call fails with `execution_error`; the run continues), never a forged audit
 * record, an impossible failure kind, nor a state-store failure that ends the run.
 *
 * What a message must be, by kind (`./protocol.ts`):
 * - `result`: a whole-number id; `ok: true` with an `output`; `ok: false` with a `failureKind`
 *   of the seed's three, an `error` string of at most {@link MAX_FAILURE_TEXT_CHARS}, and a
 *   `stack`, when present, likewise;
 * - `ctx`: whole-number ids and a known operation with fields of the right types; an `emit`'s
 *   type follows the one rule of `./event-type.ts`, and its data is a plain object without a
 *   `type` key; a step key is a non-empty string, its metadata a plain object;
 * - every JSON value it carries (output, model output, event data, step value and metadata) is
 *   nested at most {@link MAX_JSON_DEPTH} levels (`./json-copy.ts`), so the host can serialise it.
 *
 * Sizes are bounded elsewhere: the frame or envelope by the worker, an event by `maxEventBytes`,
 * a step and the run's stored state by the call session.
 */
import { eventTypeProblem } from "./event-type.js";
import { MAX_JSON_DEPTH, nestedDeeperThan } from "./json-copy.js";
import { MAX_FAILURE_TEXT_CHARS } from "./protocol.js";

/** The failure kinds a child may report (seed "Tool implementation"). */
const FAILURE_KINDS: ReadonlySet<unknown> = new Set(["invalid_input", "configuration_error", "execution_error"]);

type Fields = { readonly [key: string]: unknown };

/**
 * Why `message` (a parsed, non-null object from a sandbox child) is not a message a
 * well-behaved child sends — a phrase for the protocol-break error — or `undefined` when it is one.
 */
export function childMessageProblem(message: Fields): string | undefined {
  switch (message.kind) {
    case "result":
      return resultProblem(message);
    case "ctx":
      return contextRequestProblem(message);
    case "ready":
      return undefined;
    default:
      return `it sent a message of kind ${describe(message.kind)}, which a sandbox process never sends`;
  }
}

function resultProblem(message: Fields): string | undefined {
  if (!Number.isSafeInteger(message.id)) return `it sent a result whose id is ${describe(message.id)}, not a whole number`;
  if (message.ok === true) {
    if (message.output === undefined) return "it sent an ok result without output";
    return jsonProblem(message.output, "the result's output") ?? (message.modelOutput === undefined ? undefined : jsonProblem(message.modelOutput, "the result's model output"));
  }
  if (message.ok !== false) return `it sent a result whose ok is ${describe(message.ok)}, not true or false`;
  if (!FAILURE_KINDS.has(message.failureKind)) return `it sent a failed result whose failureKind is ${describe(message.failureKind)}, not invalid_input, configuration_error or execution_error`;
  const error = textProblem(message.error, "error");
  if (error !== undefined) return error;
  if (message.stack !== undefined) {
    const stack = textProblem(message.stack, "stack");
    if (stack !== undefined) return stack;
  }
  return message.output === undefined ? undefined : jsonProblem(message.output, "the failed result's output");
}

function contextRequestProblem(message: Fields): string | undefined {
  if (!Number.isSafeInteger(message.id) || !Number.isSafeInteger(message.callId)) return `it sent a ctx request whose id or call id is no whole number`;
  const operation = message.operation;
  if (!isPlainObject(operation)) return "it sent a ctx request without an operation object";
  switch (operation.op) {
    case "emit": {
      const typeProblem = eventTypeProblem(operation.type);
      if (typeProblem !== undefined) return `it sent an emit the child's ctx.emit refuses: ${typeProblem}`;
      if (!isPlainObject(operation.data)) return `it sent an emit whose data is ${describe(operation.data)}, not a plain object`;
      if (Object.prototype.hasOwnProperty.call(operation.data, "type")) return "it sent an emit whose data has a 'type' key, which would mask the event's type";
      return jsonProblem(operation.data, "the event's data");
    }
    case "step.lookup":
      return stepKeyProblem(operation.key);
    case "step.record":
      return (
        stepKeyProblem(operation.key) ??
        (operation.value === undefined ? undefined : jsonProblem(operation.value, "the step's value")) ??
        (operation.metadata === undefined
          ? undefined
          : isPlainObject(operation.metadata)
            ? jsonProblem(operation.metadata, "the step's metadata")
            : `it sent step metadata that is ${describe(operation.metadata)}, not a plain object`)
      );
    case "sandbox.readFile":
    case "sandbox.readFileBytes":
      return typeof operation.path === "string" ? undefined : "it sent a file request whose path is no string";
    case "sandbox.writeFile":
      return typeof operation.path === "string" && (typeof operation.contents === "string" || typeof operation.base64 === "string")
        ? undefined
        : "it sent a file write whose path or contents is no string";
    case "sandbox.exec":
      return typeof operation.command === "string" ? undefined : "it sent a shell command that is no string";
    default:
      return `it sent a ctx request for the unknown operation ${describe(operation.op)}`;
  }
}

function stepKeyProblem(key: unknown): string | undefined {
  return typeof key === "string" && key !== "" ? undefined : `it sent a step key that is ${describe(key)}, not a non-empty string`;
}

function textProblem(text: unknown, name: string): string | undefined {
  if (typeof text !== "string") return `it sent a failed result whose ${name} is ${describe(text)}, not a string`;
  return text.length > MAX_FAILURE_TEXT_CHARS ? `it sent a failed result whose ${name} is ${text.length} characters long, over ${MAX_FAILURE_TEXT_CHARS}` : undefined;
}

function jsonProblem(value: unknown, what: string): string | undefined {
  return nestedDeeperThan(value, MAX_JSON_DEPTH) ? `${what} is nested deeper than ${MAX_JSON_DEPTH} levels of objects and arrays` : undefined;
}

function isPlainObject(value: unknown): value is Fields {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A short, escaped description of an untrusted value for a message (never its whole text). */
function describe(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  }
  return Array.isArray(value) ? "an array" : "an object";
}

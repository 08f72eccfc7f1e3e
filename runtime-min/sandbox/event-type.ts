/**
 * The one rule for the type of an event a tool records with `ctx.emit(type, data)` (seed
 * "Execution Context"; DESIGN §7): a non-empty string, without control characters (an event
 * type is printed by `call`, and a terminal escape in it could rewrite what the operator reads:
 * helper-89's review of 6 December, finding 6), and not under a prefix the runtime owns (it would
 * forge the audit log). The sandbox child's `ctx.emit` (`./tool-context.ts`) refuses such a type
 * for the tool, and the host (`./child-message-check.ts`) refuses a bridge message carrying one,
 * which only a tool writing its own frames can send. This module imports nothing, so the child can bundle it.
 */

/** Event type prefixes the runtime owns; a tool cannot emit them (they would forge the audit log). */
export const RESERVED_EVENT_PREFIXES: readonly string[] = ["tool.", "durable_step.", "run."];

/** C0 controls, DEL and C1 controls. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Why `type` cannot be the type of a tool's event — a sentence for the tool's error — or
 * `undefined` when it can.
 */
export function eventTypeProblem(type: unknown): string | undefined {
  if (typeof type !== "string" || type === "") return "ctx.emit(type, data) needs a non-empty string event type.";
  // First, so the messages below never quote a control character.
  if (CONTROL_CHARACTER.test(type)) return `ctx.emit cannot record ${JSON.stringify(type)}: an event type cannot hold control characters.`;
  const reserved = RESERVED_EVENT_PREFIXES.find((prefix) => type.startsWith(prefix));
  if (reserved !== undefined) return `ctx.emit cannot record '${type}': event types starting with '${reserved}' are recorded by the runtime itself. Use your own prefix, e.g. 'note.recorded'.`;
  return undefined;
}

/**
 * Durable steps (seed, "Durable Steps"): `ctx.step(key, fn)` runs `fn` once per run and key.
 * The sandbox asks the host whether the step was recorded (`step.lookup`): a recorded step is
 * replayed from the state database (`durable_step.replayed`) and `fn` does not run again;
 * otherwise the sandbox runs `fn` and asks the host to record its value (`step.record`,
 * `durable_step.recorded`). The step row and its event commit together, so a stored step always
 * has its audit record. Keys are per run, so a retried call replays the steps it completed, and
 * within the run per plugin (`stepScope`: the surface and capability of the calling tool), so a
 * plugin never sees another's steps.
 */
import type { Json } from "../sandbox/json-copy.js";
import type { StateStore } from "../state/state-store.js";

/**
 * What the steps need of the call's session (`CallSession` implements it): its identity, its
 * guarded reads and commits (a state-store failure ends the run), and runtime events.
 */
export interface StepSession {
  readonly identity: { readonly runId: string; readonly callId: string; readonly tool: string };
  /** The calling tool's step scope (`stepScope`); throws when the call runs no authored tool. */
  readonly stepScope: string;
  guard<T>(action: () => T): T;
  persist<T>(what: string, action: () => T): T;
  recordRuntime(type: string, data?: { readonly [key: string]: Json }): void;
}

/**
 * Answers `step.lookup` for `key` in the session's run: `{ found: true, value }` (and
 * `durable_step.replayed`) when the step was recorded, else `{ found: false }` (the sandbox's
 * `StepLookup`).
 * A state-store failure ends the run (the session remembers it; see `CallSession.guard`).
 */
export function lookupDurableStep(session: StepSession, store: StateStore, key: string): Json {
  const found = session.guard(() => store.lookupStep(session.identity.runId, session.stepScope, key, session.identity.tool));
  if (!found) return { found: false };
  session.recordRuntime("durable_step.replayed", { key });
  // The envelope is JSON: a step whose value is `undefined` is sent without `value`.
  return found.value === undefined ? { found: true } : { found: true, value: found.value };
}

/**
 * Answers `step.record`: stores the step's value and metadata, given as their JSON text
 * (`undefined` for none), and `durable_step.recorded`, in one commit. The first record of a key
 * wins: a racing duplicate gets the stored value back.
 *
 * @returns the `StepRecorded` answer: `{ kept: true }` when the value sent was stored (it is not
 * sent back), else `{ kept: false, value }`.
 */
export function recordDurableStep(session: StepSession, store: StateStore, key: string, valueJson: string | undefined, metadataJson: string | undefined): Json {
  const { runId, callId, tool } = session.identity;
  const scope = session.stepScope;
  return session.persist(`record the step '${key}'`, (): Json => {
    const stored = store.recordStep({ runId, scope, key, valueJson, metadataJson, callId, tool });
    session.recordRuntime("durable_step.recorded", { key });
    if (stored.kept) return { kept: true };
    return stored.value === undefined ? { kept: false } : { kept: false, value: stored.value };
  });
}

/**
 * One tool call's host-side session: records its events in order (in the state database and
 * in the list the `CallResult` returns), and answers the tool's `ctx` operations — events,
 * durable steps, workspace file and shell work (seed "Execution Context", "Durable Steps").
 *
 * A state-store failure during the call is remembered as the call's control-plane failure:
 * the tool's pending `ctx` request fails, and the runtime ends the run whatever the tool
 * returns afterwards.
 */
import { ControlPlaneError } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";
import type { ContextOperation } from "../sandbox/protocol.js";
import type { StateStore } from "../state/state-store.js";
import { execInWorkspace, readWorkspaceFile, writeWorkspaceFile } from "./workspace.js";

/** An event as a `CallResult` lists it: `{ type, ...data }` (DESIGN §7). */
export type RuntimeEvent = { readonly type: string; readonly [key: string]: Json };

/** Identity of the call a session serves. */
export interface SessionIdentity {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly workspace: string;
}

/** Host services and event log of one call. */
export class CallSession {
  /** This call's events, in the order they were persisted. */
  readonly events: RuntimeEvent[] = [];
  /** Set when persisting failed; the runtime then ends the run. */
  controlPlaneFailure: ControlPlaneError | undefined;
  private finished = false;
  private pendingCall: { readonly surface: string; readonly inputJson: string } | undefined;

  constructor(
    private readonly store: StateStore,
    readonly identity: SessionIdentity,
  ) {}

  /**
   * Persists an event and appends it to {@link events}. Throws {@link ControlPlaneError} (and
   * remembers it) when the state store fails.
   */
  record(type: string, data: { readonly [key: string]: Json }): void {
    if (this.finished) throw new Error(`The call has finished; the event '${type}' was not recorded.`);
    try {
      this.store.appendEvent(this.identity.runId, this.identity.callId, type, data);
    } catch (error) {
      throw this.fail(error);
    }
    this.events.push({ type, ...data });
  }

  /**
   * Defers recording the received call (`StateStore.beginCall`) to the call's first
   * {@link persist}, so the common path commits once at the start and once at the end.
   */
  expectCall(surface: string, inputJson: string): void {
    this.pendingCall = { surface, inputJson };
  }

  /**
   * Runs `action`'s writes in one transaction, recording the received call first when that is
   * still pending. On failure nothing of it is kept — not even in {@link events} — and the
   * {@link ControlPlaneError} is remembered and thrown.
   */
  persist<T>(what: string, action: () => T): T {
    const before = this.events.length;
    const { runId, callId, tool } = this.identity;
    try {
      const result = this.store.transaction(what, () => {
        if (this.pendingCall) this.store.beginCall({ runId, callId, tool, ...this.pendingCall });
        return action();
      });
      this.pendingCall = undefined;
      return result;
    } catch (error) {
      this.events.length = before;
      throw this.fail(error);
    }
  }

  /** Runtime events carry the tool and call id first. */
  recordRuntime(type: string, data: { readonly [key: string]: Json } = {}): void {
    this.record(type, { tool: this.identity.tool, callId: this.identity.callId, ...data });
  }

  /** True once the runtime returned the call's result. */
  get isFinished(): boolean {
    return this.finished;
  }

  /** Marks the call finished: later `ctx` requests from a lingering tool are refused. */
  finish(): void {
    this.finished = true;
  }

  /** Answers one `ctx` operation; rejects with a message the tool sees. */
  async handle(operation: ContextOperation): Promise<Json | undefined> {
    if (this.finished) throw new Error("This tool call has already finished; ctx can no longer be used.");
    if (this.controlPlaneFailure) throw new Error(`The run has ended: ${this.controlPlaneFailure.message}`);
    const { runId, callId, tool, workspace } = this.identity;
    switch (operation.op) {
      case "emit":
        this.record(operation.type, operation.data);
        return undefined;
      case "step.lookup": {
        const found = this.guard(() => this.store.lookupStep(runId, operation.key));
        if (!found) return { found: false };
        this.recordRuntime("durable_step.replayed", { key: operation.key });
        return found.value === undefined ? { found: true } : { found: true, value: found.value };
      }
      case "step.record": {
        // The step and its event commit together: a stored step always has its audit record.
        return this.persist(`record the step '${operation.key}'`, () => {
          const stored = this.store.recordStep({ runId, key: operation.key, value: operation.value, metadata: operation.metadata, callId, tool });
          this.recordRuntime("durable_step.recorded", { key: operation.key });
          return stored.value;
        });
      }
      case "sandbox.readFile":
        return readWorkspaceFile(workspace, operation.path);
      case "sandbox.writeFile":
        await writeWorkspaceFile(workspace, operation.path, operation.contents);
        return undefined;
      case "sandbox.exec":
        return execInWorkspace(workspace, operation.command, operation.timeoutMs);
      default:
        throw new Error(`Unknown ctx operation '${(operation as { op?: unknown }).op}'.`);
    }
  }

  private guard<T>(action: () => T): T {
    try {
      return action();
    } catch (error) {
      throw this.fail(error);
    }
  }

  private fail(error: unknown): Error {
    if (error instanceof ControlPlaneError) {
      this.controlPlaneFailure ??= error;
      return error;
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}

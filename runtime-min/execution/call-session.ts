/**
 * One tool call's host-side session: records its events in order (in the state database and
 * in the list the `CallResult` returns), and answers the tool's `ctx` operations — events,
 * durable steps, workspace file and shell work (seed "Execution Context", "Durable Steps").
 *
 * A state-store failure during the call is remembered as the call's control-plane failure:
 * the tool's pending `ctx` request fails, and the runtime ends the run whatever the tool
 * returns afterwards.
 *
 * **When the start of a call is committed.** The call row and `tool.execution_started` are
 * written by the call's first commit, which joins whatever else that commit records:
 * - a call that finishes without asking the host for anything commits once, after the tool
 *   returned and before the result is handed back: call row, `tool.execution_started`,
 *   `tool.execution_completed` (or `tool.execution_failed`) and the outcome, in that order;
 * - a call that makes a `ctx` request (emit, step, workspace file or shell work) — or a
 *   built-in that records anything — commits its start before the host performs the first
 *   request, in the same transaction as that request's own record.
 * So every recorded effect is preceded by a durable start, events keep their order, and the
 * start is always durable before a result is returned. By default (`RuntimeOptions.callJournal` unless `false`), the
 * first case — a call that ends `ok` — is instead one append to the run's call journal
 * ({@link CallSession.persistResult}, `state/run-journal.ts`), durable in the same sense once
 * its `write` returned and folded into state.db before any other commit of the run. Crash semantics: if the host process
 * dies while a tool runs and before its first `ctx` request, state.db has no trace of the
 * call; the sandbox child exits with its doorbell; the retry of the same call id is then its
 * first recorded attempt, with the same idempotency keys (they derive from run and call id),
 * which is what destination-level dedupe relies on.
 *
 * **The run progress lease.** Once the runtime attached the call's lease
 * ({@link CallSession.checkLease}), every commit of the call — its start, events, steps and
 * result — first checks, inside the same transaction, that this runtime still holds a live
 * lease on the run; if not, the commit is rolled back and the call fails with the
 * `lease_expired` control-plane failure (so an `ok` result is never persisted after the lease
 * expired or another host took the run over).
 */
import { ControlPlaneError, ToolCallError } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";
import { eventTooLarge, runStateFull, stepTooLarge } from "../sandbox/limit-messages.js";
import type { ContextOperation } from "../sandbox/protocol.js";
import type { CallUpdate, StateStore } from "../state/state-store.js";
import { readWorkspaceFile, readWorkspaceFileBytes, writeWorkspaceFile, type ShellResult } from "./workspace.js";
import { lookupDurableStep, recordDurableStep } from "./durable-steps.js";

/** An event as a `CallResult` lists it: `{ type, ...data }` (DESIGN §7). */
export type RuntimeEvent = { readonly type: string; readonly [key: string]: Json };

/** Identity of the call a session serves. */
export interface SessionIdentity {
  readonly runId: string;
  readonly callId: string;
  readonly tool: string;
  readonly workspace: string;
}

/** What a session needs of the call's run progress lease (see `run-lease.ts`). */
export interface LeaseCheck {
  /** Throws the `lease_expired` ControlPlaneError unless the lease is still held and live. */
  assertHeld(): void;
}

/** Runs a shell command in a workspace (`WorkspaceShell` under the runtime's isolation policy). */
export interface SessionShell {
  /** Resolves with the command's result; throws `ToolCallError` when the host refuses to run it. */
  exec(workspace: string, command: string, timeoutMs: number | undefined, stop?: AbortSignal): Promise<ShellResult>;
}

/**
 * The most shell commands one call runs at a time (`ctx.getSandbox().exec`); more wait their
 * turn. Every command is a host process tree (an `unshare`, its shells), so a tool that fired
 * thousands at once made the host fork thousands of processes (helper-65's review of 5 December,
 * E5).
 */
export const SHELL_COMMANDS_AT_ONCE = 4;

/** What a call's tools may store through `ctx.step` and `ctx.emit` besides one event's size (`HostLimits`). */
export interface StateLimits {
  /** Largest step — key, value and metadata as JSON, in bytes (`maxResultBytes`). */
  readonly maxStepBytes: number;
  /** Most bytes of steps and events the run may store (`maxRunStateBytes`). */
  readonly maxRunStateBytes: number;
}

const UNBOUNDED_STATE: StateLimits = { maxStepBytes: Number.MAX_SAFE_INTEGER, maxRunStateBytes: Number.MAX_SAFE_INTEGER };

/** Host services and event log of one call. */
export class CallSession {
  /** This call's events, in the order they were persisted. */
  readonly events: RuntimeEvent[] = [];
  /** Set when persisting failed; the runtime then ends the run. */
  controlPlaneFailure: ControlPlaneError | undefined;
  /**
   * Set when the host refused a service the tool asked for in a way that fails the call
   * whatever the tool does with the error (a shell command the host's `shellIsolation` policy
   * does not allow here): the pipeline then fails the call with this kind and message.
   */
  callFailure: ToolCallError | undefined;
  private finished = false;
  /** Set by {@link interrupt}: the call's own commits are refused from then on. */
  private interrupted = false;
  /** True while {@link recordRunEnd} records. */
  private ending = false;
  /** The call's file exchanges so far ({@link oneAtATime}). */
  private fileExchanges: Promise<void> = Promise.resolve();
  /** Shell commands of the call running now, and those waiting for a turn ({@link SHELL_COMMANDS_AT_ONCE}). */
  private commandsRunning = 0;
  private readonly commandsWaiting: (() => void)[] = [];
  /**
   * Aborted when the call finishes: its shell commands still running end (`WorkspaceShell.exec`),
   * built-ins stop ({@link signal}). Made only when something takes {@link signal}: in Node 20
   * `abort()` costs about 25 µs (an `Event` dispatched through `EventTarget`, a `DOMException`
   * with its stack when no reason is given), a tenth of an `echo` round trip, and a call that
   * neither runs a shell command nor is a built-in never listens to it (docs/runtime.md,
   * seventh round).
   */
  private commandsEnd: AbortController | undefined;
  /** Why the call ended ({@link finish}, {@link interrupt}), for a {@link signal} taken after it ended. */
  private endedBy: { readonly reason: unknown } | undefined;
  /** The received call's row, written by the first commit ({@link expectCall}). */
  private pendingCall: { readonly surface: string; readonly inputJson: string } | undefined;
  /** `tool.execution_started`, written by the first commit after dispatch ({@link deferStart}). */
  private pendingStart: { readonly surface: string; readonly runtimeBoundary: "sandbox" | "host" } | undefined;
  /** Checked inside every commit while set. */
  private lease: LeaseCheck | undefined;
  /** True inside a commit: records made by its action join it without a second lease check. */
  private committing = false;
  /** The authored tool's step scope ({@link scopeSteps}). */
  private steps: string | undefined;

  constructor(
    private readonly store: StateStore,
    readonly identity: SessionIdentity,
    private readonly shell: SessionShell,
    /** Host limit of one `ctx.emit` event's data, in bytes of JSON (`maxEventBytes`). */
    private readonly maxEventBytes: number = Number.MAX_SAFE_INTEGER,
    /** Host limits of a step and of the run's stored steps and events (helper-89's review of 6 December, finding 7). */
    private readonly stateLimits: StateLimits = UNBOUNDED_STATE,
  ) {}

  /**
   * Persists an event and appends it to {@link events}. Throws {@link ControlPlaneError} (and
   * remembers it) when the state store fails.
   */
  record(type: string, data: { readonly [key: string]: Json }): void {
    if (this.finished) throw new Error(`The call has finished; the event '${type}' was not recorded.`);
    // Outside a commit, an event is its own commit (checking the lease); inside one, it joins it.
    if (this.pendingCall || this.pendingStart || (this.lease && !this.committing)) {
      this.persist(`record the event '${type}'`, () => this.append(type, data));
      return;
    }
    try {
      this.append(type, data);
    } catch (error) {
      throw this.fail(error);
    }
  }

  /**
   * Makes every later commit of the call check `lease` inside its transaction; `undefined`
   * stops the checks (the runtime's own record of a run ending on a control-plane failure).
   */
  checkLease(lease: LeaseCheck | undefined): void {
    this.lease = lease;
  }

  /**
   * Defers recording the received call (`StateStore.beginCall`) to the call's first
   * {@link persist}, so a call that never reaches its tool, or finishes without a `ctx`
   * request, commits once.
   */
  expectCall(surface: string, inputJson: string): void {
    this.pendingCall = { surface, inputJson };
  }

  /**
   * Names the plugin whose tool the call runs (`stepScope` of its surface and capability): its
   * `ctx.step` keys are looked up and recorded in that scope only (durable-steps.ts).
   */
  scopeSteps(scope: string): void {
    this.steps = scope;
  }

  /** The step scope {@link scopeSteps} named; throws when the call runs no authored tool. */
  get stepScope(): string {
    if (this.steps === undefined) throw new Error("Durable steps belong to an authored tool's call; this call runs none.");
    return this.steps;
  }

  /**
   * Defers `tool.execution_started` (and the call's `running` status) to the call's next
   * commit: the result's, or the first `ctx` request's (see the module comment).
   */
  deferStart(surface: string, runtimeBoundary: "sandbox" | "host"): void {
    this.pendingStart = { surface, runtimeBoundary };
  }

  /**
   * Runs `action`'s writes in one transaction, after the pending call row and start event
   * (when still pending) and with the call's new status `update`. On failure nothing of it is
   * kept — not even in {@link events} — and the {@link ControlPlaneError} is remembered and
   * thrown.
   */
  persist<T>(what: string, action: () => T, update?: CallUpdate): T {
    // An interrupted call's late work (its start, its outcome, a built-in's events) is not
    // written after, or beside, the run's end (recordRunEnd).
    if (this.interrupted && !this.ending) throw this.controlPlaneFailure!;
    const before = this.events.length;
    const { runId, callId, tool } = this.identity;
    // Taken before the transaction, so records made inside `action` do not write them again.
    const call = this.pendingCall;
    const start = this.pendingStart;
    this.pendingCall = undefined;
    this.pendingStart = undefined;
    const outer = !this.committing;
    try {
      this.committing = true;
      return this.store.transaction(what, () => {
        if (outer) this.lease?.assertHeld();
        const status = start ? { runtimeBoundary: start.runtimeBoundary, ...(update ?? { status: "running" as const }) } : update;
        if (call) this.store.beginCall({ runId, callId, tool, ...call }, status);
        else if (status) this.store.updateCall(runId, callId, status);
        if (start) this.append("tool.execution_started", { tool, callId, surface: start.surface, runtimeBoundary: start.runtimeBoundary });
        return action();
      });
    } catch (error) {
      // Rolled back: nothing of it was kept, so the start is still to be written.
      this.pendingCall = call;
      this.pendingStart = start;
      this.events.length = before;
      throw this.fail(error);
    } finally {
      if (outer) this.committing = false;
    }
  }

  /**
   * Records the call's `ok` outcome: `tool.execution_completed` with `update`. When that is the
   * call's only record — its row and start still pending (no `ctx` request, no built-in), the
   * lease attached, the run's call journal open in this host (`RuntimeOptions.callJournal`) —
   * after the lease check it is one append to the journal (`StateStore.journalCall`:
   * docs/runtime.md, tenth round), committed once the `write` returned, and the events are
   * those {@link persist} would have written; otherwise it is {@link persist}'s transaction.
   * Throws (and remembers) the {@link ControlPlaneError} as {@link persist} does.
   */
  persistResult(update: CallUpdate & { readonly status: "ok" }): void {
    const call = this.pendingCall;
    const start = this.pendingStart;
    const { runId, callId, tool } = this.identity;
    const sameOutput = update.modelOutput === update.output;
    if (
      !call ||
      !start ||
      !this.lease ||
      this.interrupted ||
      this.committing ||
      this.finished ||
      (!sameOutput && update.modelOutput === undefined) ||
      !this.store.journalsCalls(runId)
    ) {
      this.persist("record the call result", () => this.recordRuntime("tool.execution_completed"), update);
      return;
    }
    const runtimeBoundary = update.runtimeBoundary ?? start.runtimeBoundary;
    const started = { tool, callId, surface: start.surface, runtimeBoundary: start.runtimeBoundary };
    const completed = { tool, callId };
    try {
      this.lease.assertHeld();
      this.store.journalCall(runId, {
        callId,
        surface: call.surface,
        tool,
        inputJson: call.inputJson,
        status: "ok",
        runtimeBoundary,
        ...(update.output === undefined ? {} : { output: update.output }),
        ...(sameOutput ? {} : { modelOutput: update.modelOutput! }),
        events: [
          { type: "tool.execution_started", data: started },
          { type: "tool.execution_completed", data: completed },
        ],
      });
    } catch (error) {
      throw this.fail(error);
    }
    this.pendingCall = undefined;
    this.pendingStart = undefined;
    this.events.push({ ...started, type: "tool.execution_started" }, { ...completed, type: "tool.execution_completed" });
  }

  /** Commits the pending call row and start event, if any, before the host acts for the tool. */
  private flushStart(): void {
    if (this.pendingCall || this.pendingStart) this.persist("record the start of the call", () => undefined);
  }

  private append(type: string, data: { readonly [key: string]: Json }): void {
    this.store.appendEvent(this.identity.runId, this.identity.callId, type, data);
    // `type` last: data never overrides the event's type (the host also refuses a tool's data with a `type` key).
    this.events.push({ ...data, type });
  }

  /** Runtime events carry the tool and call id first. */
  recordRuntime(type: string, data: { readonly [key: string]: Json } = {}): void {
    this.record(type, { tool: this.identity.tool, callId: this.identity.callId, ...data });
  }

  /**
   * Aborted when the call finishes ({@link finish}: returned, or ended by a control-plane
   * failure; {@link interrupt} as soon as one comes): its shell commands still running end, and a built-in stops its work
   * (`CoreToolContext.signal`).
   */
  get signal(): AbortSignal {
    if (this.commandsEnd === undefined) {
      this.commandsEnd = new AbortController();
      // Taken after the call ended: aborted already, with the reason it would have had.
      if (this.endedBy) this.commandsEnd.abort(this.endedBy.reason);
    }
    return this.commandsEnd.signal;
  }

  /** True once the runtime returned the call's result. */
  get isFinished(): boolean {
    return this.finished;
  }

  /**
   * The call was interrupted by `failure` (cancelled, past its deadline, lease lost) and the
   * runtime is about to end the run: from now on the call commits nothing of its own (the tool's
   * late outcome and events are dropped; only the runtime's record of the run's end is written),
   * and {@link signal} aborts with `failure`, so a built-in stops at once instead of failing
   * the call with the abort as if it were its own error.
   */
  interrupt(failure: ControlPlaneError): void {
    this.controlPlaneFailure ??= failure;
    this.interrupted = true;
    this.end(failure);
  }

  /**
   * Records `run.ended` for the runtime ending the run: the one commit an interrupted call
   * still makes (with the call's start, when that was still to be written).
   */
  recordRunEnd(data: { readonly reason: string; readonly error: string }): void {
    this.ending = true;
    try {
      this.record("run.ended", data);
    } finally {
      this.ending = false;
    }
  }

  /**
   * Throws the message a tool sees when it asks the host for anything once its call finished or
   * its run ended ({@link interrupt}): `ctx` requests ({@link handle}) and a built-in's events and
   * commits (`execute-core.ts`).
   */
  assertOpen(): void {
    if (this.finished) throw new Error("This tool call has already finished; ctx can no longer be used.");
    if (this.controlPlaneFailure) throw new Error(`The run has ended: ${this.controlPlaneFailure.message}`);
  }

  /** Marks the call finished: later `ctx` requests from a lingering tool are refused, and its shell commands still running end. */
  finish(): void {
    this.finished = true;
    this.end(undefined);
  }

  /**
   * Aborts {@link signal} with `reason` (`undefined`: the `AbortError` `abort()` makes then) the first
   * time the call ends, or remembers `reason` for a signal taken later.
   */
  private end(reason: unknown): void {
    if (this.endedBy) return;
    this.endedBy = { reason };
    this.commandsEnd?.abort(reason);
  }

  /** Answers one `ctx` operation; rejects with a message the tool sees. */
  async handle(operation: ContextOperation): Promise<Json | undefined> {
    this.assertOpen();
    const { workspace } = this.identity;
    switch (operation.op) {
      case "emit": {
        const bytes = Buffer.byteLength(JSON.stringify(operation.data ?? {}), "utf8");
        if (bytes > this.maxEventBytes) throw new Error(eventTooLarge(operation.type, bytes, this.maxEventBytes));
        this.assertRunStateRoom(`the event '${operation.type}'`, bytes);
        this.record(operation.type, operation.data);
        return undefined;
      }
      case "step.lookup":
        return lookupDurableStep(this, this.store, operation.key);
      case "step.record": {
        const valueJson = operation.value === undefined ? undefined : JSON.stringify(operation.value);
        const metadataJson = operation.metadata === undefined ? undefined : JSON.stringify(operation.metadata);
        const bytes = Buffer.byteLength(operation.key, "utf8") + (valueJson === undefined ? 0 : Buffer.byteLength(valueJson, "utf8")) + (metadataJson === undefined ? 0 : Buffer.byteLength(metadataJson, "utf8"));
        if (bytes > this.stateLimits.maxStepBytes) throw new Error(stepTooLarge(operation.key, bytes, this.stateLimits.maxStepBytes));
        this.assertRunStateRoom(`the step '${operation.key}'`, bytes);
        return recordDurableStep(this, this.store, operation.key, valueJson, metadataJson);
      }
      // Events and steps commit the pending start with their own record; workspace work
      // commits it first.
      case "sandbox.readFile":
        this.flushStart();
        return this.oneAtATime(() => readWorkspaceFile(workspace, operation.path));
      case "sandbox.readFileBytes":
        this.flushStart();
        return this.oneAtATime(async () => (await readWorkspaceFileBytes(workspace, operation.path)).toString("base64"));
      case "sandbox.writeFile":
        this.flushStart();
        return this.oneAtATime(async () => {
          await writeWorkspaceFile(workspace, operation.path, "base64" in operation ? Buffer.from(operation.base64, "base64") : operation.contents);
          return undefined;
        });
      case "sandbox.exec":
        this.flushStart();
        return this.exec(workspace, operation.command, operation.timeoutMs);
      default:
        throw new Error(`Unknown ctx operation '${(operation as { op?: unknown }).op}'.`);
    }
  }

  /**
   * Throws the error the tool sees when recording `what` (`bytes` of JSON) would take the run's
   * stored steps and events past `maxRunStateBytes`; nothing is recorded then.
   */
  private assertRunStateRoom(what: string, bytes: number): void {
    const { maxRunStateBytes } = this.stateLimits;
    if (maxRunStateBytes === Number.MAX_SAFE_INTEGER) return;
    const stored = this.guard(() => this.store.runStateBytes(this.identity.runId));
    if (stored + bytes > maxRunStateBytes) throw new Error(runStateFull(this.identity.runId, stored, what, bytes, maxRunStateBytes));
  }

  /**
   * Runs `exchange` after the call's earlier file exchanges have settled: one at a time, so a tool
   * that fires many reads of a large file at once holds one copy in the host's memory, and the
   * host's thread is free between them (helper-65 C1: ten 48 MiB reads at once took the host to
   * 945 MB and held its thread 33 s, and the run's lease lapsed).
   */
  private oneAtATime<T>(exchange: () => Promise<T>): Promise<T> {
    const turn = this.fileExchanges.then(exchange);
    this.fileExchanges = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /**
   * Runs a shell command, at most {@link SHELL_COMMANDS_AT_ONCE} of the call's at a time (the
   * others wait their turn in the order asked; a command's timeout runs from its start); a
   * refusal by the host also becomes the call's {@link callFailure}. A command still waiting when
   * the call finishes does not run.
   */
  private async exec(workspace: string, command: string, timeoutMs: number | undefined): Promise<ShellResult> {
    if (this.commandsRunning >= SHELL_COMMANDS_AT_ONCE) await new Promise<void>((turn) => this.commandsWaiting.push(turn));
    this.commandsRunning++;
    try {
      return await this.shell.exec(workspace, command, timeoutMs, this.signal);
    } catch (error) {
      if (error instanceof ToolCallError) this.callFailure ??= error;
      throw error;
    } finally {
      this.commandsRunning--;
      this.commandsWaiting.shift()?.();
    }
  }

  /**
   * Runs a state-store read; a failure is remembered as the call's control-plane failure and
   * rethrown (as {@link persist} does for writes).
   */
  guard<T>(action: () => T): T {
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

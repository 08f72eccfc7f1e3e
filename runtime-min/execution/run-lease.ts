/**
 * Run progress leases (seed "Tool implementation": "an expired run progress lease" is a
 * control-plane failure that terminates the run; issue 4: "expired lease").
 *
 * A run is driven by one host at a time. Each runtime has a random owner id; before a call
 * (or an `approve`) runs, the runtime takes the run's lease in state.db (`runs.lease_owner`,
 * `runs.lease_expires_at`) in one transaction — free, expired or already its own: taken for
 * `leaseMs`; another owner's live lease: the call is refused with AL8028 and nothing is
 * recorded. Calls of the same run in one runtime share one lease ({@link LeaseEntry}).
 *
 * While a call of the run is in flight the lease is renewed every `leaseMs / 3` (an
 * `unref`'d timer: it never keeps the process alive) with a conditional update (owner
 * matches). The lease is lost — and every call of the run in flight here fails with a
 * `lease_expired` {@link ControlPlaneError} — when a renewal finds another owner in the row,
 * when a renewal runs after the lease already expired (the event loop was blocked longer than
 * the lease), or when a commit of the call finds it no longer holds a live lease
 * ({@link LeaseHandle.assertHeld}, run inside the commit's transaction).
 *
 * The lease belongs to the host driving the run, not to one call: when the last call of the
 * run in flight here finishes, the runtime keeps holding (and renewing) it for an idle hold of
 * `leaseMs / 3`, so the run's next call (the model's next step) needs no write to take it
 * again. It is released (owner `NULL`) when the idle hold ends without a new call, and at once
 * by `runtime.close()`, so a CLI process that made its call frees the run for the next
 * process as it exits. A lease that expires while idle (the event loop was blocked) is let go
 * quietly: no call was in flight, so nothing was lost, and the next call takes it afresh.
 *
 * Every take by a new holder increments `runs.lease_epoch` (a fencing token). A runtime's
 * renewals, checks and release match its owner id *and* the epoch it took, so it can tell
 * "my lease expired, but nobody took the run" (same epoch: the runtime ends the run) from
 * "another host took the run over" (newer epoch, even if that host already released it:
 * the runtime writes nothing more for the run; {@link LeaseHandle.takenOver}).
 */
import { randomUUID } from "node:crypto";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { runtimeError } from "../errors.js";
import { ControlPlaneError } from "../failures.js";
import type { RunRecord, RunsMark, StateStore } from "../state/state-store.js";

/** Default duration of a run progress lease, in milliseconds. */
export const DEFAULT_LEASE_MS = 30_000;

/** One call's share of its run's lease. */
export interface LeaseHandle {
  /** The `lease_expired` {@link ControlPlaneError} once the lease is lost; `undefined` while it is held. */
  readonly lost: ControlPlaneError | undefined;
  /**
   * Calls `onLost` with the `lease_expired` {@link ControlPlaneError} when the lease is lost
   * (once); returns the function that stops watching. A plain set of callbacks rather than an
   * `AbortSignal` listener: adding and removing one per call costs a fraction of EventTarget's
   * (issue 14 item 2).
   */
  watch(onLost: (failure: ControlPlaneError) => void): () => void;
  /**
   * Throws the `lease_expired` {@link ControlPlaneError} (and fails every call sharing the
   * lease) unless this runtime still holds a live lease on the run. Called inside the
   * transaction of each commit of the call, so nothing is committed after the lease was lost.
   */
  assertHeld(): void;
  /**
   * True when the lease changed hands since this runtime took it (another host took the run
   * over). Throws a `state_store_failure` {@link ControlPlaneError}.
   */
  takenOver(): boolean;
  /** The lease epoch this runtime took (see the module comment). */
  readonly epoch: number;
  /** Gives this call's share back; after the last share the idle hold begins. Idempotent. */
  release(): void;
}

/** What {@link RunLeases.acquire} returns: the run (as stored) and, unless it has ended, the call's lease. */
export interface LeaseGrant {
  readonly run: RunRecord;
  /**
   * Absent for an ended run (the caller refuses the call). It is already `lost` when
   * this runtime's lease on the run was lost while other calls of it are still finishing.
   */
  readonly lease: LeaseHandle | undefined;
}

/** The lease of one run held by this runtime, shared by the run's calls in flight. */
interface LeaseEntry {
  readonly runId: string;
  inFlight: number;
  /** The lease epoch this runtime took (see the module comment). */
  readonly epoch: number;
  /** When the lease expires, as last written (ms since the epoch). */
  expiresAt: number;
  /** What {@link LeaseHandle.watch} registered: called once when the lease is lost. */
  readonly watchers: Set<(failure: ControlPlaneError) => void>;
  readonly timer: NodeJS.Timeout;
  /** Set once the lease is lost; later shares fail with it. */
  lost: ControlPlaneError | undefined;
  /** When the last call in flight finished (ms since the epoch); `undefined` while calls run. */
  idleSince: number | undefined;
  /**
   * The run's row as last read (when the lease was taken, or by a later call), trusted while
   * the lease is live (issue 14 item 2: no read of the run per call): only a host that drives
   * the run writes its end (`Runtime.endRun` and the deferred end check, in the transaction
   * that would write it, that no other host has taken the run over: {@link RunLeases.drivenElsewhere}),
   * so nobody else changes the row while this runtime holds a live lease. `undefined` after this
   * runtime ended the run ({@link RunLeases.forgetRun}): the next call reads it again.
   */
  run: RunRecord | undefined;
  /**
   * The lease's row as {@link LeaseHandle.assertHeld} last read it — held by this runtime in
   * `epoch`, expiring at `expiresAt` — with the {@link StateStore.runsMark} taken before that
   * read. While the mark is current, the row is unchanged, so the check needs no read.
   */
  verified: { readonly mark: RunsMark; readonly expiresAt: number } | undefined;
}

/** The run progress leases one runtime holds. */
export class RunLeases {
  /** This runtime's owner id (random; written to `runs.lease_owner`). */
  readonly owner = randomUUID();
  private readonly entries = new Map<string, LeaseEntry>();

  /** How long a lease stays held with no call in flight: `leaseMs / 3`, also the renewal interval. */
  private readonly idleHoldMs: number;

  /** `leaseMs` must already be valid ({@link checkLeaseMs}). Times are wall-clock ms since the epoch. */
  constructor(
    private readonly store: StateStore,
    readonly leaseMs: number,
  ) {
    this.idleHoldMs = Math.max(1, Math.floor(leaseMs / 3));
  }

  /**
   * Takes (or joins this runtime's hold of) the run's lease for one call, creating the run
   * when it does not exist. Throws `RuntimeError` AL8028 when another owner holds a live lease
   * (nothing written) and a `state_store_failure` {@link ControlPlaneError} when state.db fails.
   */
  acquire(runId: string): LeaseGrant {
    const idle = this.entries.get(runId);
    // An idle hold that lapsed (or a lease lost after its calls finished) is let go; the call
    // then takes the lease afresh.
    if (idle && idle.inFlight === 0 && (idle.lost !== undefined || Date.now() >= idle.expiresAt)) this.drop(idle);
    const entry = this.entries.get(runId);
    if (entry) {
      // Issue 14 item 2: no read of the run per call while the lease is live (see `LeaseEntry.run`).
      const now = Date.now();
      const run = entry.run !== undefined && entry.lost === undefined && now < entry.expiresAt ? entry.run : this.store.ensureRun(runId);
      entry.run = run;
      if (run.status === "ended") return { run, lease: undefined };
      if (!entry.lost && now >= entry.expiresAt) this.lose(entry, this.expiredMessage(entry));
      entry.inFlight += 1;
      entry.idleSince = undefined;
      return { run, lease: this.handle(entry) };
    }
    const take = this.store.takeLease(runId, this.owner, Date.now(), this.leaseMs);
    if (take.outcome === "ended") return { run: take.run, lease: undefined };
    if (take.outcome === "held") {
      throw runtimeError(Diagnostics.RunLeaseHeld, "", [runId, new Date(take.expiresAt).toISOString()]);
    }
    // Whoever takes the lease folds the journals earlier holders left, before any read or
    // commit of the run (docs/runtime.md, tenth round); failing that, the lease goes back.
    try {
      this.store.openRun(runId, this.owner, take.epoch);
    } catch (error) {
      try {
        this.store.releaseLease(runId, this.owner, take.epoch);
      } catch {
        // Unavailable state.db: the lease expires on its own after leaseMs.
      }
      throw error;
    }
    const created: LeaseEntry = {
      runId,
      inFlight: 1,
      epoch: take.epoch,
      expiresAt: take.expiresAt,
      watchers: new Set(),
      timer: setInterval(() => this.renew(created), this.idleHoldMs),
      lost: undefined,
      idleSince: undefined,
      run: take.run,
      verified: undefined,
    };
    created.timer.unref();
    this.entries.set(runId, created);
    return { run: take.run, lease: this.handle(created) };
  }

  /**
   * Forgets the run's row held with its lease, so the run's next call reads it again: called
   * by the runtime whenever it ends the run (the row then says `ended`, with the reason the
   * refusal quotes).
   */
  forgetRun(runId: string): void {
    const entry = this.entries.get(runId);
    if (entry) entry.run = undefined;
  }

  /**
   * True when another host drives the run now, so this runtime must not write the run's end:
   * with `epoch` (the lease this runtime held when the run failed), when the lease changed hands
   * since; without one (the run failed before this runtime could take its lease), when another
   * owner holds a live lease. Read inside the transaction that would write the end. Throws a
   * `state_store_failure` {@link ControlPlaneError}.
   */
  drivenElsewhere(runId: string, epoch: number | undefined): boolean {
    const lease = this.store.leaseOf(runId);
    if (!lease) return false;
    if (epoch !== undefined) return lease.epoch !== epoch;
    return lease.owner !== null && lease.owner !== this.owner && (lease.expiresAt ?? 0) > Date.now();
  }

  /** Stops renewing and releases every lease this runtime holds, idle or not (state.db errors are ignored). */
  releaseAll(): void {
    for (const entry of [...this.entries.values()]) this.drop(entry);
  }

  /**
   * What every call's {@link LeaseShare} does with its entry, made once per `RunLeases` (issue 14
   * item 2: a handle used to be an object literal with a getter and four closures per call,
   * which V8 builds on a slow path, ≈ 0.6 µs hot).
   */
  private readonly shareActions: ShareActions = {
    // The fencing check of every commit (see the module comment): the same predicate as
    // `StateStore.holdsLease` — this runtime holds the lease in its epoch and it has not
    // expired at `now`. Issue 14 item 2: the row is read again only when it may have changed
    // since the last read (another connection committed, or this one wrote `runs`: a renewal,
    // a release); otherwise the expiry read then is the row's, and only the clock is compared.
    assertHeld: (entry) => {
      if (!entry.lost) {
        const now = Date.now();
        const verified = entry.verified;
        if (!(verified && now < verified.expiresAt && this.store.runsUnchangedSince(verified.mark))) {
          // Marked before the read: a commit in between (outside a transaction) only makes it stale.
          const mark = this.store.runsMark();
          const expiresAt = this.store.leaseExpiry(entry.runId, this.owner, entry.epoch);
          if (expiresAt !== undefined && expiresAt > now) entry.verified = { mark, expiresAt };
          else {
            entry.verified = undefined;
            this.lose(entry, this.lostMessage(entry));
          }
        }
      }
      if (entry.lost) throw entry.lost;
    },
    takenOver: (entry) => {
      const lease = this.store.leaseOf(entry.runId);
      return lease !== undefined && lease.epoch !== entry.epoch;
    },
    release: (entry) => {
      entry.inFlight -= 1;
      if (entry.inFlight > 0) return;
      // A lost lease is not held any more; a live one stays held for the idle hold.
      if (entry.lost) this.drop(entry);
      else entry.idleSince = Date.now();
    },
  };

  private handle(entry: LeaseEntry): LeaseHandle {
    return new LeaseShare(entry, this.shareActions);
  }

  /**
   * One renewal tick: extend the lease, or lose it when it expired or another owner took it.
   * With no call in flight, the tick ends the idle hold once it lasted `leaseMs / 3`, and lets
   * an expired lease go quietly (no call can be failed by it).
   */
  private renew(entry: LeaseEntry): void {
    if (entry.lost) return;
    const now = Date.now();
    if (entry.inFlight === 0 && (now >= entry.expiresAt || now - (entry.idleSince ?? now) >= this.idleHoldMs)) {
      this.drop(entry);
      return;
    }
    if (now >= entry.expiresAt) {
      this.lose(entry, this.expiredMessage(entry));
      return;
    }
    try {
      if (this.store.renewLease(entry.runId, this.owner, entry.epoch, now + this.leaseMs)) entry.expiresAt = now + this.leaseMs;
      else this.lose(entry, this.lostMessage(entry));
    } catch {
      // state.db is unavailable right now: the next tick retries, and finds the lease expired
      // if it never comes back in time.
    }
  }

  /** Marks the lease lost and fails every call sharing it (their supervisors see the abort). */
  private lose(entry: LeaseEntry, message: string): void {
    entry.lost = new ControlPlaneError("lease_expired", message);
    clearInterval(entry.timer);
    const lost = entry.lost;
    for (const onLost of [...entry.watchers]) onLost(lost);
    entry.watchers.clear();
  }

  /**
   * Forgets the entry and frees the lease if this runtime still holds it (expired or not),
   * after folding this host's journaled calls of the run into state.db (StateStore.closeRun).
   */
  private drop(entry: LeaseEntry): void {
    clearInterval(entry.timer);
    if (this.entries.get(entry.runId) === entry) this.entries.delete(entry.runId);
    try {
      this.store.closeRun(entry.runId);
    } catch {
      // Not folded: the journal stays, and the run's next holder folds it.
    }
    try {
      this.store.releaseLease(entry.runId, this.owner, entry.epoch);
    } catch {
      // Unavailable state.db: the lease expires on its own after leaseMs.
    }
  }

  private expiredMessage(entry: LeaseEntry): string {
    return `The progress lease of run '${entry.runId}' expired at ${new Date(entry.expiresAt).toISOString()} before this host could renew it (leaseMs ${this.leaseMs}); another host may have taken the run over.`;
  }

  private lostMessage(entry: LeaseEntry): string {
    return `This host no longer holds the progress lease of run '${entry.runId}' (it expired or another host took it over; leaseMs ${this.leaseMs}).`;
  }
}

/**
 * Checks `RuntimeOptions.leaseMs` and returns it (or {@link DEFAULT_LEASE_MS} when omitted).
 * Throws `RuntimeError` AL8029 for anything but a positive safe integer.
 */
export function checkLeaseMs(leaseMs: unknown): number {
  if (leaseMs === undefined) return DEFAULT_LEASE_MS;
  if (typeof leaseMs === "number" && Number.isSafeInteger(leaseMs) && leaseMs > 0) return leaseMs;
  const shown = typeof leaseMs === "number" ? String(leaseMs) : typeof leaseMs === "string" ? JSON.stringify(leaseMs) : `(${typeof leaseMs})`;
  throw runtimeError(Diagnostics.LeaseDurationInvalid, "", [shown]);
}

/**
 * Checks `RuntimeOptions.callJournal` and returns it: `true` when omitted (the call journal is
 * the default since helper-121; docs/runtime.md, tenth round), `false` only when passed
 * `false`. Throws `RuntimeError` AL8067 for anything but a boolean.
 */
export function checkCallJournal(callJournal: unknown): boolean {
  if (callJournal === undefined) return true;
  if (typeof callJournal === "boolean") return callJournal;
  const shown = typeof callJournal === "string" ? JSON.stringify(callJournal) : typeof callJournal === "number" ? String(callJournal) : `(${typeof callJournal})`;
  throw runtimeError(Diagnostics.CallJournalOptionInvalid, "", [shown]);
}

/** What a {@link LeaseShare} asks its `RunLeases` to do with the entry it shares. */
interface ShareActions {
  assertHeld(entry: LeaseEntry): void;
  takenOver(entry: LeaseEntry): boolean;
  /** Gives one call's share back (called once per share). */
  release(entry: LeaseEntry): void;
}

/** One call's share of a run's lease: the {@link LeaseHandle} `RunLeases.acquire` grants. */
class LeaseShare implements LeaseHandle {
  private released = false;
  readonly epoch: number;

  constructor(
    private readonly entry: LeaseEntry,
    private readonly actions: ShareActions,
  ) {
    this.epoch = entry.epoch;
  }

  get lost(): ControlPlaneError | undefined {
    return this.entry.lost;
  }

  watch(onLost: (failure: ControlPlaneError) => void): () => void {
    const { watchers } = this.entry;
    watchers.add(onLost);
    return () => watchers.delete(onLost);
  }

  assertHeld(): void {
    this.actions.assertHeld(this.entry);
  }

  takenOver(): boolean {
    return this.actions.takenOver(this.entry);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.actions.release(this.entry);
  }
}

/**
 * Run state in an embedded SQLite database (better-sqlite3; issue 4 item 5): runs (with their
 * progress lease), calls, pending approvals, durable steps and events, shared by every runtime
 * instance and process that opens the same `state.db`.
 *
 * WAL mode with `synchronous = NORMAL` (durable across process crashes; concurrent readers
 * while one process writes) and a busy timeout for writers from other processes. Every
 * failure to read or write becomes a {@link ControlPlaneError} with reason
 * `state_store_failure`: a lost write is never silent, and the caller ends the run.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type Database from "better-sqlite3";
import { ControlPlaneError } from "../failures.js";
import type { Json } from "../sandbox/json-copy.js";
import { claimJournals, encodeRecordText, JournalWriter, readJournals, removeJournal, type JournaledCall } from "./run-journal.js";
import { migrateStateSchema, schemaVersion, STATE_SCHEMA_SQL, STATE_SCHEMA_VERSION } from "./schema.js";

/** A run's row. `ended` runs refuse further calls. */
export interface RunRecord {
  readonly runId: string;
  readonly status: "active" | "ended";
  readonly endReason: string | null;
  readonly endMessage: string | null;
}

/** Status of a call as stored. */
export type CallStatus = "running" | "ok" | "failed" | "approval_required" | "denied";

/** A tool call's row (one per run and tool-call id; retries increment `attempts`). */
export interface CallRecord {
  readonly runId: string;
  readonly callId: string;
  readonly surface: string;
  readonly tool: string;
  /** The input exactly as JSON text (compared on retries). */
  readonly inputJson: string;
  readonly status: CallStatus;
  readonly attempts: number;
  readonly runtimeBoundary: "sandbox" | "host" | null;
  /** The full result (persisted even when the model sees a projection). */
  readonly output: Json | undefined;
  /** What the model saw. */
  readonly modelOutput: Json | undefined;
  readonly error: string | null;
  readonly failureKind: string | null;
}

/** A call's new status and, when known, its boundary and outcome. */
export interface CallUpdate {
  readonly status: CallStatus;
  readonly runtimeBoundary?: "sandbox" | "host";
  /** The full result. */
  readonly output?: Json;
  /** What the model saw. */
  readonly modelOutput?: Json;
  readonly error?: string;
  readonly failureKind?: string;
}

/** A pending or decided approval. */
export interface ApprovalRecord {
  readonly runId: string;
  readonly callId: string;
  readonly surface: string;
  readonly tool: string;
  readonly input: Json;
  readonly reason: string;
  readonly sideEffect: string;
  readonly state: "pending" | "approved" | "denied";
}

/** One persisted event. */
export interface EventRecord {
  readonly seq: number;
  readonly callId: string | null;
  readonly type: string;
  readonly data: { readonly [key: string]: Json };
}

/** A persisted step result; `value` is `undefined` when the step returned nothing. */
export interface StepRecord {
  readonly value: Json | undefined;
}

/** What {@link StateStore.recordStep} did: stored the value given (`kept`), or found one stored first. */
export type StepRecordOutcome = { readonly kept: true } | { readonly kept: false; readonly value: Json | undefined };

/**
 * A run's progress lease as stored: the holder's owner id (`null`: free), its expiry in ms
 * since the epoch, and how many times it changed hands (`epoch`, a fencing token).
 */
export interface LeaseRecord {
  readonly owner: string | null;
  readonly expiresAt: number | null;
  readonly epoch: number;
}

/** The outcome of {@link StateStore.takeLease}. */
export type LeaseTake =
  | { readonly outcome: "taken"; readonly run: RunRecord; readonly expiresAt: number; readonly epoch: number }
  | { readonly outcome: "held"; readonly run: RunRecord; readonly owner: string; readonly expiresAt: number }
  | { readonly outcome: "ended"; readonly run: RunRecord };

/** Options of {@link StateStore.open}. */
export interface StateStoreOptions {
  /** How long a write waits for another process's write lock, in milliseconds (default 5000). */
  readonly busyTimeoutMs?: number;
  /**
   * Record the common call (no `ctx` request, `ok`) as one append to the run's call journal
   * instead of a SQLite transaction ({@link StateStore.journalCall}). Off when omitted here: the
   * runtime passes `RuntimeOptions.callJournal` as `checkCallJournal` reads it (on unless
   * `false`), so this default only concerns a store opened on its own (a reader, a taker, a
   * tool). Journals other hosts wrote are folded and read whatever this says.
   */
  readonly callJournal?: boolean;
}

/**
 * How many journaled calls of a run this store keeps unfolded before it folds them into
 * `state.db` (after the current callback, as a checkpoint is run): folding costs 35–47 µs of
 * CPU per record in batches (docs/runtime.md, ninth round), and the records are held in memory
 * for this host's own readers until then.
 */
const JOURNAL_FOLD_RECORDS = 1000;

/**
 * How many bytes of journaled records (their JSON text) this store keeps unfolded before it
 * folds them, whatever their count: each is held twice until then (in the journal and in memory),
 * and a tool's result may be `maxResultBytes` (8 MiB by default), so a bound by count alone let
 * a few hundred large results fill the heap and pass the 2 GiB the next host can read back
 * (helper-122's review). 8 MiB: one default-sized result; 1,000 `echo` records (about 400 bytes
 * each) stay far below it, so small results keep folding every {@link JOURNAL_FOLD_RECORDS}.
 */
const JOURNAL_FOLD_BYTES = 8 * 1024 * 1024;

/**
 * A journaled call held in memory until folded: its record's JSON text, parsed only when read
 * or folded (never the objects the call returned, which the host may change afterwards).
 */
interface UnfoldedCall {
  readonly callId: string;
  readonly json: string;
}

/** The journaled call `unfolded` holds (parsed afresh: readers get objects of their own). */
function parsedCall(unfolded: UnfoldedCall): JournaledCall {
  return JSON.parse(unfolded.json) as JournaledCall;
}

/** A run whose progress lease this store's runtime holds ({@link StateStore.openRun}), with its call journal. */
interface LeasedRun {
  readonly owner: string;
  readonly epoch: number;
  /** This host's journal of the epoch; `undefined` when calls are not journaled (or it failed). */
  writer: JournalWriter | undefined;
  /** Journaled calls not folded yet, in journal order. */
  pending: UnfoldedCall[];
  /** {@link pending} by call id. */
  byCall: Map<string, UnfoldedCall[]>;
  /** How many of {@link pending} the open write transaction folds (dropped from memory after its COMMIT). */
  folding: number;
}

/**
 * How many write transactions pass between two checkpoints run outside a commit
 * ({@link StateStore}): an `echo` call's commit adds about 5 WAL pages, so 100 of them stay
 * under SQLite's automatic checkpoint at 1,000 pages.
 */
const CHECKPOINT_EVERY_COMMITS = 100;

let isoMs = Number.NaN;
let isoText = "";
/**
 * The current time as an ISO 8601 string (the `created_at`/`updated_at` columns), formatted
 * once per millisecond: `toISOString` costs about a microsecond, and a call's commit stamps
 * three rows within the same millisecond (issue 14 item 2).
 */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

/**
 * What {@link StateStore.runsMark} returns: the connection's `PRAGMA data_version` (changes
 * whenever another connection has committed) and how many statements writing `runs` this
 * connection has run, both at the time of the mark.
 */
export interface RunsMark {
  readonly dataVersion: number;
  readonly ownRunWrites: number;
}

/** True when a statement's SQL writes the `runs` table (counted for {@link StateStore.runsMark}). */
const WRITES_RUNS = /\b(?:INTO|UPDATE|DELETE\s+FROM)\s+runs\b/i;

/** The state database of one agent root. All methods are synchronous. */
export class StateStore {
  private readonly statements = new Map<string, Database.Statement>();
  /** {@link runStateBytes} of the runs asked about so far. */
  private readonly stateBytes = new Map<string, number>();
  /** The statements that write `runs` (see {@link ownRunWrites}). */
  private readonly runsWriters = new Set<Database.Statement>();
  /**
   * Statements writing `runs` this connection has run (or was about to run: counted when
   * fetched, committed or not). Together with `data_version` it tells that nobody — neither
   * another connection nor this one — can have changed a `runs` row ({@link runsMark}).
   */
  private ownRunWrites = 0;
  /** `PRAGMA data_version`, prepared (and set to return the bare value) once. */
  private dataVersionStatement: Database.Statement | undefined;
  /** Reads this connection's `PRAGMA data_version` (a bound function: no closure per check). */
  private readonly readDataVersion = (): number => {
    this.dataVersionStatement ??= this.statement("PRAGMA data_version").pluck();
    return this.dataVersionStatement.get() as number;
  };
  /** Write transactions committed since the last checkpoint this store ran ({@link noteCommit}). */
  private commitsSinceCheckpoint = 0;
  /** The checkpoint queued to run after the current callback, if one is. */
  private pendingCheckpoint: NodeJS.Immediate | undefined;
  /** Runs whose lease this store's runtime holds, by run id ({@link openRun}). */
  private readonly leased = new Map<string, LeasedRun>();
  /** Journaled calls of all {@link leased} runs not folded yet (a write folds them first). */
  private unfoldedRecords = 0;
  /** The JSON text length of {@link unfoldedRecords} ({@link JOURNAL_FOLD_BYTES}). */
  private unfoldedBytes = 0;
  /** The fold queued to run after the current callback ({@link JOURNAL_FOLD_RECORDS}), if one is. */
  private pendingFold: NodeJS.Immediate | undefined;

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
    private readonly identity: FileIdentity,
    /** {@link StateStoreOptions.callJournal}. */
    private readonly callJournal: boolean,
  ) {}

  /**
   * Throws the `state_store_failure` ControlPlaneError when `state.db` is no longer the file
   * this store opened (issue 12 item 6): deleted, or replaced by another file. SQLite would go
   * on reading and writing the unlinked file, so nothing written from then on would survive
   * the process — an `ok` reported for it would be a lie, and a retry would repeat recorded
   * steps.
   */
  private verifyFile(): void {
    const now = identityOf(this.file);
    if (now && now.dev === this.identity.dev && now.ino === this.identity.ino) return;
    throw new ControlPlaneError(
      "state_store_failure",
      `The state database ${this.file} was ${now ? "replaced by another file" : "deleted"} while the runtime was using it, so nothing more can be recorded durably; the run ends here. Find out what removed it (a cleanup job, a checkout), restore it from a backup if you have one, and start a new run.`,
    );
  }

  /**
   * A prepared statement, compiled once per SQL text, after checking the database file is still
   * ours before anything is written: for a write on its own, and once per transaction, right
   * before its `COMMIT` (statements inside a transaction keep nothing unless the COMMIT runs,
   * so one check there covers them all). Reads are not checked: what a vanished file still
   * answers is what was recorded, and the next write fails. (Issue 14: a `stat` per statement
   * was 5% of a call's host CPU; now one per call.)
   */
  private statement(sql: string): Database.Statement {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db.prepare(sql);
      this.statements.set(sql, prepared);
      if (WRITES_RUNS.test(sql)) this.runsWriters.add(prepared);
    }
    if (this.runsWriters.has(prepared)) this.ownRunWrites += 1;
    // A write on its own folds this host's journaled calls first, in their own transaction
    // (docs/runtime.md, tenth round: before any other commit, so events keep their order).
    if (this.unfoldedRecords > 0 && !prepared.reader && !this.db.inTransaction && sql !== "BEGIN IMMEDIATE") this.foldJournals();
    if (sql === "COMMIT" || (!prepared.reader && sql !== "BEGIN IMMEDIATE" && !this.db.inTransaction)) {
      this.verifyFile();
      this.noteCommit();
    }
    return prepared;
  }

  /**
   * Counts a write transaction and, every {@link CHECKPOINT_EVERY_COMMITS}, queues a passive WAL
   * checkpoint to run once the current callback is done — after the result the commit recorded
   * has been handed back — instead of inside a commit (issue 14 item 2: SQLite's automatic
   * checkpoint ran inside the COMMIT of every ~200th call, with its `fsync`s). Durability is
   * unchanged: a checkpoint only copies committed WAL frames into the database file. SQLite's
   * own automatic checkpoint (1,000 WAL pages) stays as the backstop for large transactions.
   */
  private noteCommit(): void {
    this.commitsSinceCheckpoint += 1;
    if (this.commitsSinceCheckpoint < CHECKPOINT_EVERY_COMMITS || this.pendingCheckpoint) return;
    this.pendingCheckpoint = setImmediate(() => this.checkpoint());
    // Never keeps a process alive: closing the database checkpoints anyway.
    this.pendingCheckpoint.unref();
  }

  /** Runs a passive checkpoint (never waits for other connections; a failure is retried after the next commits). */
  private checkpoint(): void {
    this.pendingCheckpoint = undefined;
    if (!this.db.open || this.db.inTransaction) return;
    try {
      this.db.pragma("wal_checkpoint(PASSIVE)");
      this.commitsSinceCheckpoint = 0;
    } catch {
      // Busy or failing: the writes themselves report a failing store; this only tidies the WAL.
    }
  }

  /**
   * Opens (creating when missing) the database at `file`, in WAL mode, with the schema.
   * Throws {@link ControlPlaneError} when it cannot be opened or has a newer schema.
   */
  static open(file: string, options: StateStoreOptions = {}): StateStore {
    return guardOpen("open the state database", () => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const existing = fs.statSync(file, { throwIfNoEntry: false });
      if (existing && existing.isFile() && existing.size === 0) {
        // Never ours: a new database is created whole and linked into place (below).
        throw new ControlPlaneError(
          "state_store_failure",
          `The state database ${file} is empty (0 bytes): it was truncated, so every recorded run, step and approval is gone, and it is not silently re-created. If starting over is intended, delete it and run again.`,
        );
      }
      if (!existing) createDatabase(file);
      const db = new (sqlite())(file, { fileMustExist: true, ...nativeBinding() });
      try {
        db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
        db.pragma("journal_mode = WAL");
        db.pragma("synchronous = NORMAL");
        db.pragma("foreign_keys = ON");
        if (schemaVersion(db, file) < STATE_SCHEMA_VERSION) migrateStateSchema(db, file);
        else db.exec(STATE_SCHEMA_SQL);
        const identity = identityOf(file);
        if (!identity) throw new Error(`${file} disappeared while it was being opened`);
        return new StateStore(db, file, identity, options.callJournal === true);
      } catch (error) {
        db.close();
        throw error;
      }
    });
  }

  /** The journal mode in force (`"wal"` once opened). */
  journalMode(): string {
    return guard("read the journal mode", () => String(this.db.pragma("journal_mode", { simple: true })));
  }

  /**
   * Runs `action` in one transaction (one commit for several writes); rolls back and throws
   * {@link ControlPlaneError} when any part fails. Nested calls join the outer transaction.
   */
  transaction<T>(what: string, action: () => T): T {
    if (this.db.inTransaction) return action();
    // Prepared BEGIN/COMMIT statements: cheaper than building a db.transaction() wrapper per call.
    try {
      this.statement("BEGIN IMMEDIATE").run();
    } catch (error) {
      throw toControlPlane(what, error);
    }
    try {
      // This host's journaled calls are folded first, in the same transaction (tenth round).
      if (this.unfoldedRecords > 0) this.foldOwnJournals();
      const result = action();
      this.statement("COMMIT").run();
      this.afterFold();
      return result;
    } catch (error) {
      for (const run of this.leased.values()) run.folding = 0;
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      // What the rolled-back writes counted is gone from the database: counted again on the next ask.
      this.stateBytes.clear();
      throw toControlPlane(what, error);
    }
  }

  /** Returns the run, creating it as `active` when it does not exist. */
  ensureRun(runId: string): RunRecord {
    const existing = this.getRun(runId);
    if (existing) return existing;
    return guard("record the run", () => {
      const at = isoNow();
      this.statement("INSERT OR IGNORE INTO runs (run_id, status, created_at, updated_at) VALUES (?, 'active', ?, ?)").run(runId, at, at);
      return this.getRun(runId)!;
    });
  }

  /** The run, or `undefined`. */
  getRun(runId: string): RunRecord | undefined {
    return guard("read the run", () => {
      const row = this.statement("SELECT run_id, status, end_reason, end_message FROM runs WHERE run_id = ?").get(runId) as RunRow | undefined;
      return row && toRunRecord(row);
    });
  }

  /** Marks the run ended (a control-plane failure); later calls on it are refused. */
  endRun(runId: string, reason: string, message: string): void {
    guard("end the run", () => {
      const at = isoNow();
      this.statement("INSERT OR IGNORE INTO runs (run_id, status, created_at, updated_at) VALUES (?, 'active', ?, ?)").run(runId, at, at);
      this.statement("UPDATE runs SET status = 'ended', end_reason = ?, end_message = ?, updated_at = ? WHERE run_id = ? AND status = 'active'")
        .run(reason, message, at, runId);
    });
  }

  /**
   * Appends an event at the run's next sequence number. (No `RETURNING`: SQLite buffers
   * returned rows in a temporary table, which costs more than the insert itself.)
   */
  appendEvent(runId: string, callId: string | null, type: string, data: { readonly [key: string]: Json }): void {
    guard(`record the event '${type}'`, () => {
      const json = JSON.stringify(data);
      this.insertEvent(runId, callId, type, json);
      this.countStateBytes(runId, json);
    });
  }

  /** Inserts an event at the run's next sequence number (not counted in {@link runStateBytes}). */
  private insertEvent(runId: string, callId: string | null, type: string, json: string): void {
    this.statement(
      "INSERT INTO events (run_id, seq, call_id, type, data_json, created_at) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE run_id = ?), ?, ?, ?, ?)",
    ).run(runId, runId, callId, type, json, isoNow());
  }

  /** Events of a run in order, optionally only those of one call. */
  listEvents(runId: string, callId?: string): EventRecord[] {
    return guard("read events", () =>
      this.withJournal(runId, (journaled) => {
        const rows = (
          callId === undefined
            ? this.statement("SELECT seq, call_id, type, data_json FROM events WHERE run_id = ? ORDER BY seq").all(runId)
            : this.statement("SELECT seq, call_id, type, data_json FROM events WHERE run_id = ? AND call_id = ? ORDER BY seq").all(runId, callId)
        ) as { seq: number; call_id: string | null; type: string; data_json: string }[];
        const events: EventRecord[] = rows.map((row) => ({ seq: row.seq, callId: row.call_id, type: row.type, data: JSON.parse(row.data_json) as { [key: string]: Json } }));
        if (journaled.length === 0) return events;
        // Journaled calls come after every event in state.db (they are folded before any other commit), in journal order.
        let seq = this.statement("SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?").pluck().get(runId) as number;
        for (const call of journaled) {
          for (const event of call.events) {
            seq += 1;
            if (callId === undefined || call.callId === callId) events.push({ seq, callId: call.callId, type: event.type, data: event.data });
          }
        }
        return events;
      }),
    );
  }

  /** The call, or `undefined`. */
  getCall(runId: string, callId: string): CallRecord | undefined {
    return guard("read the call", () =>
      this.withJournal(runId, (journaled) => {
        const row = this.statement("SELECT * FROM calls WHERE run_id = ? AND call_id = ?").get(runId, callId) as CallRow | undefined;
        let call = row && toCallRecord(row);
        for (const record of journaled) if (record.callId === callId) call = withJournaled(call, runId, record);
        return call;
      }),
    );
  }

  /** True when the run has a call or an approval with this call id (one indexed query, and the run's unfolded journal). */
  hasCallOrApproval(runId: string, callId: string): boolean {
    return guard("read the call", () => {
      const leased = this.leased.get(runId);
      const inJournal = leased ? () => leased.byCall.has(callId) : () => false;
      const read = (journaled: readonly JournaledCall[]) =>
        inJournal() ||
        journaled.some((record) => record.callId === callId) ||
        this.statement(
          "SELECT EXISTS (SELECT 1 FROM calls WHERE run_id = ? AND call_id = ?) OR EXISTS (SELECT 1 FROM approvals WHERE run_id = ? AND call_id = ?) AS found",
        )
          .pluck()
          .get(runId, callId, runId, callId) === 1;
      // This host's own journal is answered by its index (the per-call path), others' from their files.
      return leased ? read([]) : this.withJournal(runId, read);
    });
  }

  /**
   * Records that the call was received — inserts it, or counts a retry of it (`attempts` + 1)
   * — with its status: `running` by default, or the outcome in `update` when the call is
   * recorded only once it has finished (one statement instead of an insert and an update).
   */
  beginCall(call: { runId: string; callId: string; surface: string; tool: string; inputJson: string }, update: CallUpdate = { status: "running" }): void {
    guard("record the call", () => {
      const at = isoNow();
      this.statement(
        `INSERT INTO calls (run_id, call_id, surface, tool, input_json, status, attempts, runtime_boundary, output_json, model_output_json, error, failure_kind, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (run_id, call_id) DO UPDATE SET status = excluded.status, attempts = calls.attempts + 1,
         runtime_boundary = COALESCE(excluded.runtime_boundary, calls.runtime_boundary), output_json = excluded.output_json,
         model_output_json = excluded.model_output_json, error = excluded.error, failure_kind = excluded.failure_kind, updated_at = excluded.updated_at`,
      ).run(call.runId, call.callId, call.surface, call.tool, call.inputJson, ...updateValues(update), at, at);
    });
  }

  /** Updates a call's status and, when given, its boundary and outcome. */
  updateCall(runId: string, callId: string, update: CallUpdate): void {
    guard("record the call result", () => {
      this.statement(
        `UPDATE calls SET status = ?, runtime_boundary = COALESCE(?, runtime_boundary), output_json = ?, model_output_json = ?, error = ?,
         failure_kind = ?, updated_at = ? WHERE run_id = ? AND call_id = ?`,
      ).run(...updateValues(update), isoNow(), runId, callId);
    });
  }

  /** Records a pending approval (no-op when one exists for the call). */
  requestApproval(approval: Omit<ApprovalRecord, "state">): void {
    guard("record the pending approval", () => {
      this.statement(
          "INSERT OR IGNORE INTO approvals (run_id, call_id, surface, tool, input_json, reason, side_effect, state, requested_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)",
        )
        .run(approval.runId, approval.callId, approval.surface, approval.tool, JSON.stringify(approval.input), approval.reason, approval.sideEffect, isoNow());
    });
  }

  /** The ids of the most recent runs (by creation, newest first), at most `limit`. */
  recentRunIds(limit: number): string[] {
    return guard("read the runs", () => (this.statement("SELECT run_id FROM runs ORDER BY created_at DESC, run_id LIMIT ?").all(limit) as { run_id: string }[]).map((row) => row.run_id));
  }

  /**
   * The calls of a run still waiting for approval (`callId` and `tool`), oldest first, at most
   * `limit`: what `approve` names when given a call id the run does not have.
   */
  pendingApprovals(runId: string, limit: number): { readonly callId: string; readonly tool: string }[] {
    return guard("read the pending approvals", () =>
      (this.statement("SELECT call_id, tool FROM approvals WHERE run_id = ? AND state = 'pending' ORDER BY requested_at, call_id LIMIT ?").all(runId, limit) as { call_id: string; tool: string }[]).map((row) => ({
        callId: row.call_id,
        tool: row.tool,
      })),
    );
  }

  /** The approval of a call, or `undefined`. */
  getApproval(runId: string, callId: string): ApprovalRecord | undefined {
    return guard("read the approval", () => {
      const row = this.statement("SELECT * FROM approvals WHERE run_id = ? AND call_id = ?").get(runId, callId) as ApprovalRow | undefined;
      return row && {
        runId: row.run_id,
        callId: row.call_id,
        surface: row.surface,
        tool: row.tool,
        input: JSON.parse(row.input_json) as Json,
        reason: row.reason,
        sideEffect: row.side_effect,
        state: row.state,
      };
    });
  }

  /**
   * Decides a pending approval atomically. Returns true only for the one caller that moved it
   * out of `pending` (so an approval executes the call exactly once, across processes).
   */
  decideApproval(runId: string, callId: string, state: "approved" | "denied"): boolean {
    return guard("record the approval decision", () => {
      const result = this.statement("UPDATE approvals SET state = ?, decided_at = ? WHERE run_id = ? AND call_id = ? AND state = 'pending'")
        .run(state, isoNow(), runId, callId);
      return result.changes === 1;
    });
  }

  /**
   * The persisted result of a step of the plugin `scope` (`stepScope`), or `undefined` when it has
   * not completed in this run. A step recorded before schema version 3 (scope `''`) is found
   * only by a call of the tool that recorded it (`tool`).
   */
  lookupStep(runId: string, scope: string, key: string, tool: string): StepRecord | undefined {
    return guard("read the step", () => {
      const row = (this.statement("SELECT value_json FROM steps WHERE run_id = ? AND scope = ? AND step_key = ?").get(runId, scope, key) ??
        this.statement("SELECT value_json FROM steps WHERE run_id = ? AND scope = '' AND step_key = ? AND tool = ?").get(runId, key, tool)) as { value_json: string | null } | undefined;
      return row && { value: row.value_json === null ? undefined : (JSON.parse(row.value_json) as Json) };
    });
  }

  /**
   * Persists a completed step of the plugin `scope`, its value and metadata given as JSON text
   * (`undefined`: none), unless one with the same scope and key already exists (a concurrent
   * call got there first): the first result always wins. Returns `kept: true` when this value was
   * stored (so it need not be read back), else the value stored first.
   */
  recordStep(step: { runId: string; scope: string; key: string; valueJson: string | undefined; metadataJson: string | undefined; callId: string; tool: string }): StepRecordOutcome {
    return guard(`record the step '${step.key}'`, () => {
      const { changes } = this.statement("INSERT OR IGNORE INTO steps (run_id, scope, step_key, value_json, metadata_json, call_id, tool, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)").run(
        step.runId,
        step.scope,
        step.key,
        step.valueJson ?? null,
        step.metadataJson ?? null,
        step.callId,
        step.tool,
        isoNow(),
      );
      if (changes === 0) return { kept: false, value: this.lookupStep(step.runId, step.scope, step.key, step.tool)!.value };
      this.countStateBytes(step.runId, step.key, step.valueJson, step.metadataJson);
      return { kept: true };
    });
  }

  /**
   * Bytes of JSON the run `runId` stores in steps (keys, values, metadata) and events (data):
   * what `maxRunStateBytes` bounds. Summed from the database on a run's first ask, then kept up
   * to date by this store's own writes (forgotten when a transaction rolls back, and summed
   * again); a run is progressed by one host at a time (its lease), so another process's writes
   * to it are not missed.
   */
  runStateBytes(runId: string): number {
    let bytes = this.stateBytes.get(runId);
    if (bytes === undefined) {
      let journaledBytes = 0;
      bytes = guard("read the run's stored size", () =>
        this.withJournal(runId, (journaled) => {
          for (const call of journaled) journaledBytes += eventBytes(call);
          const row = this.statement(
            "SELECT (SELECT COALESCE(SUM(LENGTH(CAST(data_json AS BLOB))), 0) FROM events WHERE run_id = ?) + (SELECT COALESCE(SUM(LENGTH(CAST(step_key AS BLOB)) + COALESCE(LENGTH(CAST(value_json AS BLOB)), 0) + COALESCE(LENGTH(CAST(metadata_json AS BLOB)), 0)), 0) FROM steps WHERE run_id = ?) AS bytes",
          ).get(runId, runId) as { bytes: number };
          return row.bytes + journaledBytes;
        }),
      );
      // Another host's unfolded journal can still grow: counted afresh on the next ask.
      if (journaledBytes === 0 || this.leased.has(runId)) this.stateBytes.set(runId, bytes);
    }
    return bytes;
  }

  /** Adds the byte lengths of `texts` to the run's {@link runStateBytes}, when it is being counted (costs nothing otherwise). */
  private countStateBytes(runId: string, ...texts: (string | undefined)[]): void {
    const known = this.stateBytes.get(runId);
    if (known === undefined) return;
    let added = 0;
    for (const text of texts) if (text !== undefined) added += Buffer.byteLength(text, "utf8");
    this.stateBytes.set(runId, known + added);
  }

  /** Records deferred tools activated by `tool_search` in a run on a surface (idempotent). */
  activateTools(runId: string, surface: string, names: readonly string[]): void {
    this.transaction("record activated tools", () => {
      const at = isoNow();
      for (const name of names) this.statement("INSERT OR IGNORE INTO activations (run_id, surface, tool, created_at) VALUES (?, ?, ?, ?)").run(runId, surface, name, at);
    });
  }

  /** Tools activated in a run on a surface, sorted by name (code-unit order). */
  activatedTools(runId: string, surface: string): string[] {
    return guard("read activated tools", () =>
      (this.statement("SELECT tool FROM activations WHERE run_id = ? AND surface = ?").all(runId, surface) as { tool: string }[])
        .map((row) => row.tool)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  }

  /**
   * Takes the run's progress lease for `owner` in one transaction (creating the run as
   * `active` when it does not exist): a free lease, an expired one (`lease_expires_at <= now`)
   * or one `owner` already holds is taken with `expiresAt = now + leaseMs` (ms since the
   * epoch); unless `owner` already held it, `lease_epoch` goes up by one. Returns `held`
   * (nothing written) when another owner holds a live lease, and `ended` (nothing taken) for
   * an ended run. Throws {@link ControlPlaneError} when the database fails.
   */
  takeLease(runId: string, owner: string, now: number, leaseMs: number): LeaseTake {
    return this.transaction("take the run's progress lease", () => {
      const at = isoNow();
      this.statement("INSERT OR IGNORE INTO runs (run_id, status, created_at, updated_at) VALUES (?, 'active', ?, ?)").run(runId, at, at);
      const row = this.statement("SELECT run_id, status, end_reason, end_message, lease_owner, lease_expires_at, lease_epoch FROM runs WHERE run_id = ?").get(runId) as RunRow;
      const run = toRunRecord(row);
      if (run.status === "ended") return { outcome: "ended", run };
      const expiry = row.lease_expires_at ?? 0;
      if (row.lease_owner !== null && row.lease_owner !== owner && expiry > now) {
        return { outcome: "held", run, owner: row.lease_owner, expiresAt: expiry };
      }
      const expiresAt = now + leaseMs;
      const epoch = row.lease_owner === owner ? row.lease_epoch : row.lease_epoch + 1;
      this.statement("UPDATE runs SET lease_owner = ?, lease_expires_at = ?, lease_epoch = ? WHERE run_id = ?").run(owner, expiresAt, epoch, runId);
      return { outcome: "taken", run, expiresAt, epoch };
    });
  }

  /**
   * Extends the lease to `expiresAt` if `owner` still holds it in `epoch` (expired or not).
   * Returns false when it was released or changed hands.
   */
  renewLease(runId: string, owner: string, epoch: number, expiresAt: number): boolean {
    return guard("renew the run's progress lease", () =>
      this.statement("UPDATE runs SET lease_expires_at = ? WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ?").run(expiresAt, runId, owner, epoch).changes === 1,
    );
  }

  /** True when `owner` holds the run's lease in `epoch` and it has not expired at `now` (ms since the epoch). */
  holdsLease(runId: string, owner: string, epoch: number, now: number): boolean {
    return guard("read the run's progress lease", () =>
      this.statement("SELECT 1 FROM runs WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ? AND lease_expires_at > ?").pluck().get(runId, owner, epoch, now) === 1,
    );
  }

  /**
   * When the lease `owner` holds on the run in `epoch` expires (ms since the epoch; it may
   * already have), or `undefined` when `owner` does not hold it in `epoch` (released, taken
   * over, unknown run). The read behind {@link holdsLease}, for a caller that remembers the
   * expiry together with a {@link runsMark}.
   */
  leaseExpiry(runId: string, owner: string, epoch: number): number | undefined {
    return guard("read the run's progress lease", () => {
      const expiresAt = this.statement("SELECT lease_expires_at FROM runs WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ?").pluck().get(runId, owner, epoch) as
        | number
        | null
        | undefined;
      return expiresAt ?? undefined;
    });
  }

  /**
   * A mark of the `runs` table as this connection sees it now (issue 14 item 2). While
   * {@link runsUnchangedSince} says a mark is current, no `runs` row can differ from what this
   * connection read after taking it: another connection's commit changes `PRAGMA data_version`
   * (SQLite guarantees it, <https://sqlite.org/pragma.html#pragma_data_version>), and every
   * statement of this store that writes `runs` is counted. Meaningful inside a write
   * transaction (nobody else can commit until it ends); outside one, a commit between the
   * mark and a read only makes the mark stale sooner. Throws a `state_store_failure`
   * ControlPlaneError when state.db fails.
   */
  runsMark(): RunsMark {
    return guard("read the state database's data version", () => ({
      dataVersion: this.readDataVersion(),
      ownRunWrites: this.ownRunWrites,
    }));
  }

  /**
   * True when `mark` is still current: no other connection has committed and this one has not
   * written `runs` since it was taken ({@link runsMark}). Throws a `state_store_failure`
   * ControlPlaneError when state.db fails.
   */
  runsUnchangedSince(mark: RunsMark): boolean {
    return (
      mark.ownRunWrites === this.ownRunWrites &&
      guard("read the state database's data version", this.readDataVersion) === mark.dataVersion
    );
  }

  /** The run's lease as stored, or `undefined` for an unknown run. */
  leaseOf(runId: string): LeaseRecord | undefined {
    return guard("read the run's progress lease", () => {
      const row = this.statement("SELECT lease_owner, lease_expires_at, lease_epoch FROM runs WHERE run_id = ?").get(runId) as
        | Pick<RunRow, "lease_owner" | "lease_expires_at" | "lease_epoch">
        | undefined;
      return row && { owner: row.lease_owner, expiresAt: row.lease_expires_at, epoch: row.lease_epoch };
    });
  }

  /** Frees the run's lease (owner and expiry `NULL`) if `owner` holds it in `epoch`; otherwise changes nothing. */
  releaseLease(runId: string, owner: string, epoch: number): void {
    guard("release the run's progress lease", () => {
      this.statement("UPDATE runs SET lease_owner = NULL, lease_expires_at = NULL WHERE run_id = ? AND lease_owner = ? AND lease_epoch = ?").run(runId, owner, epoch);
    });
  }

  /**
   * Called by the runtime right after it took the run's progress lease in `epoch` as `owner`
   * (docs/runtime.md, tenth round): claims every journal other epochs left in the run's folder
   * (renamed away, so their writers' identity checks fail), folds their records not folded yet
   * into `state.db` in one transaction (with the last folded record per epoch), removes them,
   * and — with {@link StateStoreOptions.callJournal} — opens this host's journal of `epoch`
   * (before any call of the lease is checked, so a host taking the run later finds it). From
   * then on this store answers the run's readers from `state.db` and its own journal. Throws
   * the `state_store_failure` ControlPlaneError (the caller gives the lease back).
   */
  openRun(runId: string, owner: string, epoch: number): void {
    const runDir = this.runDir(runId);
    // An earlier hold of the run here (lost, or let go without folding): its journal is folded from the file.
    this.forgetLeased(runId);
    claimJournals(runDir, epoch);
    // A newer epoch's journal belongs to a host that took the run after this one (this host is
    // a stale taker, paused past its lease): never claimed, folded or removed here.
    const files = readJournals(runDir).filter((file) => file.epoch <= epoch);
    if (files.length > 0) {
      this.transaction("fold the run's call journals", () => {
        const folded = this.foldedSeqs(runId);
        for (const file of files) {
          const records = file.records.filter((record) => record.seq > (folded.get(file.epoch) ?? 0));
          if (records.length === 0) continue;
          this.applyJournaled(runId, file.epoch, records);
          folded.set(file.epoch, records[records.length - 1]!.seq);
        }
      });
      // Folded, committed and on disk: only now removed (a crash before re-folds nothing, by `seq`).
      if (this.syncFold()) for (const file of files) removeJournal(runDir, file.name);
    }
    this.stateBytes.delete(runId);
    const writer = this.callJournal ? JournalWriter.open(runDir, epoch, this.foldedSeqs(runId).get(epoch) ?? 0) : undefined;
    this.leased.set(runId, { owner, epoch, writer, pending: [], byCall: new Map(), folding: 0 });
  }

  /**
   * Called by the runtime before it gives the run's lease back (or lets it go): folds this
   * host's journaled calls of the run into `state.db` (when it still holds the lease), closes
   * and removes its emptied journal, and forgets the run. Throws the `state_store_failure`
   * ControlPlaneError when the fold fails (the journal stays for the next host to fold).
   */
  closeRun(runId: string): void {
    const run = this.leased.get(runId);
    if (!run) return;
    try {
      if (run.pending.length > 0) this.foldJournals();
    } finally {
      this.forgetLeased(runId);
    }
  }

  /** True when a call of the run can be journaled: calls are journaled and this host holds the run's lease with its journal open. */
  journalsCalls(runId: string): boolean {
    return this.leased.get(runId)?.writer !== undefined;
  }

  /**
   * Records a call that finished `ok` without a `ctx` request as one append to this host's
   * journal of the run ({@link journalsCalls} must be true; the caller has just checked the
   * lease). Committed once the `write` returned and the journal's path still names the file;
   * then the call is answered by this store's readers as if it were in `state.db`. Throws the
   * `state_store_failure` ControlPlaneError when it cannot be written (nothing of it is kept),
   * and the `lease_expired` one when another host claimed the journal (the run was taken over).
   */
  journalCall(runId: string, call: Omit<JournaledCall, "seq">): void {
    const run = this.leased.get(runId);
    const writer = run?.writer;
    if (!run || !writer) throw new ControlPlaneError("state_store_failure", `The run '${runId}' has no open call journal in this host.`);
    const record: JournaledCall = { seq: writer.nextSeq, ...call };
    const json = JSON.stringify(record);
    try {
      writer.append(encodeRecordText(json));
    } catch (error) {
      // Claimed by a host that took the run over (it folds what was written), or unwritable:
      // nothing more is journaled for the run here.
      run.writer = undefined;
      writer.close(false);
      if (error instanceof ControlPlaneError && error.reason === "lease_expired") this.forgetLeased(runId);
      throw error;
    }
    const unfolded: UnfoldedCall = { callId: record.callId, json };
    run.pending.push(unfolded);
    const same = run.byCall.get(record.callId);
    if (same) same.push(unfolded);
    else run.byCall.set(record.callId, [unfolded]);
    this.unfoldedRecords += 1;
    this.unfoldedBytes += json.length;
    const known = this.stateBytes.get(runId);
    if (known !== undefined) this.stateBytes.set(runId, known + eventBytes(record));
    if ((run.pending.length >= JOURNAL_FOLD_RECORDS || this.unfoldedBytes >= JOURNAL_FOLD_BYTES) && !this.pendingFold) {
      this.pendingFold = setImmediate(() => {
        this.pendingFold = undefined;
        try {
          if (this.db.open && !this.db.inTransaction) this.foldJournals();
        } catch {
          // The run's next write folds again, and reports a failing store.
        }
      });
      this.pendingFold.unref();
    }
  }

  /** Folds this host's journaled calls in a transaction of their own (see {@link foldOwnJournals}). */
  private foldJournals(): void {
    this.transaction("fold the run's call journal", () => undefined);
  }

  /**
   * Inside a write transaction: folds every leased run's journaled calls into `state.db` when
   * this host still holds the run's lease in its epoch (owner and epoch in the run's row; a
   * host that took the run over cannot commit before this transaction ends, and claims the
   * journal only after its own commit), else forgets them: the new holder folds them from the
   * file. Dropped from memory and the journal truncated after the COMMIT ({@link afterFold}).
   */
  private foldOwnJournals(): void {
    for (const [runId, run] of [...this.leased]) {
      if (run.pending.length === 0) continue;
      const lease = this.leaseOf(runId);
      if (!lease || lease.owner !== run.owner || lease.epoch !== run.epoch) {
        this.forgetLeased(runId);
        continue;
      }
      this.applyJournaled(runId, run.epoch, run.pending.map(parsedCall));
      run.folding = run.pending.length;
    }
  }

  /**
   * Makes a fold's COMMIT durable before its journal is truncated or removed: the database runs
   * with `synchronous = NORMAL`, whose WAL commits survive a process crash but may be lost to an
   * OS crash or power cut, while the journal's truncation (file-system metadata) may survive it —
   * which would lose calls from the middle of a run while keeping later ones, where SQLite alone
   * loses only the last commits (helper-122's review, finding 6). One `fsync` of the WAL file
   * per fold (every {@link JOURNAL_FOLD_RECORDS} records, 8 MiB or a lease's end), none per call.
   * Returns false when it could not sync: the journal is then left as it is (its records are at
   * or below the folded `seq`, never folded twice).
   */
  private syncFold(): boolean {
    for (const file of [`${this.file}-wal`, this.file]) {
      let fd: number | undefined;
      try {
        fd = fs.openSync(file, "r");
        fs.fsyncSync(fd);
        return true;
      } catch (error) {
        // No WAL file (checkpointed and removed): the commit is in the database file itself.
        if ((error as NodeJS.ErrnoException).code !== "ENOENT" || file === this.file) return false;
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
    return false;
  }

  /** After a COMMIT: drops what it folded from memory and empties the journals it came from (once the fold is on disk, {@link syncFold}). */
  private afterFold(): void {
    let synced: boolean | undefined;
    for (const run of this.leased.values()) {
      if (run.folding === 0) continue;
      const folded = run.pending.splice(0, run.folding);
      run.folding = 0;
      this.unfoldedRecords -= folded.length;
      for (const record of folded) {
        this.unfoldedBytes -= record.json.length;
        const same = run.byCall.get(record.callId);
        if (same && same.length > 1) same.shift();
        else run.byCall.delete(record.callId);
      }
      try {
        // Folding is synchronous: nothing was appended since, so the whole journal is folded.
        if (run.pending.length === 0 && run.writer !== undefined && (synced ??= this.syncFold())) run.writer.truncate();
      } catch {
        // Left in place: its records are at or below the folded `seq`, never folded again.
      }
    }
  }

  /** Forgets a leased run: closes its journal (removing it when empty and still this host's). */
  private forgetLeased(runId: string): void {
    const run = this.leased.get(runId);
    if (!run) return;
    this.leased.delete(runId);
    this.unfoldedRecords -= run.pending.length;
    for (const record of run.pending) this.unfoldedBytes -= record.json.length;
    run.writer?.close(run.pending.length === 0);
  }

  /** Inserts journaled calls (rows as `beginCall` writes them, events, the last folded `seq`); inside a write transaction. */
  private applyJournaled(runId: string, epoch: number, records: readonly JournaledCall[]): void {
    for (const record of records) {
      this.beginCall(
        { runId, callId: record.callId, surface: record.surface, tool: record.tool, inputJson: record.inputJson },
        { status: record.status, runtimeBoundary: record.runtimeBoundary, ...(record.output === undefined ? {} : { output: record.output }), ...journaledModelOutput(record) },
      );
      for (const event of record.events) this.insertEvent(runId, record.callId, event.type, JSON.stringify(event.data));
    }
    const folded = this.foldedSeqs(runId);
    folded.set(epoch, Math.max(folded.get(epoch) ?? 0, records[records.length - 1]!.seq));
    this.statement("UPDATE runs SET journal_folded = ? WHERE run_id = ?").run(JSON.stringify(Object.fromEntries(folded)), runId);
  }

  /** The last folded journal record of each lease epoch of the run (`runs.journal_folded`). */
  private foldedSeqs(runId: string): Map<number, number> {
    const text = this.statement("SELECT journal_folded FROM runs WHERE run_id = ?").pluck().get(runId) as string | null | undefined;
    const folded = new Map<number, number>();
    if (typeof text !== "string") return folded;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ControlPlaneError("state_store_failure", `The run '${runId}' has a damaged record of its folded call journals (runs.journal_folded is not JSON), so its journals cannot be folded exactly once.`);
    }
    if (typeof parsed === "object" && parsed !== null) {
      for (const [epoch, seq] of Object.entries(parsed)) if (Number.isSafeInteger(Number(epoch)) && Number.isSafeInteger(seq)) folded.set(Number(epoch), seq as number);
    }
    return folded;
  }

  /**
   * Runs `read` with the run's journaled calls not folded yet, in order: this host's own (held
   * in memory) for a run it holds the lease of; otherwise those in the run's journal files,
   * read first. `read` then runs in one read transaction with the folded `seq`s, and records at
   * or below their epoch's are left out, so a fold committed meanwhile — by this host, or by a
   * host that took the run over — is seen either in `state.db` or in the journal, never twice
   * or not at all.
   */
  private withJournal<T>(runId: string, read: (journaled: readonly JournaledCall[]) => T): T {
    const run = this.leased.get(runId);
    if (run) {
      if (run.pending.length === 0) return read([]);
      // What state.db already holds of them is left out: those a transaction folding them has
      // inserted, and all of them once a host that took the run over (this host paused past its
      // lease) claimed and folded its journal — until this host's next write notices the loss.
      return this.inReadSnapshot(() => {
        const folded = this.foldedSeqs(runId).get(run.epoch) ?? 0;
        return read(run.pending.map(parsedCall).filter((record) => record.seq > folded));
      });
    }
    const files = readJournals(this.runDir(runId));
    if (files.length === 0) return read([]);
    return this.inReadSnapshot(() => {
      const folded = this.foldedSeqs(runId);
      const seen = new Set<string>();
      const journaled: JournaledCall[] = [];
      for (const file of files) {
        for (const record of file.records) {
          const key = `${file.epoch}:${record.seq}`;
          if (record.seq <= (folded.get(file.epoch) ?? 0) || seen.has(key)) continue;
          seen.add(key);
          journaled.push(record);
        }
      }
      return read(journaled);
    });
  }

  /** Runs `read` in one read transaction (one snapshot of state.db), or in the open transaction. */
  private inReadSnapshot<T>(read: () => T): T {
    if (this.db.inTransaction) return read();
    this.db.exec("BEGIN");
    try {
      return read();
    } finally {
      if (this.db.inTransaction) this.db.exec("COMMIT");
    }
  }

  /** The run's folder (`runs/<runId>` beside `state.db`), where its call journals are. */
  private runDir(runId: string): string {
    return path.join(path.dirname(this.file), "runs", runId);
  }

  /** Closes the database (idempotent). */
  close(): void {
    if (this.pendingCheckpoint) clearImmediate(this.pendingCheckpoint);
    this.pendingCheckpoint = undefined;
    if (this.pendingFold) clearImmediate(this.pendingFold);
    this.pendingFold = undefined;
    // Unfolded journals stay on disk: the run's next host folds them.
    for (const runId of [...this.leased.keys()]) this.forgetLeased(runId);
    if (this.db.open) this.db.close();
  }
}

interface RunRow {
  run_id: string;
  status: "active" | "ended";
  end_reason: string | null;
  end_message: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  lease_epoch: number;
}

function toRunRecord(row: Pick<RunRow, "run_id" | "status" | "end_reason" | "end_message">): RunRecord {
  return { runId: row.run_id, status: row.status, endReason: row.end_reason, endMessage: row.end_message };
}

interface CallRow {
  run_id: string;
  call_id: string;
  surface: string;
  tool: string;
  input_json: string;
  status: CallStatus;
  attempts: number;
  runtime_boundary: "sandbox" | "host" | null;
  output_json: string | null;
  model_output_json: string | null;
  error: string | null;
  failure_kind: string | null;
}

interface ApprovalRow {
  run_id: string;
  call_id: string;
  surface: string;
  tool: string;
  input_json: string;
  reason: string;
  side_effect: string;
  state: "pending" | "approved" | "denied";
}

/** The bound values of a {@link CallUpdate}: status, boundary, output, model output, error, failure kind. */
function updateValues(update: CallUpdate): [string, string | null, string | null, string | null, string | null, string | null] {
  const output = update.output === undefined ? null : JSON.stringify(update.output);
  // Without toModelOutput the model sees the full result itself: reuse its text.
  const modelOutput = update.modelOutput === undefined ? null : update.modelOutput === update.output ? output : JSON.stringify(update.modelOutput);
  return [update.status, update.runtimeBoundary ?? null, output, modelOutput, update.error ?? null, update.failureKind ?? null];
}

/** `modelOutput` of a journaled call as a {@link CallUpdate} field (absent in the record: the same as `output`). */
function journaledModelOutput(record: JournaledCall): { modelOutput?: Json } {
  if ("modelOutput" in record && record.modelOutput !== undefined) return { modelOutput: record.modelOutput };
  return record.output === undefined ? {} : { modelOutput: record.output };
}

/** `call` (`undefined`: none yet) as it reads once the journaled `record` is folded (`beginCall`'s insert or retry). */
function withJournaled(call: CallRecord | undefined, runId: string, record: JournaledCall): CallRecord {
  const modelOutput = journaledModelOutput(record).modelOutput;
  return {
    runId,
    callId: record.callId,
    surface: call?.surface ?? record.surface,
    tool: call?.tool ?? record.tool,
    inputJson: call?.inputJson ?? record.inputJson,
    status: record.status,
    attempts: (call?.attempts ?? 0) + 1,
    runtimeBoundary: record.runtimeBoundary,
    output: record.output,
    modelOutput,
    error: null,
    failureKind: null,
  };
}

/** Bytes of JSON a journaled call's events add to the run's stored size (`maxRunStateBytes`). */
function eventBytes(record: JournaledCall): number {
  let bytes = 0;
  for (const event of record.events) bytes += Buffer.byteLength(JSON.stringify(event.data), "utf8");
  return bytes;
}

function toCallRecord(row: CallRow): CallRecord {
  return {
    runId: row.run_id,
    callId: row.call_id,
    surface: row.surface,
    tool: row.tool,
    inputJson: row.input_json,
    status: row.status,
    attempts: row.attempts,
    runtimeBoundary: row.runtime_boundary,
    output: row.output_json === null ? undefined : (JSON.parse(row.output_json) as Json),
    modelOutput: row.model_output_json === null ? undefined : (JSON.parse(row.model_output_json) as Json),
    error: row.error,
    failureKind: row.failure_kind,
  };
}

/** Which file a path names: device and inode. */
interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

function identityOf(file: string): FileIdentity | undefined {
  const stat = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
  return stat && { dev: stat.dev, ino: stat.ino };
}

/**
 * Creates a new, complete state database at `file`: built under a temporary name (WAL mode, the
 * schema) and hard-linked into place only when whole, so a crash never leaves a 0-byte
 * `state.db` (which `open` refuses) and two processes creating it at once keep the first one.
 */
function createDatabase(file: string): void {
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    const db = new (sqlite())(temporary, nativeBinding());
    try {
      db.pragma("journal_mode = WAL");
      migrateStateSchema(db, temporary);
    } finally {
      db.close();
    }
    try {
      fs.linkSync(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  } finally {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) fs.rmSync(temporary + suffix, { force: true });
  }
}

let loadedSqlite: typeof Database | undefined;

/**
 * Loads better-sqlite3 ahead of the first {@link StateStore.open}, by `import()`: the CLI bundle
 * holds better-sqlite3's JavaScript (scripts/build-cli-bundle.mjs), and this is how the bundle
 * gets it without loading it when the runtime is imported (its files resolved and read from
 * `node_modules/` cost about 2 ms of every `call`, issue 14 item 3). `openRuntime` awaits it
 * after starting an announced call's sandbox process. Rejects as `import()` does.
 */
export async function loadStateStoreDriver(): Promise<void> {
  loadedSqlite ??= (await import("better-sqlite3")).default;
}

/**
 * better-sqlite3: the one {@link loadStateStoreDriver} loaded, else required now (a store opened
 * without it: tests, hosts that open a store themselves). Importing the runtime does not load it,
 * so `openRuntime` starts an announced call's sandbox process first (issue 14 item 3,
 * `RuntimeOptions.firstCall`).
 */
function sqlite(): typeof Database {
  return (loadedSqlite ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database);
}

let knownBinding: { readonly nativeBinding: string } | undefined;

/**
 * better-sqlite3's `nativeBinding` option: its addon where its install puts it
 * (`build/Release/better_sqlite3.node` in its package folder), so opening a database skips the
 * `bindings` package's search for it (a stack trace and a failed `require` per candidate
 * folder: about 1.5 ms of every `call`, issue 14 item 3). Where the file is not there, the addon
 * path `bindings` finds in better-sqlite3's folder (its own search, told the folder: from inside
 * the CLI bundle it could not find it from the caller's file). Throws what that search throws
 * (inside the open's guard: a state-store failure).
 */
function nativeBinding(): { readonly nativeBinding: string } {
  if (knownBinding === undefined) {
    const packageFolder = path.dirname(createRequire(import.meta.url).resolve("better-sqlite3/package.json"));
    const file = path.join(packageFolder, "build", "Release", "better_sqlite3.node");
    if (fs.statSync(file, { throwIfNoEntry: false })?.isFile()) knownBinding = { nativeBinding: file };
    else {
      // `path: true`: bindings says where the addon is rather than loading it.
      const bindings = createRequire(path.join(packageFolder, "package.json"))("bindings") as (options: { bindings: string; module_root: string; path: true }) => string;
      knownBinding = { nativeBinding: bindings({ bindings: "better_sqlite3.node", module_root: packageFolder, path: true }) };
    }
  }
  return knownBinding;
}

function toControlPlane(what: string, error: unknown): unknown {
  if (loadedSqlite !== undefined && error instanceof loadedSqlite.SqliteError) {
    return new ControlPlaneError("state_store_failure", `The runtime could not ${what} in the state database: ${error.message}`, { cause: error });
  }
  return error;
}

/**
 * Runs a state-store operation; the store's own failures become the `state_store_failure`
 * {@link ControlPlaneError} (which ends the run): SQLite's errors, and better-sqlite3's refusal
 * of a closed connection. Anything else — a `JSON.stringify` overflow or a value SQLite cannot
 * bind, which only data the store was handed can cause — is rethrown as it is: telling the
 * operator the database failed when it did not, and ending the run for it, let a hostile tool
 * end its run at will (helper-89's review of 6 December, finding 4; the host now refuses such
 * data before it gets here: `../sandbox/child-message-check.ts`).
 */
function guard<T>(what: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof ControlPlaneError) throw error;
    const ours = (loadedSqlite !== undefined && error instanceof loadedSqlite.SqliteError) || (error instanceof TypeError && /database connection is not open/.test(error.message));
    if (!ours) throw error;
    throw new ControlPlaneError("state_store_failure", `The runtime could not ${what} in the state database: ${error.message}`, { cause: error });
  }
}

/** {@link guard} for opening the database: there any failure (a folder, the file, the addon) is the store's. */
function guardOpen<T>(what: string, action: () => T): T {
  try {
    return action();
  } catch (error) {
    if (error instanceof ControlPlaneError) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new ControlPlaneError("state_store_failure", `The runtime could not ${what} in the state database: ${detail}`, { cause: error });
  }
}

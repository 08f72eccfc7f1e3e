/**
 * The run-state database schema (issue 4 item 5): runs (with their progress lease), calls,
 * pending approvals, durable steps, events, and the deferred tools `tool_search` activated per
 * run and surface, in an embedded SQLite database at `<root>/.assemblyline/state.db`.
 *
 * `PRAGMA user_version` records {@link STATE_SCHEMA_VERSION}; a newer database is refused
 * rather than misread, an older one is migrated in place ({@link STATE_MIGRATIONS}).
 *
 * Versions: 1 — the tables below without the lease columns; 2 — `runs.lease_owner`,
 * `runs.lease_expires_at` and `runs.lease_epoch` (the run progress lease, seed "Tool
 * implementation"); 3 — `steps.scope`, in the steps' key: a durable step belongs to the plugin
 * whose tool recorded it ({@link stepScope}), so one plugin can neither read nor pre-empt
 * another's steps under the same key. Steps a version-2 database holds keep the scope `''` and
 * are replayed only to a call of the tool that recorded them (`StateStore.lookupStep`); 4 —
 * `runs.journal_folded`, the per-epoch fold marks of the call journal (`run-journal.ts`,
 * docs/runtime.md, tenth round). A version-3 runtime would neither fold nor read a run's
 * journal, so it must refuse a database a journaling runtime writes: hence a version, not a
 * column added silently on open.
 */

import type Database from "better-sqlite3";

/** Version written to `PRAGMA user_version`. */
export const STATE_SCHEMA_VERSION = 4;

/** The durable steps' table (version 3: `scope` is part of the key; see {@link stepScope}). */
const STEPS_TABLE_SQL = `CREATE TABLE IF NOT EXISTS steps (
  run_id        TEXT NOT NULL REFERENCES runs (run_id),
  scope         TEXT NOT NULL DEFAULT '',
  step_key      TEXT NOT NULL,
  value_json    TEXT,
  metadata_json TEXT,
  call_id       TEXT NOT NULL,
  tool          TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (run_id, scope, step_key)
);`;

/**
 * DDL of the current version (idempotent: creates missing tables only). JSON columns hold
 * `JSON.stringify` text; `NULL` means absent. `lease_owner` is the owner id of the runtime
 * that holds the run's progress lease (`NULL`: free); `lease_expires_at` is when it expires,
 * in milliseconds since the Unix epoch; `lease_epoch` counts the times the lease changed
 * hands (a fencing token: a runtime whose epoch is no longer current lost the run).
 * `journal_folded` is a JSON object naming, per lease epoch, the last record of that epoch's
 * call journal (`runs/<run>/journal-<epoch>.bin`, `run-journal.ts`) already folded into these
 * tables (`NULL`: none): a fold writes it in the same transaction as the rows it adds, so a
 * record is folded exactly once.
 */
export const STATE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS runs (
  run_id           TEXT PRIMARY KEY,
  status           TEXT NOT NULL CHECK (status IN ('active', 'ended')),
  end_reason       TEXT,
  end_message      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  lease_epoch      INTEGER NOT NULL DEFAULT 0,
  journal_folded   TEXT
);
CREATE TABLE IF NOT EXISTS calls (
  run_id            TEXT NOT NULL REFERENCES runs (run_id),
  call_id           TEXT NOT NULL,
  surface           TEXT NOT NULL,
  tool              TEXT NOT NULL,
  input_json        TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('running', 'ok', 'failed', 'approval_required', 'denied')),
  attempts          INTEGER NOT NULL DEFAULT 0,
  runtime_boundary  TEXT,
  output_json       TEXT,
  model_output_json TEXT,
  error             TEXT,
  failure_kind      TEXT,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  PRIMARY KEY (run_id, call_id)
);
CREATE TABLE IF NOT EXISTS approvals (
  run_id       TEXT NOT NULL REFERENCES runs (run_id),
  call_id      TEXT NOT NULL,
  surface      TEXT NOT NULL,
  tool         TEXT NOT NULL,
  input_json   TEXT NOT NULL,
  reason       TEXT NOT NULL,
  side_effect  TEXT NOT NULL,
  state        TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied')),
  requested_at TEXT NOT NULL,
  decided_at   TEXT,
  PRIMARY KEY (run_id, call_id)
);
${STEPS_TABLE_SQL}
CREATE TABLE IF NOT EXISTS activations (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  surface    TEXT NOT NULL,
  tool       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, surface, tool)
);
CREATE TABLE IF NOT EXISTS events (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  call_id    TEXT,
  type       TEXT NOT NULL,
  data_json  TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

/**
 * Columns added after version 1, per table: `[table, column, declaration]` (versions 2 and 4).
 * Migrating adds the ones a database lacks (checked with `PRAGMA table_info`), so a database
 * whose version was never recorded migrates too.
 */
export const STATE_MIGRATIONS: readonly (readonly [table: string, column: string, declaration: string])[] = [
  ["runs", "lease_owner", "TEXT"],
  ["runs", "lease_expires_at", "INTEGER"],
  ["runs", "lease_epoch", "INTEGER NOT NULL DEFAULT 0"],
  ["runs", "journal_folded", "TEXT"],
];

/**
 * The scope of the durable steps a tool records: its surface and the capability (plugin
 * instance) that contributes it, as JSON text (never `''`, the scope of steps recorded before
 * version 3). Seed "Durable Steps": "Step keys are scoped to the current run"; within the run
 * each plugin's keys are its own (hostile plugin code is the normal case: a shared key would let
 * one plugin read another's results, or record one first and have it replayed to the other).
 */
export function stepScope(surface: string, capability: string): string {
  return JSON.stringify([surface, capability]);
}

/**
 * Version 3 puts `scope` into the steps' primary key, which `ALTER TABLE` cannot change: an
 * older `steps` table is copied into the new shape (its rows with scope `''`) and replaced,
 * inside the migration's transaction.
 */
function rebuildStepsWithScope(db: Database.Database): void {
  const columns = (db.prepare("PRAGMA table_info(steps)").all() as { name: string }[]).map((info) => info.name);
  if (columns.includes("scope")) return;
  db.exec(`ALTER TABLE steps RENAME TO steps_before_scope;
${STEPS_TABLE_SQL}
INSERT INTO steps (run_id, scope, step_key, value_json, metadata_json, call_id, tool, created_at)
  SELECT run_id, '', step_key, value_json, metadata_json, call_id, tool, created_at FROM steps_before_scope;
DROP TABLE steps_before_scope;`);
}

/** The database's `user_version`; throws when it is newer than this runtime understands. */
export function schemaVersion(db: Database.Database, file: string): number {
  const version = db.pragma("user_version", { simple: true }) as number;
  if (version > STATE_SCHEMA_VERSION) {
    throw new Error(`${file} has state schema version ${version}; this runtime understands version ${STATE_SCHEMA_VERSION}. Use a newer assembly-line.`);
  }
  return version;
}

/**
 * Brings an older (or new, empty) database to {@link STATE_SCHEMA_VERSION} in one write
 * transaction: gives `steps` its version-3 key, creates missing tables, adds the columns of
 * {@link STATE_MIGRATIONS} it lacks (version 4: `runs.journal_folded`) and records the version. The version is read again inside
 * the transaction, so two processes opening the same old database migrate it once.
 */
export function migrateStateSchema(db: Database.Database, file: string): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    if (schemaVersion(db, file) < STATE_SCHEMA_VERSION) {
      const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
      if (tables.has("steps")) rebuildStepsWithScope(db);
      db.exec(STATE_SCHEMA_SQL);
      for (const [table, column, declaration] of STATE_MIGRATIONS) {
        const columns = (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((info) => info.name);
        if (!columns.includes(column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${declaration}`);
      }
      db.pragma(`user_version = ${STATE_SCHEMA_VERSION}`);
    }
    db.exec("COMMIT");
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * The run-state database schema (issue 4 item 5): runs, calls, pending approvals, durable
 * steps, events, and the deferred tools `tool_search` activated per run and surface, in an embedded SQLite database at `<root>/.assemblyline/state.db`.
 *
 * `PRAGMA user_version` records {@link STATE_SCHEMA_VERSION}; a newer database is refused
 * rather than misread.
 */

/** Version written to `PRAGMA user_version`. */
export const STATE_SCHEMA_VERSION = 1;

/** DDL of version 1 (idempotent). JSON columns hold `JSON.stringify` text; `NULL` means absent. */
export const STATE_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS runs (
  run_id       TEXT PRIMARY KEY,
  status       TEXT NOT NULL CHECK (status IN ('active', 'ended')),
  end_reason   TEXT,
  end_message  TEXT,
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL
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
CREATE TABLE IF NOT EXISTS steps (
  run_id        TEXT NOT NULL REFERENCES runs (run_id),
  step_key      TEXT NOT NULL,
  value_json    TEXT,
  metadata_json TEXT,
  call_id       TEXT NOT NULL,
  tool          TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  PRIMARY KEY (run_id, step_key)
);
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

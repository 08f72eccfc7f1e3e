/**
 * Durable steps belong to the plugin whose tool recorded them (schema version 3,
 * `runtime-min/state/schema.ts` `stepScope`): within a run, a plugin's step keys are its own, so
 * another plugin can neither read its results nor record one first and have it replayed to it
 * (trial 112, B1). A plugin's tools share their keys, as the seed's "once per run" steps need, and
 * steps a version-2 `state.db` holds are replayed to the tool that recorded them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRuntime, type Runtime } from "../../runtime-min/index.js";
import { STATE_SCHEMA_VERSION } from "../../runtime-min/state/schema.js";
import { createAgent, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture;
let runtime: Runtime;

beforeAll(async () => {
  agent = await createAgent([
    { name: "notes_step", file: "probes.ts", factory: "keyedStep", capability: "notes" },
    { name: "notes_other_step", file: "probes.ts", factory: "keyedStep", capability: "notes" },
    { name: "intruder_step", file: "probes.ts", factory: "keyedStep", capability: "intruder" },
  ]);
  runtime = await openRuntime({ root: agent.root });
});

afterAll(async () => {
  await runtime?.close();
  agent?.cleanup();
});

const got = async (tool: string, runId: string, key: string, value: string) => {
  const result = await runtime.call({ tool, input: { key, value }, runId });
  expect(result.status).toBe("ok");
  return (result.output as { got: string }).got;
};

describe("durable steps are scoped to the run and the plugin", () => {
  it("another plugin's tool does not see a step under the same key, nor pre-empts it", async () => {
    expect(await got("intruder_step", "scoped", "save", "forged")).toBe("forged");
    expect(await got("notes_step", "scoped", "save", "real")).toBe("real");
    expect(await got("intruder_step", "scoped", "save", "again")).toBe("forged");
  });

  it("the plugin's own tools share a key within the run, and a new run starts afresh", async () => {
    expect(await got("notes_step", "shared", "hydrate:1", "first")).toBe("first");
    expect(await got("notes_other_step", "shared", "hydrate:1", "second")).toBe("first");
    expect(await got("notes_step", "fresh", "hydrate:1", "third")).toBe("third");
  });
});

describe("a version-2 state.db", () => {
  it("is migrated, and its steps are replayed to the tool that recorded them only", async () => {
    const fixture = await createAgent([
      { name: "notes_step", file: "probes.ts", factory: "keyedStep", capability: "notes" },
      { name: "intruder_step", file: "probes.ts", factory: "keyedStep", capability: "intruder" },
    ]);
    try {
      // A database as version 2 left it: made by this runtime, then given the old steps table back.
      const first = await openRuntime({ root: fixture.root });
      await first.call({ tool: "notes_step", input: { key: "warm", value: "x" }, runId: "old" });
      await first.close();
      const file = path.join(fixture.root, ".assemblyline/state.db");
      const db = new Database(file);
      db.exec(`DROP TABLE steps;
CREATE TABLE steps (run_id TEXT NOT NULL REFERENCES runs (run_id), step_key TEXT NOT NULL, value_json TEXT, metadata_json TEXT, call_id TEXT NOT NULL, tool TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (run_id, step_key));
INSERT INTO steps VALUES ('old', 'save', '"recorded by version 2"', NULL, 'c0', 'notes_step', 't');`);
      db.pragma("user_version = 2");
      db.close();

      const host = await openRuntime({ root: fixture.root });
      try {
        const call = async (tool: string, value: string) => ((await host.call({ tool, input: { key: "save", value }, runId: "old" })).output as { got: string }).got;
        expect(await call("intruder_step", "intruder")).toBe("intruder");
        expect(await call("notes_step", "notes")).toBe("recorded by version 2");
      } finally {
        await host.close();
      }
      const after = new Database(file, { readonly: true });
      try {
        expect(after.pragma("user_version", { simple: true })).toBe(STATE_SCHEMA_VERSION);
        expect((after.prepare("PRAGMA table_info(steps)").all() as { name: string; pk: number }[]).filter((c) => c.pk > 0).map((c) => c.name)).toEqual(["run_id", "scope", "step_key"]);
      } finally {
        after.close();
      }
    } finally {
      fixture.cleanup();
    }
  });
});

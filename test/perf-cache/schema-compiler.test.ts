/**
 * The schema compiler gives the same verdicts inline, on the worker thread and from a
 * verdict store, whatever the scheduling (issue 2 "Measure": parallel schema compiles must
 * not change a single diagnostic).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../common/json-value.js";
import { checkJsonSchema, compileJobOf } from "../../compiler/validation/json-schema.js";
import {
  createSchemaCompiler,
  inlineSchemaCompiler,
  WORKER_THRESHOLD,
  type SchemaCompileJob,
  type SchemaVerdict,
  type VerdictStore,
} from "../../compiler/validation/schema-compiler.js";

/** Schemas that exercise every kind of verdict: accepted, meta-schema errors, strict-mode errors, `$id`s, dialects. */
const INTERESTING: JsonObject[] = [
  { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: false },
  { type: "object", properties: { q: { type: ["string", "null"] } } },
  { type: "object", properties: { q: { type: "string", format: "not-a-format" } } },
  { type: "object", properties: {}, required: ["missing"] },
  { type: "object", properties: { q: { $ref: "#/$defs/nowhere" } } },
  { type: "object", properties: { q: { type: "strin" } } },
  { type: "object", minProperties: -1 },
  { type: "object", properties: { q: { minimum: 1 } } },
  { type: "object", properties: { q: { enum: "not-an-array" } } },
  { $id: "https://example.com/a", type: "object", properties: { q: { $ref: "https://example.com/a#/$defs/s" } }, $defs: { s: { type: "string" } } },
  { $id: "https://example.com/b", type: "object", properties: { q: { $ref: "https://example.com/a#/$defs/s" } } },
  { $schema: "http://json-schema.org/draft-07/schema#", type: "object", definitions: { s: { type: "string" } }, properties: { q: { $ref: "#/definitions/s" } } },
  { $schema: "https://json-schema.org/draft/2019-09/schema", type: "object", properties: { q: { type: "integer", maximum: 3 } } },
  { type: "object", properties: { q: { type: "string", pattern: "^[a-z]+$" } }, unevaluatedProperties: false },
  { $schema: "https://json-schema.org/draft-07/schema#", type: "object", properties: { q: { type: "string" } } },
  { $schema: "https://json-schema.org/draft-07/schema", type: "object", properties: { q: { type: "strin" } } },
  { type: "object", properties: { next: { $ref: "#" } } },
  { type: "object", properties: { x: { $ref: "#/properties/x" } } },
  { type: "object", properties: { q: { type: "array", prefixItems: [{ type: "string" }] } } },
];

/**
 * Distinct valid schemas, enough to start the worker. Each has a `$ref`, so the precheck
 * (`schema-precheck.ts`) leaves it to ajv: the worker only receives schemas that need ajv.
 */
function padding(count: number): JsonObject[] {
  return Array.from({ length: count }, (_, i) => ({ type: "object", $defs: { n: { type: "integer", maximum: i } }, properties: { [`p${i}`]: { $ref: "#/$defs/n" } } }));
}

function jobsOf(schemas: readonly JsonObject[]): SchemaCompileJob[] {
  return schemas.map((schema) => compileJobOf(schema)!);
}

const inlineVerdicts = (jobs: readonly SchemaCompileJob[]): SchemaVerdict[] => jobs.map((job) => inlineSchemaCompiler.verdict(job.dialect, job.schema));

describe("schema compiler", () => {
  it("says something different about each interesting schema (the fixtures cover every kind of verdict)", () => {
    const verdicts = inlineVerdicts(jobsOf(INTERESTING));
    expect(verdicts.filter((v) => v.metaErrors !== null).length).toBeGreaterThanOrEqual(3);
    expect(verdicts.filter((v) => v.compileError !== null).length).toBeGreaterThanOrEqual(4);
    expect(verdicts.filter((v) => v.metaErrors === null && v.compileError === null).length).toBeGreaterThanOrEqual(4);
  });

  it("gives the inline verdicts when the worker judges (main thread asks only after the worker made progress)", async () => {
    const jobs = jobsOf([...padding(WORKER_THRESHOLD * 2), ...INTERESTING]);
    const compiler = createSchemaCompiler();
    try {
      compiler.announce(jobs);
      // Waits for an event, not a duration: the worker's first posted batch.
      for (let i = 0; i < 600 && compiler.counts().workerBatches === 0; i++) await sleep(100);
      const verdicts = jobs.map((job) => compiler.verdict(job.dialect, job.schema));
      expect(verdicts).toEqual(inlineVerdicts(jobs));
      const counts = compiler.counts();
      expect(counts.worker).toBeGreaterThan(0);
      expect(counts.worker + counts.inline).toBe(jobs.length);
    } finally {
      compiler.close();
    }
  });

  it("gives the inline verdicts when the main thread asks at once, in any order (claims, steals)", () => {
    const jobs = jobsOf([...INTERESTING, ...padding(WORKER_THRESHOLD * 3)]);
    for (const order of [jobs, [...jobs].reverse()]) {
      const compiler = createSchemaCompiler();
      try {
        compiler.announce(jobs);
        const verdicts = new Map(order.map((job) => [job, compiler.verdict(job.dialect, job.schema)]));
        expect(jobs.map((job) => verdicts.get(job))).toEqual(inlineVerdicts(jobs));
        const counts = compiler.counts();
        expect(counts.worker + counts.inline).toBe(jobs.length);
      } finally {
        compiler.close();
      }
    }
  });

  it("reuses stored verdicts without judging, and stores new ones", () => {
    const stored = new Map<string, SchemaVerdict>();
    const store: VerdictStore = { get: (key) => stored.get(key), set: (key, verdict) => void stored.set(key, verdict) };
    const jobs = jobsOf(INTERESTING);
    const first = createSchemaCompiler(store);
    first.announce(jobs);
    const firstVerdicts = jobs.map((job) => first.verdict(job.dialect, job.schema));
    first.close();
    expect(stored.size).toBe(jobs.length);
    expect(first.counts().stored).toBe(0);

    const second = createSchemaCompiler(store);
    second.announce(jobs);
    expect(jobs.map((job) => second.verdict(job.dialect, job.schema))).toEqual(firstVerdicts);
    expect(second.counts()).toMatchObject({ stored: jobs.length, inline: 0, worker: 0 });
    second.close();
  });

  it("keeps the $id of one schema from changing how another compiles", () => {
    const [withId, referrer] = jobsOf([INTERESTING[9]!, INTERESTING[10]!]);
    const alone = inlineSchemaCompiler.verdict(referrer!.dialect, referrer!.schema);
    inlineSchemaCompiler.verdict(withId!.dialect, withId!.schema);
    expect(inlineSchemaCompiler.verdict(referrer!.dialect, referrer!.schema)).toEqual(alone);
    expect(alone.compileError).toMatch(/can't resolve reference/);
  });

  it("yields the same diagnostics through checkJsonSchema with either compiler", () => {
    const fallback = { file: "/p/ai.assemblyline/index.ts", line: 1, column: 1 };
    const jobs = jobsOf([...INTERESTING, ...padding(WORKER_THRESHOLD)]);
    const compiler = createSchemaCompiler();
    try {
      compiler.announce(jobs);
      for (const job of jobs) {
        const subject = { role: "inputSchema" as const, located: { value: { s: job.schema }, locations: new Map() }, pointer: "/s", fallback };
        expect(checkJsonSchema(job.schema, subject, compiler)).toEqual(checkJsonSchema(job.schema, subject));
      }
    } finally {
      compiler.close();
    }
  });
});

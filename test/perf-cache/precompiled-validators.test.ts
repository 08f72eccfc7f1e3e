/**
 * The fixed schemas' validators precompiled at build time (`contract/precompiled-validators.ts`,
 * issue 14 item 1) must give exactly the verdicts and errors of compiling the same schemas with
 * ajv at run time: both are compared on valid documents and on thousands of near misses
 * (every member of every object, down to three levels, replaced by values of each JSON type,
 * removed, or joined by an unknown member). A stale module (another fingerprint) is not used.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fixedValidators, precompiledSource, type FixedSchemaSpec } from "../../contract/precompiled-validators.js";
import { officialSchemaSpec } from "../../compiler/plugin-package/official-schemas.js";
import { ENTRY_SCHEMA_SPEC } from "../../compiler/validation/entry-shape.js";
import { LOCKFILE_SCHEMA_SPEC } from "../../lockfile/lockfile-schema.js";

const repo = path.resolve(import.meta.dirname, "../..");
const json = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(repo, file), "utf8"));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "al-precompiled-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, "", "x", "../up", true, [], ["a"], {}, { a: 1 }, "https://x.test/a"];

/** `value` and its near misses: each member (to `depth` levels) replaced, removed, or joined by an unknown one. */
function nearMisses(value: unknown, depth = 3): unknown[] {
  const out: unknown[] = [value, ...REPLACEMENTS];
  if (depth === 0 || value === null || typeof value !== "object") return out;
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      for (const miss of nearMisses(item, depth - 1).slice(1)) out.push(value.map((other, i) => (i === index ? miss : other)));
    });
    out.push([...value, "extra"], []);
    return out;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const { [key]: removed, ...rest } = object;
    out.push(rest);
    for (const miss of nearMisses(removed, depth - 1).slice(1)) out.push({ ...object, [key]: miss });
  }
  out.push({ ...object, unknownMember: 1 }, { ...object, constructor: "x" });
  return out;
}

let written = 0;
/** Writes `source` as `spec`'s module into a new folder (Node caches a required file by path) and returns the folder. */
function writeModule(spec: FixedSchemaSpec, source: string): string {
  const folder = path.join(dir, String(written++));
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, `${spec.name}.cjs`), source);
  return folder;
}

async function bothWays(spec: FixedSchemaSpec) {
  const precompiled = fixedValidators(spec, writeModule(spec, await precompiledSource(spec)));
  const compiled = fixedValidators(spec, path.join(dir, "missing"));
  return { precompiled, compiled };
}

function compare(spec: FixedSchemaSpec, precompiled: ReturnType<typeof fixedValidators>, compiled: ReturnType<typeof fixedValidators>, name: string, samples: readonly unknown[]): number {
  let rejected = 0;
  for (const sample of samples) {
    const a = precompiled.get(name);
    const b = compiled.get(name);
    const verdict = a(sample);
    expect(verdict, `${spec.name}/${name}: ${JSON.stringify(sample)}`).toBe(b(sample));
    expect(a.errors ?? null).toEqual(b.errors ?? null);
    if (!verdict) rejected++;
  }
  return rejected;
}

describe("precompiled validators of the fixed schemas", () => {
  it("plugin.json and mcp.json: the same verdicts and errors as compiling at run time", async () => {
    const spec = officialSchemaSpec();
    const { precompiled, compiled } = await bothWays(spec);
    expect(precompiled.source).toBe("precompiled");
    expect(compiled.source).toBe("compiled");
    const manifests = ["examples/support-agent/plugins/example/plugin.json", "examples/support-agent/plugins/support-tools/plugin.json", "examples/support-agent/subagents/researcher/plugins/citations/plugin.json"]
      .filter((file) => fs.existsSync(path.join(repo, file)))
      .map(json);
    manifests.push({ name: "full", version: "1.0.0", description: "d", author: { name: "a", email: "a@b.test", url: "https://a.test" }, homepage: "https://h.test", repository: "https://r.test", license: "MIT", keywords: ["k"] });
    const rejected = compare(spec, precompiled, compiled, "manifest", manifests.flatMap((m) => nearMisses(m)));
    expect(rejected).toBeGreaterThan(100);
    const stdio = { type: "stdio", command: "node", args: ["a.js"], env: { A: "1" }, cwd: "." };
    const http = { type: "streamable-http", url: "https://x.test/mcp", headers: { A: "b" } };
    const sse = { type: "sse", url: "https://x.test/sse", headers: { A: "b" } };
    for (const [name, server] of [["stdio", stdio], ["streamableHttp", http], ["sse", sse]] as const) {
      expect(compare(spec, precompiled, compiled, name, nearMisses(server))).toBeGreaterThan(10);
    }
  });

  it("the entry schema: the same verdicts and errors as compiling at run time", async () => {
    const { precompiled, compiled } = await bothWays(ENTRY_SCHEMA_SPEC);
    expect(precompiled.source).toBe("precompiled");
    const entry = {
      configSchema: { type: "object", properties: { a: { type: "string" } } },
      tools: {
        echo: {
          definition: "./ai.assemblyline/echo.ts",
          description: "Echoes.",
          inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
          needsApproval: { reason: "r", sideEffect: "write" },
          tags: ["a"],
        },
      },
    };
    expect(compare(ENTRY_SCHEMA_SPEC, precompiled, compiled, "entry", nearMisses(entry, 4))).toBeGreaterThan(100);
  });

  it("plugins.lock: the same verdicts and errors (verbose, with the parent schema) as compiling at run time", async () => {
    const { precompiled, compiled } = await bothWays(LOCKFILE_SCHEMA_SPEC);
    expect(precompiled.source).toBe("precompiled");
    const lock = json("examples/support-agent/plugins.lock");
    expect(compare(LOCKFILE_SCHEMA_SPEC, precompiled, compiled, "lock", nearMisses(lock, 6))).toBeGreaterThan(100);
  });

  it("a module with another fingerprint (a schema changed without a rebuild) is not used", async () => {
    const spec = LOCKFILE_SCHEMA_SPEC;
    const source = await precompiledSource(spec);
    expect(fixedValidators(spec, writeModule(spec, source.replace(/fingerprint: "[0-9a-f]+"/, 'fingerprint: "stale"'))).source).toBe("compiled");
    const current = writeModule(spec, source);
    expect(fixedValidators(spec, current).source).toBe("precompiled");
    const changed: FixedSchemaSpec = { ...spec, schemas: () => [{ ...(spec.schemas()[0] as object), description: "changed" }] };
    expect(fixedValidators(changed, current).source).toBe("compiled");
    expect(fixedValidators(spec, writeModule(spec, "throw new Error('broken')")).source).toBe("compiled");
  });

  it("npm run build writes them, and the built toolchain uses them", async () => {
    const built = path.join(repo, "dist/contract/precompiled-validators.js");
    expect(fs.existsSync(built), "run npm run build first").toBe(true);
    const { fixedValidators: builtValidators } = (await import(built)) as typeof import("../../contract/precompiled-validators.js");
    const { officialSchemaSpec: builtOfficial } = (await import(path.join(repo, "dist/compiler/plugin-package/official-schemas.js"))) as typeof import("../../compiler/plugin-package/official-schemas.js");
    const { ENTRY_SCHEMA_SPEC: builtEntry } = (await import(path.join(repo, "dist/compiler/validation/entry-shape.js"))) as typeof import("../../compiler/validation/entry-shape.js");
    const { LOCKFILE_SCHEMA_SPEC: builtLock } = (await import(path.join(repo, "dist/lockfile/lockfile-schema.js"))) as typeof import("../../lockfile/lockfile-schema.js");
    for (const spec of [builtOfficial(), builtEntry, builtLock]) expect(builtValidators(spec).source, spec.name).toBe("precompiled");
  });
});

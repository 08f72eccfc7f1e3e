/**
 * Issue 9 part 5: the JSON Schemas editors use for `plugins.lock` and the `agent.md` front
 * matter (wired through yaml-language-server / VS Code settings, docs/editor.md). The lock
 * schema file is exactly the schema the lock reader checks (`LOCKFILE_SCHEMA`); the
 * front-matter schema accepts and rejects what the compiler's agent loader does.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { createNodeHost } from "../../common/host.js";
import { LOCKFILE_SCHEMA } from "../../lockfile/lockfile-schema.js";
import { repoRoot, writeTree } from "../helpers/temp-tree.js";

const readSchema = (name: string) => JSON.parse(fs.readFileSync(path.join(repoRoot, "schemas", name), "utf8"));

/** The error codes the compiler's agent loader reports for an agent.md with this front matter. */
function compilerErrors(yaml: string): string[] {
  const root = writeTree({ "agent.md": `---\n${yaml}---\n` });
  return loadAgent(createNodeHost(), root).diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
}

describe("schemas/plugins-lock.schema.json", () => {
  const schema = readSchema("plugins-lock.schema.json");

  it("is LOCKFILE_SCHEMA plus an $id, a title and a description", () => {
    const { $id, title, description, ...rest } = schema;
    expect($id).toBe("https://assemblyline.dev/schemas/plugins-lock.schema.json");
    expect(typeof title).toBe("string");
    expect(typeof description).toBe("string");
    expect(rest).toEqual(LOCKFILE_SCHEMA);
  });

  it("accepts the example agent's lock and rejects hand edits", () => {
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, "examples", "support-agent", "plugins.lock"), "utf8"));
    expect(validate(lock), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ ...lock, lockfileVersion: 2 })).toBe(false);
    expect(validate({ ...lock, generatedAt: "today" })).toBe(false);
  });
});

describe("schemas/agent-front-matter.schema.json", () => {
  const validate = new Ajv2020({ strict: false }).compile(readSchema("agent-front-matter.schema.json"));

  it("accepts the example agents' front matter", () => {
    for (const file of ["agent.md", "subagents/researcher/agent.md"]) {
      const text = fs.readFileSync(path.join(repoRoot, "examples", "support-agent", file), "utf8");
      expect(validate(parse(text.split(/^---$/m)[1]!)), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it.each([
    ["empty capability entries and config", "capabilities:\n  example:\n  search: {}\n  other:\n    config:\n"],
    ["other top-level fields", "name: a\ndescription: other fields are free\n"],
    ["a published plugin with config", "capabilities:\n  openui:\n    package: \"@assemblyline-agents/openui\"\n    config: { brand: { name: Example } }\n"],
  ])("accepts %s, as the compiler does", (_, yaml) => {
    expect(validate(parse(yaml)), JSON.stringify(validate.errors)).toBe(true);
    expect(compilerErrors(yaml)).toEqual([]);
  });

  it.each([
    ["an unknown capability field", "capabilities:\n  example:\n    confg: {}\n"],
    ["a capability key with uppercase letters", "capabilities:\n  Example: {}\n"],
    ["a capability key with a repeated '-'", "capabilities:\n  my--plugin: {}\n"],
    ["a capability entry that is a string", "capabilities:\n  example: yes\n"],
    ["a package that is not a string", "capabilities:\n  example:\n    package: 3\n"],
    ["config that is a list", "capabilities:\n  example:\n    config: [1]\n"],
    ["capabilities that are a list", "capabilities:\n  - example\n"],
    ["a name that is not a string", "name: [a]\n"],
  ])("rejects %s, as the compiler does", (_, yaml) => {
    expect(validate(parse(yaml))).toBe(false);
    expect(compilerErrors(yaml).length).toBeGreaterThan(0);
  });
});

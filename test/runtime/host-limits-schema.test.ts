/**
 * The host limits' ranges (`runtime-min/host-limits.ts`, `HOST_LIMIT_RANGES`) and the project
 * configuration's schema (`schemas/assembly-line.config.schema.json`, `host`) state the same
 * minimums and maximums, so a compile (and the editor) reports a `host.*` value the runtime
 * would refuse at `call` time (AL8062) where it is written.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { HOST_LIMIT_RANGES } from "../../runtime-min/host-limits.js";
import { repoRoot } from "../helpers/temp-tree.js";

const schema = JSON.parse(fs.readFileSync(path.join(repoRoot, "schemas", "assembly-line.config.schema.json"), "utf8")) as {
  properties: { host: { properties: { [key: string]: { minimum?: number; maximum?: number } } } };
};

describe("the project configuration's host limits", () => {
  it("have the runtime's ranges, for every numeric limit the configuration can set", () => {
    const host = schema.properties.host.properties;
    const settable = (Object.keys(HOST_LIMIT_RANGES) as (keyof typeof HOST_LIMIT_RANGES)[]).filter((name) => name in host);
    // maxEventBytes is a flag and an option only.
    expect(settable.sort()).toEqual(["deadlineMs", "maxResultBytes", "memoryMb"]);
    for (const name of settable) {
      const [min, max] = HOST_LIMIT_RANGES[name];
      expect([host[name]!.minimum, host[name]!.maximum], name).toEqual([min, max]);
    }
  });
});

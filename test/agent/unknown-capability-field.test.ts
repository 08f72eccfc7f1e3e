import { describe, expect, it } from "vitest";
import { loadAgent } from "../../compiler/agent/load-agent.js";
import { createNodeHost } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";

describe("an unknown field in a capability entry", () => {
  it("is reported (AL1010) and the capability is still requested with its known fields", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  p:\n    bogus: 1\n    package: \"@x/p\"\n    config:\n      a: 1\n---\n" });
    const agent = loadAgent(createNodeHost(), root);
    expect(agent.diagnostics).toMatchObject([{ code: "AL1010", severity: "error", path: "capabilities.p.bogus" }]);
    expect(agent.surfaces[0]!.capabilities).toMatchObject([{ key: "p", package: "@x/p", config: { a: 1 } }]);
  });

  it("a package or config of the wrong type still drops the capability (its fields cannot be used)", () => {
    const root = writeTree({ "agent.md": "---\ncapabilities:\n  p:\n    package: 3\n  q:\n    config: [1]\n---\n" });
    const agent = loadAgent(createNodeHost(), root);
    expect(agent.diagnostics.map((d) => d.code)).toEqual(["AL1008", "AL1008"]);
    expect(agent.surfaces[0]!.capabilities).toEqual([]);
  });
});

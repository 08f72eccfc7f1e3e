/**
 * Which Node.js versions the toolchain refuses (cli/version.ts `nodeVersionProblem`, read by the
 * package's bin before anything else): the package's own `engines.node`, which must stay a range
 * the check understands.
 */
import { describe, expect, it } from "vitest";
import { nodeVersionProblem, supportedNode } from "../../cli/version.js";

describe("nodeVersionProblem", () => {
  it("understands the package's own engines range and accepts the Node.js running the tests", () => {
    const range = supportedNode();
    expect(range).toMatch(/^>=\s*\d+/);
    expect(nodeVersionProblem()).toBeUndefined();
    // An old Node.js is refused with both versions named, so the range is one the check reads.
    expect(nodeVersionProblem("18.19.0")).toContain(`needs Node.js ${range}`);
  });

  it("compares major, minor and patch, with missing parts as zero", () => {
    expect(nodeVersionProblem("20.19.0", ">=20.19")).toBeUndefined();
    expect(nodeVersionProblem("v20.19.0", ">=20.19")).toBeUndefined();
    expect(nodeVersionProblem("22.0.0", ">=20.19")).toBeUndefined();
    expect(nodeVersionProblem("20.18.3", ">=20.19")).toBe(
      'this toolchain needs Node.js >=20.19 (its package.json "engines"), and this is Node.js 20.18.3: run it with a supported Node.js (e.g. `nvm install 22`, or your system\'s package); nothing was done.',
    );
    expect(nodeVersionProblem("20.19.1", ">=20.19.2")).toContain("20.19.1");
    expect(nodeVersionProblem("21.0.0-pre", ">=20.19")).toBeUndefined();
  });

  it("accepts any alternative of a `||` range, and leaves a range it cannot read to npm", () => {
    expect(nodeVersionProblem("20.19.0", ">=22.12 || >=20.19")).toBeUndefined();
    expect(nodeVersionProblem("20.18.0", ">=22.12 || >=20.19")).toContain("20.18.0");
    expect(nodeVersionProblem("18.0.0", "^20.19 || >=22")).toBeUndefined();
    expect(nodeVersionProblem("18.0.0", "20.x")).toBeUndefined();
  });
});

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/temp-tree.js";
import { stateStoreOpenError } from "../../cli/commands/runtime-commands.js";
import { ControlPlaneError } from "../../runtime-min/failures.js";

const failure = (cause: string) => new ControlPlaneError("state_store_failure", "could not open the state database", { cause: new Error(cause) });

describe("stateStoreOpenError (AL8047)", () => {
  it("is located at the state database relative to the agent root", () => {
    const [diagnostic] = stateStoreOpenError(failure("file is not a database"))!.diagnostics;
    expect(diagnostic).toMatchObject({ code: "AL8047", file: ".assemblyline/state.db", message: "The run state .assemblyline/state.db could not be opened: file is not a database." });
    expect(diagnostic!.hint).toContain("is a state database this runtime wrote");
  });

  it("says when SQLite's native module was built for another Node (new-user trial 115: the hint blamed the database)", () => {
    const cause = "The module '/x/better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 115. This version of Node.js requires NODE_MODULE_VERSION 108.";
    const [diagnostic] = stateStoreOpenError(failure(cause))!.diagnostics;
    expect(diagnostic!.hint).toMatch(/^The SQLite module \(better-sqlite3\) was built for another Node\.js than this one \(v\d+\.\d+\.\d+\): .*npm rebuild better-sqlite3/);
    // The supported range is package.json's engines, read there (one place).
    const engines = (JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } }).engines.node;
    expect(diagnostic!.hint).toContain(`(this toolchain supports ${engines})`);
  });

  it("is undefined for any other error", () => {
    expect(stateStoreOpenError(new Error("x"))).toBeUndefined();
    expect(stateStoreOpenError(new ControlPlaneError("cancelled", "x"))).toBeUndefined();
  });
});

/**
 * A sandboxed tool's run-time `import()` or `require()` of a file the sandbox hides says so
 * (security trial 128, CONFUSING 6; `runtime-min/sandbox/hidden-path-note.ts`): Node's words were
 * "Cannot find module" for a file that exists on the host. A module missing on the host too gets
 * no such note.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { openRuntime } from "../../runtime-min/index.js";
import { noteHiddenModules } from "../../runtime-min/sandbox/hidden-path-note.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent } from "./helpers/agent-fixture.js";
import { holdFixtures } from "./helpers/held-fixtures.js";

const held = holdFixtures();

const NOTE = /exists on the host, but the sandbox process could not find it: .* see "What a sandboxed tool may use" in docs\/host-policy\.md\.$/;

describe("noteHiddenModules", () => {
  it("notes absolute paths that are files on the host, and nothing for a missing file, a folder or a successful call", () => {
    const dir = fs.realpathSync(tempDir("al-hidden-"));
    const file = path.join(dir, "there.mjs");
    fs.writeFileSync(file, "export default 1;\n");
    const failed = (error: string) => ({ ok: false as const, failureKind: "execution_error" as const, error });
    expect(noteHiddenModules(failed(`Cannot find module '${file}' imported from /x/b.mjs`))).toMatchObject({ error: expect.stringMatching(NOTE) });
    expect(noteHiddenModules(failed(`Cannot find module '${file}' imported from /x/b.mjs`)).ok).toBe(false);
    for (const error of [`Cannot find module '${path.join(dir, "missing.mjs")}' imported from /x/b.mjs`, `Cannot find module '${dir}'`, "Cannot find package 'left-pad' imported from /x/b.mjs"]) {
      expect(noteHiddenModules(failed(error))).toEqual(failed(error));
    }
    const ok = { ok: true as const, output: { error: `Cannot find module '${file}'` }, modelOutput: {} };
    expect(noteHiddenModules(ok)).toBe(ok);
  });
});

describe("a sandboxed tool that imports a file outside its bundle", () => {
  it("is told the sandbox hid a file that exists on the host, and only that", async () => {
    held.agent = await createAgent([{ name: "import_path", file: "import-path.ts" }]);
    // Under the OS temp folder, as the trial's was: a folder the sandbox's mount namespace empties.
    const outside = path.join(fs.realpathSync(tempDir("al-outside-")), "evil-import.mjs");
    fs.writeFileSync(outside, 'export default "IMPORTED-OUTSIDE";\n');
    expect(outside.startsWith(`${fs.realpathSync("/tmp")}/`)).toBe(true);
    held.runtime = await openRuntime({ root: held.agent.root });
    for (const how of ["import", "require"] as const) {
      const hidden = (await held.runtime.call({ tool: "import_path", input: { file: outside, how }, runId: "run-a" })) as { status: string; error?: string };
      expect(JSON.stringify(hidden)).not.toContain("IMPORTED-OUTSIDE");
      expect(hidden.status, how).toBe("failed");
      expect(hidden.error, how).toContain(`Cannot find module '${outside}'`);
      expect(hidden.error, how).toMatch(NOTE);
      const missing = path.join(path.dirname(outside), "missing.mjs");
      const gone = (await held.runtime.call({ tool: "import_path", input: { file: missing, how }, runId: "run-a" })) as { status: string; error?: string };
      expect(gone.error, how).toContain(`Cannot find module '${missing}'`);
      expect(gone.error, how).not.toContain("exists on the host");
    }
  }, 60_000);
});

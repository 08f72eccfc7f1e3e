/**
 * Issue 3 "Must show", through the real CLI on a copy of the example agent: deterministic,
 * byte-identical locks; no rewrite when unchanged; `--check` catching drift; a failed compile
 * leaving the lock untouched; recovery from Git conflict markers.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { printedCli, runCli, runCliJson } from "../helpers/run-cli.js";
import { writeStarterAgent } from "../helpers/starter-agent.js";
import { convertToCrlf, copyAgent } from "../helpers/copy-agent.js";
import { supportAgentRoot } from "../helpers/support-agent.js";
import { repoRoot, tempDir } from "../helpers/temp-tree.js";

const lockOf = (root: string) => fs.readFileSync(path.join(root, "plugins.lock"));

function freshCompile(root: string): Buffer {
  fs.rmSync(path.join(root, "plugins.lock"), { force: true });
  const run = runCli(["compile", root]);
  expect(run.status, run.stderr).toBe(0);
  return lockOf(root);
}

describe("plugins.lock through the CLI", () => {
  let reference: Buffer;
  /** The copy of the example agent that `reference` was compiled in (lock and artifact); tests copy it, never change it. */
  let referenceRoot: string;
  beforeAll(() => {
    referenceRoot = copyAgent(supportAgentRoot);
    reference = freshCompile(referenceRoot);
  });

  /**
   * A copy of the example agent as a fresh compile leaves it (its lock is `reference`), for the
   * tests whose subject is what comes after that compile: a copy of the one compiled in
   * `beforeAll` (lock, artifact, cache, timestamps) instead of a compile per test.
   */
  const compiledCopy = (): string => {
    const root = path.join(tempDir("al-agent-"), path.basename(referenceRoot));
    fs.cpSync(referenceRoot, root, { recursive: true, preserveTimestamps: true });
    return root;
  };

  it("the committed example lock is current (compile --check passes)", () => {
    const run = runCli(["compile", supportAgentRoot, "--check"]);
    expect(run.status, run.stderr).toBe(0);
    expect(lockOf(supportAgentRoot).equals(reference)).toBe(true);
  });

  it("is byte-identical for the same agent in two directories and with every text file in CRLF", () => {
    expect(freshCompile(copyAgent(supportAgentRoot, "elsewhere-")).equals(reference)).toBe(true);
    const crlf = copyAgent(supportAgentRoot);
    convertToCrlf(crlf);
    expect(freshCompile(crlf).equals(reference)).toBe(true);
  });

  it("has LF line ends, a trailing newline, no BOM, no absolute paths and no timestamps", () => {
    const text = reference.toString("utf8");
    expect(text.includes("\r")).toBe(false);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.charCodeAt(0)).toBe(0x7b);
    expect(text.startsWith('{\n  "lockfileVersion": 1,\n')).toBe(true);
    expect(text).not.toContain(repoRoot);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
  });

  it("a byte order mark that --check reports is gone after the compile it says to run (helper-72)", () => {
    const root = compiledCopy();
    const lockPath = path.join(root, "plugins.lock");
    fs.writeFileSync(lockPath, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), reference]));
    const check = runCli(["compile", root, "--check"]);
    expect(check.status).toBe(1);
    expect(check.stdout + check.stderr).toContain("byte order mark");
    const { json } = runCliJson(["compile", root]);
    expect(json).toMatchObject({ ok: true, lockChanged: true });
    expect(lockOf(root).equals(reference)).toBe(true);
    expect(runCli(["compile", root, "--check"]).status).toBe(0);
  });

  it("compiling twice writes the same bytes and does not rewrite the file", () => {
    const root = copyAgent(supportAgentRoot);
    freshCompile(root);
    const lockPath = path.join(root, "plugins.lock");
    const before = fs.statSync(lockPath);
    const { json } = runCliJson(["compile", root]);
    expect(json).toMatchObject({ ok: true, lockChanged: false });
    const after = fs.statSync(lockPath);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(after.ino).toBe(before.ino);
  });

  describe("--check", () => {
    const drifted = (change: (root: string) => void) => {
      const root = compiledCopy();
      change(root);
      const lockBefore = lockOf(root);
      const run = runCli(["compile", root, "--check"]);
      expect(run.status).toBe(1);
      expect(lockOf(root).equals(lockBefore)).toBe(true); // --check writes nothing
      return run.stderr;
    };
    const edit = (file: string, from: string, to: string) => (root: string) => {
      const target = path.join(root, file);
      const text = fs.readFileSync(target, "utf8");
      expect(text).toContain(from);
      fs.writeFileSync(target, text.replace(from, to));
    };

    it("catches a changed description, with the property path, the lock path and the fix", () => {
      const report = drifted((root) => {
        edit("plugins/example/ai.assemblyline/index.ts", '"Echo a message back to the caller."', '"Echo the message."')(root);
        edit("plugins/example/ai.assemblyline/echo.ts", '"Echo a message back to the caller."', '"Echo the message."')(root);
      });
      expect(report).toContain('tools.echo.description: "Echo a message back to the caller." → "Echo the message."');
      // The code, and the lock's path as the user typed the root (not just "plugins.lock").
      // Placed at the lead change, file:line:column first, as every pretty diagnostic is.
      expect(report).toMatch(/^\/\S+\/support-agent\/plugins\.lock:\d+:\d+ - error AL6002: plugins\.lock is out of date$/m);
      expect(report).toContain(`${printedCli()} compile`);
      expect(report).toMatch(/^\s+-\s+"description": "Echo a message back to the caller.",$/m);
    });

    it("catches a changed schema keyword", () => {
      const report = drifted((root) => {
        edit("plugins/support-tools/ai.assemblyline/index.ts", 'properties: { note: { type: "string" } }', 'properties: { note: { type: "string", minLength: 1 } }')(root);
        edit("plugins/support-tools/ai.assemblyline/record-note.ts", 'properties: { note: { type: "string" } }', 'properties: { note: { type: "string", minLength: 1 } }')(root);
      });
      expect(report).toContain("tools.record_note.inputSchema.properties.note.minLength");
    });

    it("catches a deleted file in a plugin", () => {
      const report = drifted((root) => fs.rmSync(path.join(root, "plugins/support-tools/skills/escalation/SKILL.md")));
      expect(report).toContain("integrity");
    });

    it("catches a one-character hand edit of an integrity value", () => {
      drifted((root) => {
        const text = fs.readFileSync(path.join(root, "plugins.lock"), "utf8");
        const at = text.indexOf('"integrity": "sha512-') + '"integrity": "sha512-'.length;
        const swapped = text[at] === "A" ? "B" : "A";
        fs.writeFileSync(path.join(root, "plugins.lock"), text.slice(0, at) + swapped + text.slice(at + 1));
      });
    });

    it("passes on a fresh lock converted to CRLF", () => {
      const root = compiledCopy();
      const lock = lockOf(root).toString("utf8");
      fs.writeFileSync(path.join(root, "plugins.lock"), lock.replace(/\n/g, "\r\n"));
      const run = runCli(["compile", root, "--check"]);
      expect(run.status, run.stderr).toBe(0);
    });

    it("fails on a missing lock", () => {
      const root = copyAgent(supportAgentRoot);
      fs.rmSync(path.join(root, "plugins.lock"), { force: true });
      const { status, json } = runCliJson(["compile", root, "--check"]);
      expect(status).toBe(1);
      expect(json.diagnostics.map((d: any) => d.code)).toContain("AL6001");
      expect(fs.existsSync(path.join(root, "plugins.lock"))).toBe(false);
    });
  });

  it("--check --format github and sarif lead with, and sit on, a tool's contract change, not the integrity that changed with it (helper-78 D8.8)", () => {
    const root = path.join(tempDir("al-check-lead-"), "agent");
    writeStarterAgent(root);
    expect(runCli(["compile", root, "--no-package"]).status).toBe(0);
    for (const file of ["index.ts", "hello.ts"]) {
      const module = path.join(root, "plugins/hello/ai.assemblyline", file);
      fs.writeFileSync(module, fs.readFileSync(module, "utf8").replace('description: "Greet a person by name."', 'description: "Greet a person by their name."'));
    }
    const descriptionLine = fs.readFileSync(path.join(root, "plugins.lock"), "utf8").split("\n").findIndex((l) => l.includes('"description": "Greet a person by name."')) + 1;
    const github = runCli(["compile", root, "--check", "--no-package", "--format", "github"], { cwd: path.dirname(root) });
    expect(github.status).toBe(1);
    const annotation = github.stdout.split("\n").find((l) => l.includes("title=AL6002"));
    expect(annotation).toContain(`file=agent/plugins.lock,line=${descriptionLine},`);
    expect(annotation).toContain(`::plugins.lock does not match what \`compile\` would write (surfaces["."].capabilities.hello.tools.hello.description changed, and 1 more change).`);
    const sarif = JSON.parse(runCli(["compile", root, "--check", "--no-package", "--format", "sarif"], { cwd: path.dirname(root) }).stdout);
    const result = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === "AL6002");
    expect(result.locations[0].physicalLocation.region.startLine).toBe(descriptionLine);
    expect(result.properties.path).toBe('surfaces["."].capabilities.hello.tools.hello.description');
  });

  it("--check --format json carries the lock's changes and the contract review the pretty report shows, and SARIF puts them on the AL6002 result (helper-88)", () => {
    const root = path.join(tempDir("al-check-json-"), "agent");
    writeStarterAgent(root);
    expect(runCli(["compile", root, "--no-package"]).status).toBe(0);
    const current = runCliJson(["compile", root, "--check", "--no-package"]);
    expect(current.json.check).toEqual({ status: "up-to-date", changes: [], review: [], formattingOnly: false, notes: [] });
    for (const file of ["index.ts", "hello.ts"]) {
      const module = path.join(root, "plugins/hello/ai.assemblyline", file);
      fs.writeFileSync(module, fs.readFileSync(module, "utf8").replace('description: "Greet a person by name."', 'description: "Greet someone."'));
    }
    const { status, json } = runCliJson(["compile", root, "--check", "--no-package"]);
    expect(status).toBe(1);
    // The pinned keys first and unchanged: one diagnostic for the stale lock.
    expect(Object.keys(json)).toEqual(["ok", "diagnostics", "lockfile", "lockChanged", "artifact", "check"]);
    expect(json.diagnostics.map((d: { code: string }) => d.code)).toEqual(["AL6002"]);
    expect(json.check.status).toBe("out-of-date");
    expect(json.check.changes).toContainEqual({
      kind: "changed",
      path: 'surfaces["."].capabilities.hello.tools.hello.description',
      before: "Greet a person by name.",
      after: "Greet someone.",
    });
    expect(json.check.changes.map((c: { path: string }) => c.path)).toContain('surfaces["."].capabilities.hello.integrity');
    expect(json.check.review).toEqual([{ kind: "description-changed", surface: ".", tool: "hello", detail: "Greet [-a person by name-]{+someone+}.", needsReview: false }]);
    expect(json.check.fixCommand).toContain("compile");
    const sarif = JSON.parse(runCli(["compile", root, "--check", "--no-package", "--format", "sarif"]).stdout);
    const result = sarif.runs[0].results.find((r: { ruleId: string }) => r.ruleId === "AL6002");
    expect(result.properties.lockChanges).toEqual(json.check.changes);
    expect(result.properties.contractReview).toEqual(json.check.review);
  });

  it("a compile with errors leaves the previous lock and artifact byte-identical", () => {
    const root = compiledCopy();
    const lock = lockOf(root);
    const manifest = fs.readFileSync(path.join(root, ".assemblyline/build/manifest.json"));
    fs.appendFileSync(path.join(root, "plugins/example/ai.assemblyline/index.ts"), "\nexport const broken = ;\n");
    const run = runCli(["compile", root]);
    expect(run.status).toBe(1);
    // The lock's path as the user can open it from the working directory.
    expect(run.stderr).toContain(`${path.relative(repoRoot, path.join(root, "plugins.lock"))} and the artifact were left unchanged.`);
    expect(lockOf(root).equals(lock)).toBe(true);
    expect(fs.readFileSync(path.join(root, ".assemblyline/build/manifest.json")).equals(manifest)).toBe(true);
  });

  it("recovers from Git conflict markers to exactly the lock a clean compile writes", () => {
    const root = compiledCopy();
    const clean = lockOf(root).toString("utf8");
    const lines = clean.split("\n");
    const conflicted = [...lines.slice(0, 5), "<<<<<<< HEAD", lines[5], "=======", lines[5]!.replace("sha512-", "sha512-X"), ">>>>>>> theirs", ...lines.slice(6)].join("\n");
    fs.writeFileSync(path.join(root, "plugins.lock"), conflicted);
    const check = runCliJson(["compile", root, "--check"]);
    expect(check.status).toBe(1);
    expect(check.json.diagnostics.map((d: any) => d.code)).toContain("AL6003");
    expect(JSON.stringify(check.json.diagnostics)).toContain("compile");
    const { status, json } = runCliJson(["compile", root]);
    expect(status).toBe(0);
    expect(json.diagnostics.map((d: any) => d.code)).toContain("AL6004");
    // Its `git add` names the lock as typed from where the command ran (new-user trial 119).
    expect(json.diagnostics.find((d: any) => d.code === "AL6004").hint).toContain(`\`git add ${path.join(root, "plugins.lock")}\``);
    expect(lockOf(root).toString("utf8")).toBe(clean);
  });

  it("recomputes a lock that is not valid JSON and says so once, without a frame of the rewritten file", () => {
    const root = compiledCopy();
    const clean = lockOf(root).toString("utf8");
    fs.writeFileSync(path.join(root, "plugins.lock"), clean.replace('"surfaces": {', '"surfaces": {,'));
    const check = runCliJson(["compile", root, "--check"]);
    expect(check.status).toBe(1);
    expect(check.json.diagnostics).toMatchObject([{ code: "AL6005", severity: "error" }]);
    const pretty = runCli(["compile", root]);
    expect(pretty.status).toBe(0);
    expect(lockOf(root).toString("utf8")).toBe(clean);
    expect(pretty.stderr).toContain("warning AL6012: plugins.lock is not valid JSON: ");
    expect(pretty.stderr).toContain("; it was recomputed from the agent's inputs.");
    expect(pretty.stderr).toContain("hint: Review the recomputed plugins.lock and commit it.");
    // Neither the damaged-lock warning nor a code frame of the new lock (it no longer shows the problem).
    expect(pretty.stderr).not.toContain("AL6005");
    expect(pretty.stderr).not.toMatch(/^\s*>?\s*\d+ \|/m);
    // A compile that fails for another reason leaves the damaged lock alone and reports it as it is.
    fs.writeFileSync(path.join(root, "plugins.lock"), "{ not json");
    fs.writeFileSync(path.join(root, "agent.md"), "");
    const failed = runCliJson(["compile", root]);
    expect(failed.status).toBe(1);
    expect(failed.json.diagnostics.map((d: any) => [d.code, d.severity])).toEqual(expect.arrayContaining([["AL6005", "warning"], ["AL1026", "error"]]));
    expect(lockOf(root).toString("utf8")).toBe("{ not json");
  });
});

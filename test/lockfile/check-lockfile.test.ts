import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkLockfile } from "../../lockfile/check-lockfile.js";
import { changeRelevance } from "../../lockfile/lead-change.js";
import { bundlesLeftOutNote } from "../../lockfile/dropped-tools.js";
import { formatLockfileCheckReport } from "../../lockfile/format-check-report.js";
import { hashPluginDirectory } from "../../compiler/plugin-package/hash-plugin-directory.js";
import { checkInstalledVersion } from "../../compiler/agent/installed-version.js";
import { resolvePluginSpec } from "../../cli/add/resolve-plugin-spec.js";
import { serializeLockfile } from "../../lockfile/serialize-lockfile.js";
import type { Lockfile } from "../../contract/lockfile-types.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";
import { sampleLock } from "./helpers.js";

const FIX = "npx assembly-line compile agent";
const options = { displayPath: "agent/plugins.lock", fixCommand: FIX };

function mutated(mutate: (lock: any) => void): Lockfile {
  const lock = JSON.parse(JSON.stringify(sampleLock()));
  mutate(lock);
  return lock;
}

/** Commits `committed` as plugins.lock and returns its path. */
function commit(committed: string): string {
  const file = path.join(tempDir(), "plugins.lock");
  fs.writeFileSync(file, committed);
  return file;
}

describe("checkLockfile", () => {
  it("passes on a fresh lock, and on the same lock converted to CRLF", () => {
    const text = serializeLockfile(sampleLock());
    expect(checkLockfile(commit(text), text, options)).toMatchObject({ ok: true, report: { status: "up-to-date" } });
    expect(checkLockfile(commit(text.replace(/\n/g, "\r\n")), text, options).ok).toBe(true);
  });

  it("catches a changed description, with the property path, both values, the diff and the fix", () => {
    const file = commit(serializeLockfile(sampleLock()));
    const expected = serializeLockfile(mutated((lock) => (lock.surfaces["."].capabilities.example.tools.echo.description = "Echo the message.")));
    const { ok, report } = checkLockfile(file, expected, options);
    expect(ok).toBe(false);
    expect(report.status).toBe("out-of-date");
    expect(report.groups).toEqual([
      expect.objectContaining({
        title: 'surfaces["."].capabilities.example',
        surface: ".",
        capability: "example",
        changes: [expect.objectContaining({ kind: "changed", path: "tools.echo.description", before: "Echo a message back to the caller.", after: "Echo the message." })],
      }),
    ]);
    const committedLines = fs.readFileSync(file, "utf8").split("\n");
    const line = committedLines.findIndex((l) => l.includes('"description": "Echo a message')) + 1;
    const column = committedLines[line - 1]!.indexOf('"description"') + 1;
    expect(report.diagnostic).toMatchObject({
      code: "AL6002",
      file,
      line,
      column,
      path: 'surfaces["."].capabilities.example.tools.echo.description',
      message: 'plugins.lock does not match what `compile` would write (surfaces["."].capabilities.example.tools.echo.description changed).',
      hint: `Run \`${FIX}\` and commit plugins.lock.`,
    });
    expect(formatLockfileCheckReport(report)).toBe(
      [
        // Placed where --format github and SARIF place it (the lead change), as pretty diagnostics are.
        `agent/plugins.lock:${line}:${column} - error AL6002: plugins.lock is out of date`,
        "",
        '  surfaces["."].capabilities.example',
        '    tools.echo.description: "Echo a message back to the caller." → "Echo the message."',
        "",
        "  The files of capability 'example' are unchanged (the same integrity), yet its locked tools.echo.description differs from what they say: plugins.lock was edited by hand (or written by another version of assembly-line).",
        "",
        "  --- agent/plugins.lock (on disk)",
        "  +++ agent/plugins.lock (what compile would write)",
        "  @@ -18,7 +18,7 @@",
        '                 "aliases": [],',
        '                 "config": {},',
        '                 "definition": "./ai.assemblyline/echo.ts",',
        '  -              "description": "Echo a message back to the caller.",',
        '  +              "description": "Echo the message.",',
        '                 "inputSchema": {',
        '                   "properties": {',
        '                     "message": {',
        "",
        `Fix: ${FIX} (then commit plugins.lock)`,
        "",
      ].join("\n"),
    );
  });

  it("leads with, and is placed on, a tool's contract change before the hashes that changed with it (helper-78 D8.8)", () => {
    const file = commit(serializeLockfile(sampleLock()));
    const expected = serializeLockfile(
      mutated((lock) => {
        const capability = lock.surfaces["."].capabilities.example;
        capability.integrity = `sha512-${"A".repeat(86)}==`;
        capability.tools.echo.description = "Echo the message.";
        if (capability.tools.echo.bundle !== undefined) capability.tools.echo.bundle = `sha512-${"B".repeat(86)}==`;
      }),
    );
    const { report } = checkLockfile(file, expected, options);
    // The report's own order is canonical: integrity sorts first.
    expect(report.groups[0]!.changes[0]!.path).toBe("integrity");
    const committedLines = fs.readFileSync(file, "utf8").split("\n");
    expect(report.diagnostic).toMatchObject({
      line: committedLines.findIndex((l) => l.includes('"description": "Echo a message')) + 1,
      path: 'surfaces["."].capabilities.example.tools.echo.description',
    });
    expect(report.diagnostic!.message).toMatch(/^plugins\.lock does not match what `compile` would write \(surfaces\["\."\]\.capabilities\.example\.tools\.echo\.description changed, and [12] more changes?\)\.$/);
    expect(changeRelevance(["surfaces", ".", "capabilities", "example", "tools", "echo", "bundle"])).toBe(2);
    expect(changeRelevance(["surfaces", ".", "capabilities", "example", "integrity"])).toBe(2);
    expect(changeRelevance(["surfaces", ".", "capabilities", "example", "config", "index"])).toBe(1);
    expect(changeRelevance(["surfaces", ".", "capabilities", "example", "tools", "echo"])).toBe(0);
  });

  it("says a lock was edited by hand when a tool's contract changed and its plugin's integrity did not (new-user trial C11)", () => {
    const text = serializeLockfile(sampleLock());
    const edited = serializeLockfile(mutated((lock) => {
      lock.surfaces["."].capabilities.example.tools.echo.description = "Edited.";
      lock.surfaces["."].capabilities.example.tools.echo.tags = ["x"];
    }));
    const handEdit = checkLockfile(commit(edited), text, options).report;
    expect(handEdit.notes).toEqual([
      "The files of capability 'example' are unchanged (the same integrity), yet its locked tools.echo.description, tools.echo.tags differ from what they say: plugins.lock was edited by hand (or written by another version of assembly-line).",
    ]);
    // Stale, not edited: the plugin's files changed too (its integrity), so the contract may have.
    const stale = checkLockfile(commit(text), serializeLockfile(mutated((lock) => {
      lock.surfaces["."].capabilities.example.tools.echo.description = "New.";
      lock.surfaces["."].capabilities.example.integrity = "sha512-" + "A".repeat(86) + "==";
    })), options).report;
    expect(stale.status).toBe("out-of-date");
    expect(stale.notes).toEqual([]);
    // The agent's config merges into `config` and packages into `bundle`: neither says a hand edit.
    const config = checkLockfile(commit(text), serializeLockfile(mutated((lock) => (lock.surfaces["."].capabilities.example.tools.echo.config = { a: 1 }))), options).report;
    expect(config.groups.length).toBe(1);
    expect(config.notes).toEqual([]);
  });

  it("catches a changed schema keyword", () => {
    const file = commit(serializeLockfile(sampleLock()));
    const expected = serializeLockfile(mutated((lock) => (lock.surfaces["."].capabilities.example.tools.echo.inputSchema.properties.message.type = "number")));
    const { report } = checkLockfile(file, expected, options);
    expect(report.groups.flatMap((g) => g.changes.map((c) => `${g.title} ${c.path}`))).toEqual([
      'surfaces["."].capabilities.example tools.echo.inputSchema.properties.message.type',
    ]);
    expect(formatLockfileCheckReport(report)).toContain('tools.echo.inputSchema.properties.message.type: "string" → "number"');
  });

  it("catches a file deleted from a plugin (its integrity changes)", () => {
    const plugin = path.join(tempDir(), "example");
    writeFiles(plugin, { "plugin.json": '{"name":"example"}\n', "ai.assemblyline/index.ts": "export default { tools: {} };\n", "skills/a/SKILL.md": "---\nname: a\n---\n" });
    const lockFor = () => mutated((lock) => (lock.surfaces["."].capabilities.example.integrity = hashPluginDirectory(plugin).integrity));
    const file = commit(serializeLockfile(lockFor()));
    expect(checkLockfile(file, serializeLockfile(lockFor()), options).ok).toBe(true);
    fs.rmSync(path.join(plugin, "skills/a/SKILL.md"));
    const { ok, report } = checkLockfile(file, serializeLockfile(lockFor()), options);
    expect(ok).toBe(false);
    expect(report.groups.flatMap((g) => g.changes.map((c) => c.path))).toEqual(["integrity"]);
  });

  it("catches a one-character hand edit of an integrity value", () => {
    const text = serializeLockfile(sampleLock());
    const integrity = sampleLock().surfaces["."]!.capabilities.openui!.integrity;
    const index = text.indexOf(integrity) + 20;
    const edited = text.slice(0, index) + (text[index] === "A" ? "B" : "A") + text.slice(index + 1);
    const { ok, report } = checkLockfile(commit(edited), text, options);
    expect(ok).toBe(false);
    expect(report.status).toBe("out-of-date");
    const change = report.groups[0]!.changes[0]!;
    expect([report.groups[0]!.title, change.path, change.after]).toEqual(['surfaces["."].capabilities.openui', "integrity", integrity]);
    expect(report.diff.filter((l) => l.startsWith("-") || l.startsWith("+")).length).toBe(4); // 2 headers + 1 removed + 1 added
  });

  it("reports added and removed capabilities and tools in their parent's group", () => {
    const committed = mutated((lock) => {
      lock.surfaces["."].capabilities.legacy = lock.surfaces["."].capabilities.example;
    });
    const expected = mutated((lock) => {
      delete lock.surfaces["."].capabilities.example.tools.bash;
      lock.surfaces["."].capabilities.example.tools.shout = { disabled: true };
      lock.surfaces["subagents/writer"] = { capabilities: {} };
    });
    const { report } = checkLockfile(commit(serializeLockfile(committed)), serializeLockfile(expected), options);
    const text = formatLockfileCheckReport(report);
    expect(text).toContain(['  surfaces["."].capabilities.example', "    - tools.bash", "    + tools.shout"].join("\n"));
    expect(text).toContain(['  surfaces["."]', "    - capabilities.legacy"].join("\n"));
    expect(text).toContain(["  plugins.lock", '    + surfaces["subagents/writer"]'].join("\n"));
  });

  it("fails a formatting-only hand edit and says so", () => {
    const text = serializeLockfile(sampleLock());
    const reindented = `${JSON.stringify(sampleLock(), null, 4)}\n`;
    const { ok, report } = checkLockfile(commit(reindented), text, options);
    expect(ok).toBe(false);
    expect(report.formattingOnly).toBe(true);
    expect(report.groups).toEqual([]);
    expect(report.diagnostic?.message).toContain("the values are equal, but the formatting or key order differs");
    expect(report.diff.length).toBe(40);
    expect(report.diffOmittedLines).toBeGreaterThan(0);
    expect(formatLockfileCheckReport(report)).toMatch(/… \d+ more diff lines not shown/);
  });

  it("says when a BOM is the only difference", () => {
    const text = serializeLockfile(sampleLock());
    const { ok, report } = checkLockfile(commit(`\uFEFF${text}`), text, options);
    expect(ok).toBe(false);
    expect(report.notes).toEqual(["The file starts with a byte order mark; the lock is written without one."]);
  });

  it("says that a bundle integrity left out of what --check computes is one compile writes anew, not one it drops", () => {
    const file = commit(serializeLockfile(sampleLock()));
    // A changed plugin: its content integrity moves, and --check cannot carry its tools' bundle integrities over.
    const expected = mutated((lock) => {
      const capability = lock.surfaces["."].capabilities.openui;
      capability.integrity = "sha512-changed";
      delete capability.tools.render_card.bundle;
    });
    const { ok, report } = checkLockfile(file, serializeLockfile(expected), options);
    expect(ok).toBe(false);
    expect(report.notes).toEqual([bundlesLeftOutNote(1)]);
    expect(report.notes[0]).toBe("The diff drops the bundle integrity of 1 tool whose plugin changed: --check (like --no-package) does not bundle. compile bundles the tool and writes its new integrity.");
    expect(formatLockfileCheckReport(report)).toContain(report.notes[0]);
    expect(bundlesLeftOutNote(2)).toContain("of 2 tools whose");
    // A tool removed with its bundle is no bundle left out.
    const removed = mutated((lock) => {
      lock.surfaces["."].capabilities.openui.tools = {};
    });
    expect(checkLockfile(file, serializeLockfile(removed), options).report.notes).toEqual([]);
    // Nor is a tool now disabled.
    const disabled = mutated((lock) => {
      lock.surfaces["."].capabilities.openui.tools.render_card = { disabled: true };
    });
    expect(checkLockfile(file, serializeLockfile(disabled), options).report.notes).toEqual([]);
  });

  it("fails on a missing lock with its own message", () => {
    const file = path.join(tempDir(), "plugins.lock");
    const { ok, report } = checkLockfile(file, serializeLockfile(sampleLock()), options);
    expect(ok).toBe(false);
    expect(report.diagnostic).toMatchObject({ code: "AL6001", hint: `Run \`${FIX}\` and commit plugins.lock.` });
    // A missing file has no line to point at: its path alone.
    expect(formatLockfileCheckReport(report)).toBe(`agent/plugins.lock - error AL6001: plugins.lock is missing\n\nFix: ${FIX} (then commit plugins.lock)\n`);
    expect(fs.existsSync(file)).toBe(false);
    const here = checkLockfile(file, serializeLockfile(sampleLock()), { ...options, displayPath: "plugins.lock" }).report;
    expect(formatLockfileCheckReport(here)).toBe(`plugins.lock - error AL6001: plugins.lock is missing\n\nFix: ${FIX} (then commit plugins.lock)\n`);
  });

  it("fails on conflict markers and says to run compile", () => {
    const text = serializeLockfile(sampleLock());
    const file = commit(`{\n<<<<<<< HEAD\n${text}=======\n${text}>>>>>>> theirs\n`);
    const { ok, report } = checkLockfile(file, text, options);
    expect(ok).toBe(false);
    expect(report.status).toBe("conflict");
    expect(report.diagnostic?.code).toBe("AL6003");
    expect(formatLockfileCheckReport(report)).toBe(
      `agent/plugins.lock:2:1 - error AL6003: plugins.lock contains Git conflict markers\n\nFix: ${FIX} (recomputes the lock from the agent's inputs; then commit it)\n`,
    );
  });

  it("refuses a newer lock with an upgrade hint and no compile fix", () => {
    const { ok, report } = checkLockfile(commit('{\n  "lockfileVersion": 3,\n  "surfaces": {}\n}\n'), serializeLockfile(sampleLock()), options);
    expect(ok).toBe(false);
    expect(report.status).toBe("unsupported-version");
    expect(report.fixCommand).toBeUndefined();
    const text = formatLockfileCheckReport(report);
    expect(text).toContain("lockfileVersion 3");
    expect(text).toContain("Use the assembly-line version that wrote it (or a newer one)");
    expect(text).not.toContain("Fix:");
  });

  it("reports an unparsable hand edit as invalid, with the diff", () => {
    const text = serializeLockfile(sampleLock());
    const { ok, report } = checkLockfile(commit(text.replace('"visibility": "visible"', '"visibility": "visible",')), text, options);
    expect(ok).toBe(false);
    expect(report.status).toBe("invalid");
    expect(report.diagnostic?.code).toBe("AL6005");
    const { line, column, message } = report.diagnostic!;
    expect(line).toBeGreaterThan(1);
    expect(formatLockfileCheckReport(report).split("\n")[0]).toBe(`agent/plugins.lock:${line}:${column} - error AL6005: ${message}`);
    expect(report.diff.some((l) => l.startsWith("-") && l.includes('"visible",'))).toBe(true);
    expect(report.notes).toEqual([]);
  });

  it("says why the diff of an unreadable lock drops its bundle lines (new-user trial of 6 December)", () => {
    const committed = serializeLockfile(sampleLock());
    // What --check computes when it has no integrities to carry over: no bundle lines.
    const expected = serializeLockfile(mutated((lock) => delete lock.surfaces["."].capabilities.openui.tools.render_card.bundle));
    expect(committed.match(/"bundle":/g)?.length).toBe(1);
    const { report } = checkLockfile(commit(committed.replace('"surfaces": {', '"surfaces": {,')), expected, options);
    expect(report.status).toBe("invalid");
    expect(report.notes).toEqual(["The diff drops a bundle integrity line: the lock could not be read, so --check (which does not bundle) had none to carry over. compile bundles the tools and writes their integrities."]);
  });

  it("writes nothing", () => {
    const text = serializeLockfile(sampleLock());
    const file = commit(serializeLockfile(mutated((lock) => (lock.surfaces["."].capabilities.example.config = { a: 1 }))));
    const before = fs.readFileSync(file);
    const stat = fs.statSync(file);
    checkLockfile(file, text, options);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(stat.mtimeMs);
    expect(fs.readdirSync(path.dirname(file))).toEqual(["plugins.lock"]);
  });
});

describe("checkInstalledVersion", () => {
  const location = { file: "/agent/agent.md", line: 5, column: 3 };
  const locked = { type: "npm", name: "@assemblyline-agents/openui", version: "1.2.0" } as const;

  it("accepts the locked version and ignores local sources", () => {
    expect(checkInstalledVersion({ capability: "openui", locked, installedVersion: "1.2.0", location, installCommand: "npm install" })).toBeUndefined();
    expect(checkInstalledVersion({ capability: "x", locked: { type: "local", path: "plugins/x" }, installedVersion: undefined, location, installCommand: "npm install" })).toBeUndefined();
  });

  it("refuses another installed version with both fixes, and a missing install", () => {
    expect(checkInstalledVersion({ capability: "openui", locked, installedVersion: "1.3.0", location, installCommand: "pnpm install" })).toMatchObject({
      code: "AL6008",
      line: 5,
      message: "Capability 'openui' is locked to @assemblyline-agents/openui@1.2.0, but @assemblyline-agents/openui@1.3.0 is installed.",
      hint: "Run `pnpm install` to install the locked version, or `npx assembly-line add @assemblyline-agents/openui@1.3.0` to lock the installed one.",
    });
    expect(checkInstalledVersion({ capability: "openui", locked, installedVersion: undefined, location, installCommand: "npm install" })?.code).toBe("AL6009");
  });

  // New-user trial E4: a plugin installed from a tarball got `add npm:weather-plugin@1.3.0`, which
  // asks the public registry (a 404 there, or an unrelated package of that name).
  it("names the path package.json installs from, never the registry, when the installed one came from a file or git", () => {
    const unscoped = { type: "npm", name: "weather-plugin", version: "1.2.0" } as const;
    const base = { capability: "weather", locked: unscoped, installedVersion: "1.3.0", location, installCommand: "npm install", displayFrom: "/agent" };
    expect(checkInstalledVersion({ ...base, declared: { spec: "file:vendor/weather-plugin-1.3.0.tgz", projectDir: "/agent" } })?.hint).toBe(
      "package.json installs weather-plugin from file:vendor/weather-plugin-1.3.0.tgz. To compile the locked weather-plugin@1.2.0, point package.json at it and run `npm install`; to lock what package.json installs, run `npx assembly-line add ./vendor/weather-plugin-1.3.0.tgz`.",
    );
    expect(checkInstalledVersion({ ...base, declared: { spec: "../plugins/weather", projectDir: "/agent" } })?.hint).toContain("`npx assembly-line add ../plugins/weather`");
    expect(checkInstalledVersion({ ...base, declared: { spec: "github:me/weather", projectDir: "/agent" } })?.hint).toBe(
      "package.json installs weather-plugin from github:me/weather, which `add` does not lock. To compile the locked weather-plugin@1.2.0, point package.json at it and run `npm install`; to lock the installed weather-plugin@1.3.0, pack it with `npm pack` and add the tarball.",
    );
    expect(checkInstalledVersion({ ...base, declared: { spec: "^1.3.0", projectDir: "/agent" } })?.hint).toContain("add npm:weather-plugin@1.3.0");
    // package.json already names the locked version's tarball: only node_modules is behind (new-user trial of 6 December).
    expect(checkInstalledVersion({ ...base, declared: { spec: "file:vendor/weather-plugin-1.2.0.tgz", projectDir: "/agent" } })?.hint).toBe(
      "package.json already installs weather-plugin from file:vendor/weather-plugin-1.2.0.tgz, the locked version 1.2.0: node_modules is behind it (as after a pull without an install). Run `npm install`.",
    );
  });

  it("names an unscoped package with npm: in the hint (a bare name would mean @assemblyline-agents/<name>)", () => {
    const unscoped = { type: "npm", name: "community-charts", version: "2.0.0" } as const;
    const diagnostic = checkInstalledVersion({ capability: "charts", locked: unscoped, installedVersion: "2.1.0", location, installCommand: "npm install" });
    expect(diagnostic).toMatchObject({ code: "AL6008", hint: "Run `npm install` to install the locked version, or `npx assembly-line add npm:community-charts@2.1.0` to lock the installed one." });
    // What the hint proposes resolves to that very package, not to the official scope.
    expect(resolvePluginSpec("npm:community-charts@2.1.0", "/")).toMatchObject({ ok: true, spec: { kind: "registry", name: "community-charts", version: "2.1.0" } });
    expect(resolvePluginSpec("community-charts@2.1.0", "/")).toMatchObject({ ok: true, spec: { name: "@assemblyline-agents/community-charts" } });
  });
});

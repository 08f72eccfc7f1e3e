/** skills/ discovery and Agent Skills front matter: one test per diagnostic code, with exact positions. */
import { describe, expect, it } from "vitest";
import { skillNameProblems } from "../../compiler/plugin-package/index.js";
import { expectDiagnostic, load, skill } from "./helpers.js";

const names = (pkg: ReturnType<typeof load>) => ({
  loaded: pkg.skills.map((s) => s.name),
  skipped: (pkg.skippedSkills ?? []).map((s) => s.name),
});

describe("skills", () => {
  it("discovers immediate children only, sorted, and never recurses", () => {
    const pkg = load({
      "skills/omega/SKILL.md": skill("omega"),
      "skills/alpha/SKILL.md": skill("alpha"),
      "skills/alpha/references/nested/SKILL.md": "not even front matter",
      "skills/group/deeper/SKILL.md": skill("deeper"),
      "skills/README.md": "# not a skill",
    });
    expect(pkg.skillsStatus).toBe("loaded");
    expect(names(pkg)).toEqual({ loaded: ["alpha", "omega"], skipped: [] });
    expect(pkg.skills[0]).toEqual({ name: "alpha", description: "Skill alpha.", file: "/work/plugin/skills/alpha/SKILL.md" });
    expect(pkg.diagnostics).toEqual([]);
  });

  it("an absent skills/ is not an error; an empty one loads nothing", () => {
    expect(load({}).skillsStatus).toBe("absent");
    const empty = load({ skills: { directory: true } });
    expect(empty.skillsStatus).toBe("loaded");
    expect(empty.diagnostics).toEqual([]);
  });

  it("AL2009: skills must be a directory", () => {
    const pkg = load({ skills: "a file", "mcp.json": `{"$schema": "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json", "mcpServers": {}}` });
    expect(pkg.skillsStatus).toBe("invalid");
    expect(pkg.mcpStatus).toBe("configured");
    expectDiagnostic(pkg, { code: "AL2009", file: "skills", line: 1, column: 1 });
  });

  it("AL2201: no front matter skips the skill, others load", () => {
    const pkg = load({ "skills/alpha/SKILL.md": skill("alpha"), "skills/bare/SKILL.md": "# bare\n\nNo front matter.\n" });
    expect(names(pkg)).toEqual({ loaded: ["alpha"], skipped: ["bare"] });
    expect(pkg.skippedSkills).toEqual([{ name: "bare", file: "/work/plugin/skills/bare/SKILL.md", codes: ["AL2201"] }]);
    expectDiagnostic(pkg, { code: "AL2201", file: "skills/bare/SKILL.md", line: 1, column: 1 });
  });

  it("AL2202: unterminated front matter", () => {
    const pkg = load({ "skills/open/SKILL.md": "---\nname: open\ndescription: d\n\nBody without a closing line.\n" });
    expect(names(pkg).skipped).toEqual(["open"]);
    expectDiagnostic(pkg, { code: "AL2202", file: "skills/open/SKILL.md", line: 1, column: 1 });
  });

  it("AL2203: YAML errors point into SKILL.md (duplicate keys included)", () => {
    const pkg = load({ "skills/dup/SKILL.md": "---\nname: dup\ndescription: one\ndescription: two\n---\n" });
    expect(names(pkg).skipped).toEqual(["dup"]);
    expectDiagnostic(pkg, { code: "AL2203", file: "skills/dup/SKILL.md", line: 4, column: 1 });
    const syntax = load({ "skills/bad/SKILL.md": "---\nname: bad\ndescription: [unclosed\n---\n" });
    expect(names(syntax).skipped).toEqual(["bad"]);
    expect(syntax.diagnostics.map((d) => d.code)).toEqual(["AL2203"]);
  });

  it("AL2204: the front matter must be a mapping", () => {
    const pkg = load({ "skills/list/SKILL.md": "---\n- name\n- description\n---\n" });
    expectDiagnostic(pkg, { code: "AL2204", file: "skills/list/SKILL.md", line: 2, column: 1 });
  });

  it("AL2205: name and description are required", () => {
    const pkg = load({ "skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n" });
    expect(names(pkg).skipped).toEqual(["nodesc"]);
    const d = expectDiagnostic(pkg, { code: "AL2205", file: "skills/nodesc/SKILL.md", line: 1, column: 1 });
    expect(d.message).toContain("'description'");
  });

  it("AL2206: name must be a string", () => {
    const pkg = load({ "skills/123/SKILL.md": "---\nname: 123\ndescription: d\n---\n" });
    expectDiagnostic(pkg, { code: "AL2206", file: "skills/123/SKILL.md", line: 2, column: 7, path: "name" });
  });

  it("AL2207: Agent Skills name rules (uppercase, length, hyphens, characters)", () => {
    const pkg = load({ "skills/Upper/SKILL.md": "---\nname: Upper\ndescription: d\n---\n" });
    expect(names(pkg).skipped).toEqual(["Upper"]);
    const d = expectDiagnostic(pkg, { code: "AL2207", file: "skills/Upper/SKILL.md", line: 2, column: 7, path: "name" });
    expect(d.message).toContain("uppercase letters ('U')");
  });

  it("AL2208: the name must match the directory", () => {
    const pkg = load({ "skills/renamed/SKILL.md": "---\r\nname: not-renamed\r\ndescription: d\r\n---\r\n" });
    expect(names(pkg)).toEqual({ loaded: [], skipped: ["renamed"] });
    const d = expectDiagnostic(pkg, { code: "AL2208", file: "skills/renamed/SKILL.md", line: 2, column: 7, path: "name" });
    expect(d.hint).toBe("Set 'name: renamed' or rename the directory to skills/not-renamed/.");
  });

  it("a Unicode lowercase name loads, compared after NFKC normalization", () => {
    const pkg = load({ "skills/caf\u00e9/SKILL.md": "---\nname: cafe\u0301\ndescription: d\n---\n" });
    expect(names(pkg)).toEqual({ loaded: ["caf\u00e9"], skipped: [] });
  });

  it("AL2209: description length and emptiness", () => {
    const long = load({ "skills/long/SKILL.md": skill("long", "x".repeat(1025)) });
    expectDiagnostic(long, { code: "AL2209", file: "skills/long/SKILL.md", line: 3, column: 14, path: "description" });
    expect(long.diagnostics[0]!.message).toContain("1025 characters long (at most 1024)");
    expect(load({ "skills/ok/SKILL.md": skill("ok", "x".repeat(1024)) }).skills).toHaveLength(1);
    const empty = load({ "skills/empty/SKILL.md": "---\nname: empty\ndescription: \"  \"\n---\n" });
    expect(names(empty).skipped).toEqual(["empty"]);
  });

  it("AL2210: compatibility is 1-500 characters", () => {
    const pkg = load({ "skills/c/SKILL.md": `---\nname: c\ndescription: d\ncompatibility: ${"y".repeat(501)}\n---\n` });
    expect(names(pkg).skipped).toEqual(["c"]);
    expectDiagnostic(pkg, { code: "AL2210", file: "skills/c/SKILL.md", line: 4, column: 16, path: "compatibility" });
  });

  it("AL2211: unknown front matter fields are warnings with did-you-mean", () => {
    const pkg = load({ "skills/a/SKILL.md": "---\nname: a\ndescription: d\nallowed_tools: Read\n---\n" });
    expect(names(pkg).loaded).toEqual(["a"]);
    const d = expectDiagnostic(pkg, { code: "AL2211", file: "skills/a/SKILL.md", line: 4, column: 1, path: "allowed_tools", severity: "warning" });
    expect(d.hint).toBe("Did you mean 'allowed-tools'?");
  });

  it("AL2212: malformed optional fields are ignored with a warning (allowed-tools is experimental)", () => {
    const pkg = load({ "skills/a/SKILL.md": "---\nname: a\ndescription: d\nallowed-tools: 42\n---\n" });
    expect(names(pkg).loaded).toEqual(["a"]);
    expectDiagnostic(pkg, { code: "AL2212", file: "skills/a/SKILL.md", line: 4, column: 16, path: '["allowed-tools"]', severity: "warning" });
    const metadata = load({ "skills/m/SKILL.md": "---\nname: m\ndescription: d\nmetadata:\n  version: 1.0\n---\n" });
    expect(names(metadata).loaded).toEqual(["m"]);
    expectDiagnostic(metadata, { code: "AL2212", file: "skills/m/SKILL.md", line: 5, column: 12, path: "metadata.version" });
    const list = load({ "skills/l/SKILL.md": "---\nname: l\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\nlicense: MIT\n---\n" });
    expect(list.diagnostics).toEqual([]);
  });

  it("AL2213: SKILL.md that is not a regular file means no skill", () => {
    const pkg = load({ "skills/odd/SKILL.md": { directory: true } });
    expect(names(pkg)).toEqual({ loaded: [], skipped: [] });
    expectDiagnostic(pkg, { code: "AL2213", file: "skills/odd/SKILL.md", line: 1, column: 1, severity: "warning" });
  });

  it("AL2214: two directories whose names normalize alike", () => {
    const pkg = load({
      "skills/cafe\u0301/SKILL.md": "---\nname: caf\u00e9\ndescription: d\n---\n",
      "skills/caf\u00e9/SKILL.md": "---\nname: caf\u00e9\ndescription: d\n---\n",
    });
    expect(names(pkg)).toEqual({ loaded: ["caf\u00e9"], skipped: ["caf\u00e9"] });
    expectDiagnostic(pkg, { code: "AL2214", file: "skills/caf\u00e9/SKILL.md", line: 1, column: 1 });
  });

  it("AL2003 and AL2004: escaping and broken links under skills/", () => {
    const pkg = load(
      {
        "skills/alpha/SKILL.md": skill("alpha"),
        "skills/escaped": { symlink: "../../outside/escaped" },
        "skills/entry/SKILL.md": { symlink: "../../../outside/SKILL.md" },
        "skills/dangling": { symlink: "../nowhere" },
        "skills/linked": { symlink: "../shared/linked" },
        "shared/linked/SKILL.md": skill("linked"),
      },
      { "/work/outside/escaped/SKILL.md": skill("escaped"), "/work/outside/SKILL.md": skill("entry") },
    );
    expect(names(pkg)).toEqual({ loaded: ["alpha", "linked"], skipped: ["entry", "escaped"] });
    expect(pkg.diagnostics.map((d) => [d.code, d.severity, d.file.slice("/work/plugin/".length)])).toEqual([
      ["AL2004", "warning", "skills/dangling"],
      ["AL2003", "error", "skills/entry/SKILL.md"],
      // A linked skill folder is placed on the folder (helper-88).
      ["AL2003", "error", "skills/escaped/"],
    ]);
    expect(pkg.diagnostics[1]!.message).toContain("resolves to '../outside/SKILL.md'");
  });

  it("AL2003: skills/ itself escaping makes the component invalid", () => {
    const pkg = load({ skills: { symlink: "../outside/skills" } }, { "/work/outside/skills/x/SKILL.md": skill("x") });
    expect(pkg.skillsStatus).toBe("invalid");
    expect(pkg.skills).toEqual([]);
    expectDiagnostic(pkg, { code: "AL2003", file: "skills/", line: 1, column: 1 });
  });

  it("AL2006: a SKILL.md that is not UTF-8 is skipped", () => {
    const pkg = load({ "skills/bin/SKILL.md": new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]) });
    expect(names(pkg).skipped).toEqual(["bin"]);
    expectDiagnostic(pkg, { code: "AL2006", file: "skills/bin/SKILL.md", line: 1, column: 1 });
  });

  it("AL2005: an unreadable SKILL.md is skipped", () => {
    const pkg = load({ "skills/locked/SKILL.md": { unreadable: "EACCES: permission denied" } });
    expect(names(pkg).skipped).toEqual(["locked"]);
    expectDiagnostic(pkg, { code: "AL2005", file: "skills/locked/SKILL.md", line: 1, column: 1 });
  });
});

describe("skill name rules (Agent Skills)", () => {
  it.each([
    ["pdf-processing", []],
    ["caf\u00e9", []],
    ["a1", []],
    ["", ["it is empty"]],
    ["PDF-Processing", ["it contains uppercase letters ('P', 'D', 'F')"]],
    ["-pdf", ["it starts with '-'"]],
    ["pdf-", ["it ends with '-'"]],
    ["pdf--processing", ["it contains '--'"]],
    ["pdf_processing", ["it contains characters other than letters, digits and '-' ('_')"]],
    ["x".repeat(65), ["it is 65 characters long (at most 64)"]],
  ])("%j", (name, problems) => {
    expect(skillNameProblems(name)).toEqual(problems);
  });
});

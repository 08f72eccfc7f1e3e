import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { resolvePluginSpec } from "../../cli/add/resolve-plugin-spec.js";
import { tempDir } from "../helpers/temp-tree.js";

describe("resolvePluginSpec", () => {
  it.each([
    ["openui", { kind: "registry", name: "@assemblyline-agents/openui", short: true, installSpec: "@assemblyline-agents/openui" }],
    ["openui@1.2.0", { kind: "registry", name: "@assemblyline-agents/openui", version: "1.2.0", short: true, installSpec: "@assemblyline-agents/openui@1.2.0" }],
    ["openui@^1", { kind: "registry", name: "@assemblyline-agents/openui", version: "^1", short: true, installSpec: "@assemblyline-agents/openui@^1" }],
    ["openui@next", { kind: "registry", name: "@assemblyline-agents/openui", version: "next", short: true, installSpec: "@assemblyline-agents/openui@next" }],
    ["@acme/brand-ui", { kind: "registry", name: "@acme/brand-ui", short: false, installSpec: "@acme/brand-ui" }],
    ["@acme/brand-ui@2.0.0-rc.1", { kind: "registry", name: "@acme/brand-ui", version: "2.0.0-rc.1", short: false, installSpec: "@acme/brand-ui@2.0.0-rc.1" }],
    ["npm:left-pad@1.3.0", { kind: "registry", name: "left-pad", version: "1.3.0", short: false, installSpec: "left-pad@1.3.0" }],
  ])("reads %s as a registry package", (spec, expected) => {
    expect(resolvePluginSpec(spec, "/")).toEqual({ ok: true, spec: expected });
  });

  it("reads file: tarballs, bare tarball names and paths against cwd", () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, "openui-1.0.0.tgz"), "");
    fs.mkdirSync(path.join(cwd, "vendor/openui"), { recursive: true });
    const tarball = { kind: "tarball", path: path.join(cwd, "openui-1.0.0.tgz"), installSpec: `file:${path.join(cwd, "openui-1.0.0.tgz")}` };
    const directory = { kind: "directory", path: path.join(cwd, "vendor/openui"), installSpec: `file:${path.join(cwd, "vendor/openui")}` };
    expect(resolvePluginSpec("file:./openui-1.0.0.tgz", cwd)).toEqual({ ok: true, spec: tarball });
    expect(resolvePluginSpec("openui-1.0.0.tgz", cwd)).toEqual({ ok: true, spec: tarball });
    expect(resolvePluginSpec(path.join(cwd, "openui-1.0.0.tgz"), "/")).toEqual({ ok: true, spec: tarball });
    expect(resolvePluginSpec("./vendor/openui", cwd)).toEqual({ ok: true, spec: directory });
    expect(resolvePluginSpec("file:vendor/openui", cwd)).toEqual({ ok: true, spec: directory });
  });

  it.each([
    ["", "it is empty"],
    ["OpenUI", "is not a valid package name"],
    ["openui@not a range!", "is not a version, a version range or a dist-tag"],
    ["openui@", "'' is not a version, a version range or a dist-tag"],
    ["node_modules", "is not a valid package name (node_modules is not a valid package name)"],
    ["@acme/Brand", "is not a valid package name (name can no longer contain capital letters)"],
    ["@acme", "is not a scoped package name"],
    ["vendor/openui", "looks like a path; write it as './vendor/openui'"],
    ["https://example.com/openui.tgz", "git and URL specs are not supported"],
    ["github:acme/openui", "git and URL specs are not supported"],
    ["./missing-dir", "there is no file or directory at './missing-dir'"],
    ["file:", "the path after 'file:' is empty"],
  ])("refuses %j with AL6201 saying why", (spec, reason) => {
    const result = resolvePluginSpec(spec, tempDir());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.diagnostic.code).toBe("AL6201");
    expect(result.diagnostic.message).toContain(reason);
    expect(result.diagnostic.hint).toContain("openui");
  });
});

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { detectPackageManager, installAllCommand } from "../../cli/add/detect-package-manager.js";
import { installArguments } from "../../cli/add/install-package.js";
import { tempDir } from "../helpers/temp-tree.js";

function project(files: Record<string, string>): string {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

describe("detectPackageManager", () => {
  it.each([
    [{ "package-lock.json": "{}" }, { manager: "npm", lockfile: "package-lock.json", ambiguous: false }],
    [{ "npm-shrinkwrap.json": "{}" }, { manager: "npm", lockfile: "npm-shrinkwrap.json", ambiguous: false }],
    [{ "pnpm-lock.yaml": "lockfileVersion: '9.0'\n" }, { manager: "pnpm", lockfile: "pnpm-lock.yaml", ambiguous: false }],
    [{ "yarn.lock": "# yarn lockfile v1\n" }, { manager: "yarn", lockfile: "yarn.lock", ambiguous: false }],
    [{ "package.json": "{}" }, { manager: "npm", ambiguous: false }],
  ])("detects %j", (files, expected) => {
    expect(detectPackageManager(project(files))).toEqual(expected);
  });

  it("lets package.json's packageManager break a tie between lockfiles", () => {
    const files = { "package-lock.json": "{}", "pnpm-lock.yaml": "", "package.json": '{ "packageManager": "pnpm@9.1.0" }' };
    expect(detectPackageManager(project(files))).toEqual({ manager: "pnpm", lockfile: "pnpm-lock.yaml", ambiguous: true });
    expect(detectPackageManager(project({ "package-lock.json": "{}", "yarn.lock": "" }))).toEqual({ manager: "npm", lockfile: "package-lock.json", ambiguous: true });
  });

  it("ignores a directory named like a lockfile", () => {
    const dir = project({});
    fs.mkdirSync(path.join(dir, "yarn.lock"));
    expect(detectPackageManager(dir).manager).toBe("npm");
  });
});

describe("installArguments / installAllCommand", () => {
  it("pins an exact version with each manager", () => {
    expect(installArguments("npm", "@assemblyline-agents/openui")).toEqual(["install", "--save-exact", "--no-audit", "--no-fund", "@assemblyline-agents/openui"]);
    expect(installArguments("pnpm", "@assemblyline-agents/openui", { offline: true })).toEqual(["add", "--save-exact", "--offline", "@assemblyline-agents/openui"]);
    expect(installArguments("yarn", "file:/x.tgz", { ignoreScripts: true })).toEqual(["add", "--exact", "--ignore-scripts", "file:/x.tgz"]);
    expect(installAllCommand("pnpm")).toBe("pnpm install");
  });
});

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as tar from "tar";
import { beforeAll, describe, expect, it } from "vitest";
import { addCapabilityToAgentMd } from "../../cli/add/add-capability-to-agent-md.js";
import { readPluginName, validateCapabilityKey } from "../../cli/add/capability-key.js";
import { detectPackageManager, installAllCommand } from "../../cli/add/detect-package-manager.js";
import { installPackage, runCommand, type CommandRunner } from "../../cli/add/install-package.js";
import { readTarballManifest } from "../../cli/add/read-tarball-manifest.js";
import { resolvePluginSpec, type PluginSpec } from "../../cli/add/resolve-plugin-spec.js";
import { hashPluginDirectory } from "../../compiler/plugin-package/hash-plugin-directory.js";
import { checkInstalledVersion } from "../../compiler/agent/installed-version.js";
import { tempDir } from "../helpers/temp-tree.js";
import { openuiPack } from "./helpers.js";

let packDir: string;
let tarball: string;
let npmEnv: NodeJS.ProcessEnv;

beforeAll(() => {
  packDir = tempDir("al-add-pack-");
  npmEnv = { ...process.env, npm_config_cache: path.join(packDir, "npm-cache"), npm_config_update_notifier: "false", npm_config_fund: "false" };
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", packDir, openuiPack], { env: npmEnv, encoding: "utf8" });
  tarball = path.join(packDir, (JSON.parse(output) as { filename: string }[])[0]!.filename);
});

const offlineNpm: CommandRunner = (command, args, cwd) => runCommand(command, args, cwd, npmEnv);

describe("installPackage with npm, offline, from an `npm pack` tarball", () => {
  it("installs the exact version, reads it back, and add writes only agent.md and the package manager's files", () => {
    const project = tempDir();
    const agentMd = "---\nname: brand-agent\n# capabilities come from `assembly-line add`\n---\n\nUse the brand.\n";
    fs.writeFileSync(path.join(project, "agent.md"), agentMd);

    const resolved = resolvePluginSpec(`file:${path.relative(project, tarball)}`, project);
    expect(resolved).toMatchObject({ ok: true, spec: { kind: "tarball", path: tarball } });
    const spec = (resolved as { spec: PluginSpec }).spec;
    expect(readTarballManifest(tarball)).toMatchObject({ name: "@assemblyline-agents/openui", version: "1.0.0" });

    const manager = detectPackageManager(project);
    expect(manager).toEqual({ manager: "npm", ambiguous: false });
    const installed = installPackage(manager.manager, project, spec, { offline: true, run: offlineNpm });
    if (!installed.ok) throw new Error(`${installed.diagnostic.message}\n${installed.output}`);
    expect(installed).toMatchObject({
      name: "@assemblyline-agents/openui",
      version: "1.0.0",
      directory: path.join(project, "node_modules/@assemblyline-agents/openui"),
      createdPackageJson: true,
    });
    expect(installed.command).toBe(`npm install --save-exact --no-audit --no-fund --offline file:${tarball}`);
    const pkg = JSON.parse(fs.readFileSync(path.join(project, "package.json"), "utf8")) as { private: boolean; dependencies: Record<string, string> };
    expect(pkg.private).toBe(true);
    expect(pkg.dependencies["@assemblyline-agents/openui"]).toMatch(/^file:.*assemblyline-agents-openui-1\.0\.0\.tgz$/);

    const pluginName = readPluginName(installed.directory, installed.name);
    expect(pluginName).toEqual({ ok: true, name: "openui" });
    const key = (pluginName as { name: string }).name;
    expect(validateCapabilityKey(key)).toBeUndefined();
    const edited = addCapabilityToAgentMd(agentMd, key, { package: installed.name });
    fs.writeFileSync(path.join(project, "agent.md"), edited.text);
    expect(edited.text).toBe(
      '---\nname: brand-agent\n# capabilities come from `assembly-line add`\ncapabilities:\n  openui:\n    package: "@assemblyline-agents/openui"\n---\n\nUse the brand.\n',
    );
    expect(addCapabilityToAgentMd(edited.text, key, { package: installed.name }).changed).toBe(false);

    // No wrapper files: only agent.md and what the package manager owns.
    expect(fs.readdirSync(project).sort()).toEqual(["agent.md", "node_modules", "package-lock.json", "package.json"]);
    // The installed package hashes exactly like its source, and the lock pin matches it.
    const hash = hashPluginDirectory(installed.directory);
    expect(hash.diagnostics).toEqual([]);
    expect(hash.integrity).toBe(hashPluginDirectory(openuiPack).integrity);
    const locked = { type: "npm", name: installed.name, version: installed.version } as const;
    const location = { file: path.join(project, "agent.md"), line: 5, column: 3 };
    expect(checkInstalledVersion({ capability: key, locked, installedVersion: installed.version, location, installCommand: installAllCommand("npm") })).toBeUndefined();
    expect(checkInstalledVersion({ capability: key, locked: { ...locked, version: "0.9.0" }, installedVersion: installed.version, location, installCommand: "npm install" })?.code).toBe("AL6008");
  });
});

describe("a second install of the same tarball (npm)", () => {
  it("runs nothing when package.json, package-lock.json and node_modules hold that very tarball; a changed file, another manager or a stale node_modules run the install", () => {
    const project = tempDir();
    const spec = (resolvePluginSpec(tarball, project) as { spec: PluginSpec }).spec;
    const first = installPackage("npm", project, spec, { offline: true, run: offlineNpm });
    expect(first).toMatchObject({ ok: true, alreadyInstalled: false });
    const calls: string[][] = [];
    const counting: CommandRunner = (command, args, cwd) => {
      calls.push([command, ...args]);
      return offlineNpm(command, args, cwd);
    };
    const again = installPackage("npm", project, spec, { offline: true, run: counting });
    expect(again).toMatchObject({ ok: true, alreadyInstalled: true, name: "@assemblyline-agents/openui", version: "1.0.0", directory: path.join(project, "node_modules/@assemblyline-agents/openui") });
    expect(calls).toEqual([]);
    // The same tarball under another name is the same file only by its bytes: npm installs it.
    const copy = path.join(tempDir(), path.basename(tarball));
    fs.copyFileSync(tarball, copy);
    expect(installPackage("npm", project, (resolvePluginSpec(copy, project) as { spec: PluginSpec }).spec, { offline: true, run: counting })).toMatchObject({ alreadyInstalled: false });
    expect(calls).toHaveLength(1);
    // Back to the first file, then repacked with other bytes at the same path: installed again.
    installPackage("npm", project, spec, { offline: true, run: offlineNpm });
    expect(installPackage("npm", project, spec, { run: () => ({ status: 99, stdout: "", stderr: "" }) })).toMatchObject({ ok: true, alreadyInstalled: true });
    const original = fs.readFileSync(tarball);
    try {
      fs.writeFileSync(tarball, Buffer.concat([original, Buffer.alloc(512)]));
      expect(installPackage("npm", project, spec, { run: () => ({ status: 99, stdout: "", stderr: "" }) })).toMatchObject({ ok: false });
    } finally {
      fs.writeFileSync(tarball, original);
    }
    // Another package manager's lockfile is not read; node_modules behind the lock is installed again.
    expect(installPackage("pnpm", project, spec, { run: () => ({ status: 99, stdout: "", stderr: "" }) })).toMatchObject({ ok: false });
    const installedManifest = path.join(project, "node_modules/@assemblyline-agents/openui/package.json");
    fs.writeFileSync(installedManifest, fs.readFileSync(installedManifest, "utf8").replace('"version": "1.0.0"', '"version": "0.9.0"'));
    expect(installPackage("npm", project, spec, { run: () => ({ status: 99, stdout: "", stderr: "" }) })).toMatchObject({ ok: false });
  });
});

describe("installPackage failures and other managers", () => {
  const registrySpec: PluginSpec = { kind: "registry", name: "@assemblyline-agents/openui", version: "1.0.0", short: true, installSpec: "@assemblyline-agents/openui@1.0.0" };

  it("runs pnpm and yarn with exact pins in the project directory", () => {
    for (const [manager, expected] of [
      ["pnpm", ["add", "--save-exact", "@assemblyline-agents/openui@1.0.0"]],
      ["yarn", ["add", "--exact", "@assemblyline-agents/openui@1.0.0"]],
    ] as const) {
      const project = tempDir();
      const calls: unknown[] = [];
      const fake: CommandRunner = (command, args, cwd) => {
        calls.push([command, args, cwd]);
        fs.mkdirSync(path.join(cwd, "node_modules/@assemblyline-agents/openui"), { recursive: true });
        fs.writeFileSync(path.join(cwd, "node_modules/@assemblyline-agents/openui/package.json"), '{"name":"@assemblyline-agents/openui","version":"1.0.0"}');
        return { status: 0, stdout: "", stderr: "" };
      };
      const result = installPackage(manager, project, registrySpec, { run: fake });
      expect(calls).toEqual([[manager, expected, project]]);
      expect(result).toMatchObject({ ok: true, version: "1.0.0", name: "@assemblyline-agents/openui" });
    }
  });

  it("reports a failing or missing package manager, and an install that left nothing in node_modules", () => {
    const project = tempDir();
    const failed = installPackage("npm", project, registrySpec, { run: () => ({ status: 1, stdout: "", stderr: "npm error 404 Not Found\n" }) });
    expect(failed).toMatchObject({ ok: false, output: "npm error 404 Not Found\n", diagnostic: { code: "AL6202", message: "`npm install --save-exact --no-audit --no-fund @assemblyline-agents/openui@1.0.0` failed (exit code 1)." } });
    const missing = installPackage("pnpm", project, registrySpec, { run: () => ({ status: null, stdout: "", stderr: "", error: Object.assign(new Error("spawn pnpm ENOENT"), { code: "ENOENT" }) }) });
    expect(missing.ok === false && missing.diagnostic.message).toBe("`pnpm add --save-exact @assemblyline-agents/openui@1.0.0` failed (it could not be started: ENOENT).");
    const pnp = installPackage("yarn", project, registrySpec, { run: () => ({ status: 0, stdout: "", stderr: "" }) });
    expect(pnp.ok === false && pnp.diagnostic.code).toBe("AL6203");
    expect(pnp.ok === false && pnp.diagnostic.hint).toContain("nodeLinker: node-modules");
  });

  it("never overwrites an unparsable package.json and does not run the manager then", () => {
    const project = tempDir();
    fs.writeFileSync(path.join(project, "package.json"), "{ broken");
    let ran = false;
    const result = installPackage("npm", project, registrySpec, { run: () => ((ran = true), { status: 0, stdout: "", stderr: "" }) });
    expect(result.ok === false && result.diagnostic.code).toBe("AL6209");
    expect(ran).toBe(false);
    expect(fs.readFileSync(path.join(project, "package.json"), "utf8")).toBe("{ broken");
  });

  it("says a plugin folder without package.json is not an npm package, how to use it as a local plugin, and writes nothing (helper-64 M43b)", () => {
    const project = tempDir();
    const plugin = tempDir();
    fs.writeFileSync(path.join(plugin, "plugin.json"), JSON.stringify({ name: "hello" }));
    let ran = false;
    const run: CommandRunner = () => ((ran = true), { status: 0, stdout: "", stderr: "" });
    const result = installPackage("npm", project, { kind: "directory", path: plugin, installSpec: `file:${plugin}` }, { run });
    expect(result.ok === false && result.diagnostic).toMatchObject({
      code: "AL6211",
      message: `'file:${plugin}' cannot be installed: the folder has no package.json, and \`add\` installs plugins as npm packages.`,
      hint: "The folder is an Agent Plugins package (it has plugin.json) but not an npm package. To use it in this agent, copy it to plugins/hello/ and select it in agent.md (capabilities: hello: {}); to install it with `add`, give it a package.json with a name and a version.",
    });
    expect(result.ok === false && result.diagnostic.message).not.toContain("no usable plugin.json");
    expect(ran).toBe(false);
    // The project's package.json is made only for an install that can run.
    expect(fs.readdirSync(project)).toEqual([]);
    fs.writeFileSync(path.join(plugin, "package.json"), JSON.stringify({ version: "1.0.0" }));
    const unnamed = installPackage("npm", project, { kind: "directory", path: plugin, installSpec: `file:${plugin}` }, { run });
    expect(unnamed.ok === false && unnamed.diagnostic.message).toContain("cannot be installed: its package.json has no name");
  });

  it("reports a tarball without a package.json name, and a directory that is not a plugin", () => {
    const dir = tempDir();
    const notTar = path.join(dir, "x.tgz");
    fs.writeFileSync(notTar, "not a tarball");
    expect(readTarballManifest(notTar)).toBeUndefined();
    const result = installPackage("npm", dir, { kind: "tarball", path: notTar, installSpec: `file:${notTar}` }, { run: () => ({ status: 0, stdout: "", stderr: "" }) });
    // Not an archive at all: said so, not "holds no package.json" (helper-73 #12, helper-74).
    expect(result.ok === false && result.diagnostic).toMatchObject({
      code: "AL6211",
      message: `'file:${notTar}' cannot be installed: the file is not a gzip tarball (a .tgz as \`npm pack\` writes it), and \`add\` installs plugins as npm packages.`,
    });
    // A real tarball without package.json keeps its words.
    const tree = tempDir();
    fs.mkdirSync(path.join(tree, "package"));
    fs.writeFileSync(path.join(tree, "package", "plugin.json"), "{}");
    const noPackageJson = path.join(dir, "nopkg.tgz");
    tar.create({ gzip: true, file: noPackageJson, cwd: tree, sync: true }, ["package"]);
    const holdsNone = installPackage("npm", dir, { kind: "tarball", path: noPackageJson, installSpec: `file:${noPackageJson}` }, { run: () => ({ status: 0, stdout: "", stderr: "" }) });
    expect(holdsNone.ok === false && holdsNone.diagnostic.message).toBe(`'file:${noPackageJson}' cannot be installed: the tarball holds no package.json with a name, and \`add\` installs plugins as npm packages.`);
    expect(readPluginName(dir, "@acme/x")).toMatchObject({ ok: false, diagnostic: { code: "AL6208", message: "The package '@acme/x' has no usable plugin.json at its root (plugin.json is missing), so it is not an Agent Plugins v1 package." } });
  });

  it("validates --as keys", () => {
    expect(validateCapabilityKey("brand-ui")).toBeUndefined();
    expect(validateCapabilityKey("Brand UI")?.code).toBe("AL6207");
    expect(validateCapabilityKey("a--b")?.code).toBe("AL6207");
    expect(validateCapabilityKey("")?.message).toBe("'' cannot be a capability key: it is empty.");
  });
});

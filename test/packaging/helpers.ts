/**
 * Shared helpers of the packaging tests: fixture copies in temp directories (removed after the
 * test file, see `test/helpers/temp-tree.ts`), tool lists, and running a bundle in a separate
 * Node process (the way runtime-min runs it).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ArtifactManifest } from "../../contract/manifest.js";
import { expect } from "vitest";
import { bundleIntegrity, bundleTools, toolBundleKey, type PackagingResult, type PackagingTool } from "../../packaging/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";

/** Absolute path of `test/fixtures/packaging/`. */
export const FIXTURES = fileURLToPath(new URL("../fixtures/packaging/", import.meta.url));

/**
 * Files a fixture takes from the example agent instead of keeping a copy (fixture-relative
 * path → absolute source): the assets plugin's `echo` tool is the seed's "Minimal Example".
 */
const FROM_EXAMPLE_AGENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "assets-agent": { "plugins/assets/ai.assemblyline/echo.ts": seedTools.echo },
};

/** Copies fixture `name` to `<parent>/<...nested>/agent` and returns that agent root. */
export function copyFixture(name: string, parent = tempDir(), ...nested: string[]): string {
  const root = path.join(parent, ...nested, "agent");
  fs.cpSync(path.join(FIXTURES, name), root, { recursive: true });
  for (const [file, source] of Object.entries(FROM_EXAMPLE_AGENT[name] ?? {})) fs.copyFileSync(source, path.join(root, file));
  return root;
}

/** A root-surface tool of plugin `plugins/<plugin>/` whose definition is `definition` (plugin-relative). */
export function tool(root: string, plugin: string, toolName: string, definition: string, overrides: Partial<PackagingTool> = {}): PackagingTool {
  const pluginRoot = path.join(root, "plugins", plugin);
  return {
    surfaceId: ".",
    capability: plugin,
    toolName,
    pluginRoot,
    definitionFile: path.join(pluginRoot, ...definition.split("/")),
    ...overrides,
  };
}

/** Writes bundles under `dir` (artifact-relative paths) and returns `dir`. */
export function writeBundles(dir: string, bundles: ReadonlyMap<string, Uint8Array>): string {
  writeFiles(dir, Object.fromEntries(bundles));
  return dir;
}

/**
 * Imports a bundle in a child `node` process and returns what `script` prints as JSON.
 * `script` is the body of an async ES module that sees the namespace as `mod`.
 */
export function runInNode(bundleFile: string, script: string): unknown {
  const program = `const mod = await import(${JSON.stringify(pathToFileURL(bundleFile).href)});\n${script}`;
  const output = execFileSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8", env: { PATH: process.env.PATH ?? "" } });
  return JSON.parse(output);
}

/**
 * Packages the assets fixture's `echo` tool (a fresh `copyFixture("assets-agent")`), expecting no
 * diagnostics: the bundle the artifact-writing tests write ({@link echoManifest}).
 */
export async function packageAssetsEcho(): Promise<PackagingResult<Uint8Array>> {
  const root = copyFixture("assets-agent");
  const packaged = await bundleTools({ root, tools: [tool(root, "assets", "echo", "ai.assemblyline/echo.ts")] });
  expect(packaged.diagnostics).toEqual([]);
  return packaged;
}

/**
 * The manifest of an artifact holding the assets fixture's `echo` bundle from `result`
 * (`bundleTools` of `copyFixture("assets-agent")`), for a lock whose text is `lockText`.
 */
export function echoManifest(result: PackagingResult, lockText = "lock v1\n"): ArtifactManifest {
  const echo = result.toolBundles.get(toolBundleKey(".", "assets", "echo"))!;
  return {
    manifestVersion: 1,
    lockIntegrity: bundleIntegrity(Buffer.from(lockText)),
    surfaces: {
      ".": {
        parent: null,
        disabledCoreTools: [],
        skills: [],
        tools: {
          echo: {
            capability: "assets",
            description: "Echo a message back to the caller.",
            inputSchema: { type: "object", required: ["message"], properties: { message: { type: "string" } } },
            visibility: "visible",
            requiredConfig: [],
            config: {},
            tags: [],
            aliases: [],
            bundle: echo.bundle,
            integrity: echo.integrity,
          },
        },
      },
    },
  };
}

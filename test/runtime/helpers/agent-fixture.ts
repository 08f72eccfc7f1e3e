/**
 * Builds a compiled agent in a temporary directory for runtime tests: real esbuild bundles of
 * tool sources — the seed's examples read in place from `examples/support-agent/` (`seedTools`
 * in `test/helpers/support-agent.ts`) and the probes in `test/fixtures/runtime/tools/` — with
 * `plugins.lock` and `manifest.json` written by hand in the formats of `contract/lockfile-types.ts` and
 * `contract/manifest.ts`.
 *
 * Descriptor fields (description, inputSchema, approval) are read from the bundled definition
 * itself — in the test process, which is fine for tests — unless a spec overrides them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import ssri from "ssri";
import { repoRoot, tempDir } from "../../helpers/temp-tree.js";

/** The runtime's own fixture tools: probes of the runtime contract and the `fetch` shim. */
export const toolsDir = path.join(repoRoot, "test/fixtures/runtime/tools");

/** One tool of the fixture agent. */
export interface ToolSpec {
  readonly name: string;
  /**
   * The definition module: an absolute path (e.g. `seedTools.echo`) or a file in
   * `test/fixtures/runtime/tools/`. The lock names it `./ai.assemblyline/<its base name>`.
   */
  readonly file: string;
  readonly capability?: string;
  readonly surface?: string;
  readonly factory?: string;
  readonly config?: Record<string, unknown>;
  readonly requiredConfig?: readonly string[];
  readonly visibility?: "visible" | "deferred" | "hidden";
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  /** `null` forces "no approval" whatever the definition says. */
  readonly needsApproval?: { reason: string; sideEffect: string } | null;
  /** Fixture files esbuild injects (e.g. `fetch-shim.ts`). */
  readonly inject?: readonly string[];
  /** Ranked by `tool_search` (default none). */
  readonly tags?: readonly string[];
  readonly aliases?: readonly string[];
  readonly namespace?: string;
}

/** A built agent root. */
export interface AgentFixture {
  readonly root: string;
  readonly artifactDir: string;
  readonly lockFile: string;
  readonly manifestFile: string;
  /** Absolute path of a tool's bundle in the artifact. */
  bundleOf(name: string, surface?: string): string;
  cleanup(): void;
}

/** Builds bundles, lock and manifest for `specs` in a fresh temporary agent root. */
export async function createAgent(specs: readonly ToolSpec[]): Promise<AgentFixture> {
  // A tempDir: removed after the test file even when a test forgets cleanup() (helper-70).
  const root = tempDir("al-runtime-");
  const artifactDir = path.join(root, ".assemblyline", "build");
  fs.mkdirSync(artifactDir, { recursive: true });
  const lockSurfaces: Record<string, { capabilities: Record<string, Record<string, unknown>> }> = {};
  const manifestSurfaces: Record<string, { parent: string | null; disabledCoreTools: string[]; skills: unknown[]; tools: Record<string, unknown> }> = {};
  const bundles = new Map<string, string>();
  for (const spec of specs) {
    const surface = spec.surface ?? ".";
    const capability = spec.capability ?? "example";
    const relativeBundle = await bundleTool(artifactDir, spec, bundles);
    const bytes = fs.readFileSync(path.join(artifactDir, relativeBundle));
    const integrity = ssri.fromData(bytes, { algorithms: ["sha512"] }).toString();
    const contract = await readContract(path.join(artifactDir, relativeBundle), spec);
    const locked = {
      definition: `./ai.assemblyline/${path.basename(spec.file)}`,
      ...(spec.factory ? { factory: spec.factory } : {}),
      ...contract,
      bundle: integrity,
    };
    lockSurfaces[surface] ??= { capabilities: {} };
    const lockedCapability = (lockSurfaces[surface].capabilities[capability] ??= {
      source: { type: "local", path: `plugins/${capability}` },
      integrity: "sha512-" + Buffer.alloc(64).toString("base64"),
      config: {},
      tools: {},
    });
    (lockedCapability.tools as Record<string, unknown>)[spec.name] = locked;
    manifestSurfaces[surface] ??= { parent: surface === "." ? null : ".", disabledCoreTools: [], skills: [], tools: {} };
    manifestSurfaces[surface].tools[spec.name] = {
      capability,
      ...contract,
      ...(spec.factory ? { factory: spec.factory } : {}),
      bundle: relativeBundle,
      integrity,
    };
  }
  manifestSurfaces["."] ??= { parent: null, disabledCoreTools: [], skills: [], tools: {} };
  const lockFile = path.join(root, "plugins.lock");
  const lockText = `${JSON.stringify({ lockfileVersion: 1, surfaces: lockSurfaces }, null, 2)}\n`;
  fs.writeFileSync(lockFile, lockText);
  const manifestFile = path.join(artifactDir, "manifest.json");
  const lockIntegrity = ssri.fromData(Buffer.from(lockText), { algorithms: ["sha512"] }).toString();
  fs.writeFileSync(manifestFile, `${JSON.stringify({ manifestVersion: 1, lockIntegrity, surfaces: manifestSurfaces }, null, 2)}\n`);
  return {
    root,
    artifactDir,
    lockFile,
    manifestFile,
    bundleOf(name, surface = ".") {
      const tool = manifestSurfaces[surface]?.tools[name] as { bundle: string } | undefined;
      if (!tool) throw new Error(`no tool ${name}`);
      return path.join(artifactDir, tool.bundle);
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Rewrites the manifest and lock of a fixture through `edit` (lockIntegrity is recomputed when `relock`). */
export function editArtifact(fixture: AgentFixture, edit: (manifest: any, lock: any) => void, relock = true): void {
  const manifest = JSON.parse(fs.readFileSync(fixture.manifestFile, "utf8"));
  const lock = JSON.parse(fs.readFileSync(fixture.lockFile, "utf8"));
  edit(manifest, lock);
  const lockText = `${JSON.stringify(lock, null, 2)}\n`;
  fs.writeFileSync(fixture.lockFile, lockText);
  if (relock) manifest.lockIntegrity = ssri.fromData(Buffer.from(lockText), { algorithms: ["sha512"] }).toString();
  fs.writeFileSync(fixture.manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
}

async function bundleTool(artifactDir: string, spec: ToolSpec, bundles: Map<string, string>): Promise<string> {
  const key = JSON.stringify([spec.file, spec.inject ?? []]);
  const existing = bundles.get(key);
  if (existing) return existing;
  const stem = path.basename(spec.file).replace(/\.[^.]+$/, "");
  const relative = `bundles/${stem}${spec.inject ? `-${bundles.size}` : ""}.mjs`;
  await esbuild.build({
    entryPoints: [path.resolve(toolsDir, spec.file)],
    outfile: path.join(artifactDir, relative),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node22",
    alias: { "@assemblyline-agents/core": path.join(repoRoot, "runtime-min/authoring/index.ts") },
    inject: (spec.inject ?? []).map((file) => path.resolve(toolsDir, file)),
    logLevel: "silent",
  });
  bundles.set(key, relative);
  return relative;
}

async function readContract(bundle: string, spec: ToolSpec): Promise<Record<string, unknown>> {
  let definition: Record<string, unknown> = {};
  if (spec.description === undefined || spec.inputSchema === undefined || spec.needsApproval === undefined) {
    const module = (await import(pathToFileURL(bundle).href)) as Record<string, unknown>;
    const exported = spec.factory ? module[spec.factory] : module.default;
    let produced: unknown = exported;
    try {
      if (typeof exported === "function") produced = await (exported as (config: unknown) => unknown)(spec.config ?? {});
    } catch {
      produced = undefined;
    }
    definition = typeof produced === "object" && produced !== null ? (produced as Record<string, unknown>) : {};
  }
  const approval = spec.needsApproval === undefined ? (definition.needsApproval as { reason: string; sideEffect: string } | undefined) : spec.needsApproval;
  return {
    description: spec.description ?? definition.description,
    inputSchema: spec.inputSchema ?? definition.inputSchema,
    visibility: spec.visibility ?? "visible",
    ...(approval ? { needsApproval: { reason: approval.reason, sideEffect: approval.sideEffect } } : {}),
    requiredConfig: [...(spec.requiredConfig ?? [])],
    config: spec.config ?? {},
    tags: [...(spec.tags ?? [])],
    aliases: [...(spec.aliases ?? [])],
    ...(spec.namespace === undefined ? {} : { namespace: spec.namespace }),
  };
}

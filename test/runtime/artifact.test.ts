/**
 * Artifact verification (issue 4 item 2): every bundle is checked against the manifest and the
 * lock; a tampered, stale or mismatched artifact is refused with a diagnostic that says what,
 * why and what to do, and nothing runs.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRuntime, RuntimeError } from "../../runtime-min/index.js";
import { seedTools } from "../helpers/support-agent.js";
import { tempDir } from "../helpers/temp-tree.js";
import { createAgent, editArtifact, type AgentFixture } from "./helpers/agent-fixture.js";

let agent: AgentFixture | undefined;
afterEach(() => agent?.cleanup());

async function refusal(fixture: AgentFixture): Promise<RuntimeError> {
  try {
    const runtime = await openRuntime({ root: fixture.root });
    await runtime.close();
  } catch (error) {
    expect(error).toBeInstanceOf(RuntimeError);
    return error as RuntimeError;
  }
  throw new Error("the artifact was not refused");
}

const tools = [{ name: "echo", file: seedTools.echo }, { name: "lookup_record", file: seedTools.lookupRecord }];

describe("artifact verification", () => {
  it("says so when the root itself is missing or a file (AL1024, AL1025), not that the artifact is", async () => {
    const missing = path.join(os.tmpdir(), "al-no-such-root", "agent");
    await expect(openRuntime({ root: missing })).rejects.toMatchObject({ name: "RuntimeError", code: "AL1024", message: `The agent root '${missing}' does not exist.` });
    const file = path.join(tempDir("al-root-file-"), "agent.md");
    fs.writeFileSync(file, "");
    await expect(openRuntime({ root: file })).rejects.toMatchObject({ code: "AL1025" });
  });

  it("accepts an intact artifact", async () => {
    agent = await createAgent(tools);
    const runtime = await openRuntime({ root: agent.root });
    expect([...runtime.artifact.tools.get(".")!.keys()].sort()).toEqual(["echo", "lookup_record"]);
    await runtime.close();
  });

  it("refuses a tampered bundle (AL8012) and names the file, the expected and the actual hash", async () => {
    agent = await createAgent(tools);
    const bundle = agent.bundleOf("echo");
    fs.appendFileSync(bundle, "\nglobalThis.stolen = process.env;\n");
    const error = await refusal(agent);
    expect(error.diagnostics).toHaveLength(1);
    const [diagnostic] = error.diagnostics;
    expect(diagnostic).toMatchObject({ code: "AL8012", severity: "error", file: ".assemblyline/build/manifest.json", path: 'surfaces["."].tools.echo.integrity' });
    expect(diagnostic!.message).toMatch(/^The bundle \.assemblyline\/build\/bundles\/echo\.mjs of tool 'echo' does not match its locked integrity \(expected sha512-.+, the file hashes to sha512-.+\)\.$/);
    expect(diagnostic!.hint).toContain("assembly-line compile");
    expect(diagnostic!.line).toBeGreaterThan(1);
  });

  it("refuses an artifact built from another plugins.lock (AL8006)", async () => {
    agent = await createAgent(tools);
    fs.appendFileSync(agent.lockFile, "\n");
    const error = await refusal(agent);
    expect(error.code).toBe("AL8006");
    expect(error.message).toContain("The artifact was built from a different plugins.lock");
    expect(error.diagnostics[0]!.hint).toContain("assembly-line compile");
  });

  it("refuses when the artifact or the lock is missing (AL8001, AL8004)", async () => {
    agent = await createAgent(tools);
    fs.rmSync(agent.lockFile);
    expect((await refusal(agent)).code).toBe("AL8004");
    fs.rmSync(agent.manifestFile);
    const missing = await refusal(agent);
    expect(missing.code).toBe("AL8001");
    expect(missing.message).toBe("There is no compiled artifact at .assemblyline/build.");
  });

  it("refuses a plugins.lock that is not JSON or has no surfaces (AL8005)", async () => {
    agent = await createAgent(tools);
    fs.writeFileSync(agent.lockFile, "<<<<<<< HEAD\n{}\n");
    const notJson = await refusal(agent);
    expect(notJson.code).toBe("AL8005");
    expect(notJson.message).toMatch(/^plugins\.lock is not a readable lock: it is not JSON \([^]+\)\.$/);
    expect(notJson.diagnostics[0]!.hint).toContain("assembly-line compile");
    fs.writeFileSync(agent.lockFile, '{ "lockfileVersion": 1 }\n');
    const noSurfaces = await refusal(agent);
    expect(noSurfaces.diagnostics[0]).toMatchObject({ code: "AL8005", message: "plugins.lock is not a readable lock: it has no `surfaces` object." });
  });

  it("refuses a manifest whose contract differs from the lock (AL8009), pointing at both", async () => {
    agent = await createAgent(tools);
    editArtifact(agent, (manifest) => {
      manifest.surfaces["."].tools.echo.inputSchema = { type: "object" };
    });
    const error = await refusal(agent);
    expect(error.diagnostics.map((d) => d.code)).toEqual(["AL8009"]);
    expect(error.message).toBe("The artifact's inputSchema of tool 'echo' (surface '.') differs from the contract locked in plugins.lock.");
    expect(error.diagnostics[0]!.related?.[0]).toMatchObject({ file: "plugins.lock", message: "plugins.lock locks the inputSchema here" });
  });

  it("refuses when the manifest's bundle integrity differs from the lock's (AL8010)", async () => {
    agent = await createAgent(tools);
    editArtifact(agent, (manifest, lock) => {
      // Both the manifest and the bundle are swapped consistently; only the lock disagrees.
      lock.surfaces["."].capabilities.example.tools.echo.bundle = manifest.surfaces["."].tools.lookup_record.integrity;
    });
    const error = await refusal(agent);
    expect(error.diagnostics.map((d) => d.code)).toEqual(["AL8010"]);
  });

  it("refuses extra, missing and unlocked tools (AL8007, AL8008, AL8014)", async () => {
    agent = await createAgent(tools);
    editArtifact(agent, (manifest, lock) => {
      manifest.surfaces["."].tools.extra = { ...manifest.surfaces["."].tools.echo };
      delete manifest.surfaces["."].tools.lookup_record;
      delete lock.surfaces["."].capabilities.example.tools.echo.bundle;
    });
    const error = await refusal(agent);
    expect(error.diagnostics.map((d) => d.code).sort()).toEqual(["AL8007", "AL8008", "AL8014"]);
  });

  it("refuses a bundle path outside the artifact, a missing bundle, a malformed manifest (AL8013, AL8011, AL8002, AL8003)", async () => {
    agent = await createAgent(tools);
    editArtifact(agent, (manifest) => {
      manifest.surfaces["."].tools.echo.bundle = "../../plugins.lock";
      manifest.surfaces["."].tools.lookup_record.bundle = "bundles/nope.mjs";
    });
    expect((await refusal(agent)).diagnostics.map((d) => d.code).sort()).toEqual(["AL8011", "AL8013"]);
    editArtifact(agent, (manifest) => {
      manifest.surfaces["."].tools.echo.visibility = "public";
    });
    const malformed = await refusal(agent);
    expect(malformed.code).toBe("AL8002");
    expect(malformed.message).toBe('The artifact manifest is not valid: surfaces["."].tools.echo.visibility must be "visible", "deferred" or "hidden".');
    editArtifact(agent, (manifest) => {
      manifest.manifestVersion = 2;
    });
    expect((await refusal(agent)).code).toBe("AL8003");
  });

  it("never runs a verified copy that changed after the runtime opened (AL8012)", async () => {
    agent = await createAgent(tools);
    const runtime = await openRuntime({ root: agent.root });
    try {
      const copy = runtime.artifact.tools.get(".")!.get("echo")!.verifiedBundle;
      expect(path.dirname(copy)).toBe(path.join(path.resolve(agent.root), ".assemblyline/bundles"));
      fs.chmodSync(copy, 0o644);
      fs.appendFileSync(copy, "\n// changed\n");
      await expect(runtime.call({ tool: "echo", input: { message: "x" } })).rejects.toMatchObject({ code: "AL8012" });
    } finally {
      await runtime.close();
    }
  });
});

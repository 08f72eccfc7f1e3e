/** Temporary workspaces and a `CoreToolContext` for core tool tests. */
import { mkdtemp, mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ArtifactManifest } from "../../contract/manifest.js";
import type { CoreJson, CoreToolContext } from "../../runtime-min/core-tools/types.js";
import { fixtureManifest } from "../snapshot/fixture-manifest.js";

/** A temporary directory tree: `<base>/workspace-<run>`, `<base>/state`, `<base>/artifact`, `<base>/outside`. */
export interface Sandbox {
  readonly base: string;
  readonly stateDir: string;
  readonly artifactDir: string;
  readonly outside: string;
  workspace(runId: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function makeDirs(): Promise<Sandbox> {
  const base = await mkdtemp(path.join(os.tmpdir(), "al-core-tools-"));
  const dirs = { stateDir: path.join(base, "state"), artifactDir: path.join(base, "artifact"), outside: path.join(base, "outside") };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  return {
    base,
    ...dirs,
    async workspace(runId) {
      const dir = path.join(base, `workspace-${runId}`);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** A recorded `ctx.emit` call. */
export interface EmittedEvent {
  readonly type: string;
  readonly data: CoreJson | undefined;
}

/** Builds a context; `events` collects what the tool emitted. */
export function makeContext(
  dirs: Sandbox,
  overrides: Partial<CoreToolContext> & { workspaceDir: string },
): CoreToolContext & { events: EmittedEvent[] } {
  const events: EmittedEvent[] = [];
  const manifest: ArtifactManifest = overrides.manifest ?? fixtureManifest();
  return {
    runId: "run-root",
    toolCallId: "call-1",
    surfaceId: ".",
    stateDir: dirs.stateDir,
    artifactDir: dirs.artifactDir,
    manifest,
    async emit(type: string, data?: CoreJson) {
      events.push({ type, data });
    },
    ...overrides,
    events,
  };
}

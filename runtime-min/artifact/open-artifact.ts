/**
 * The first step of every host on an agent root: check the root, make sure the runtime's state
 * directory can be written safely, and load the verified artifact. Shared by `openRuntime`
 * (`../runtime.ts`) and the read-only catalogue view (`../catalog-view.ts`), so both refuse
 * the same roots and artifacts with the same diagnostics. Loads nothing heavy (no SQLite, no
 * sandbox, no ajv), so `tools` and `search` start quickly (docs/performance.md).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { checkWriteTarget } from "../../common/confined-write.js";
import { removeStaleTemporaries } from "../../common/stale-temporaries.js";
import { DEFAULT_ARTIFACT_DIR } from "../../contract/manifest.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { runtimeError, writeRefusalError } from "../errors.js";
import { loadArtifact, type LoadedArtifact } from "./load-artifact.js";

/** File name of the state database inside `<root>/.assemblyline/`. */
export const STATE_DB_FILE = "state.db";

/** An agent root whose artifact is loaded and verified. */
export interface OpenedArtifact {
  /** Absolute agent root. */
  readonly root: string;
  /** Absolute state directory (`<root>/.assemblyline`). */
  readonly stateDir: string;
  readonly artifact: LoadedArtifact;
}

/**
 * Checks the root and loads its artifact. Throws `RuntimeError` AL1024/AL1025 when the root is
 * missing or not a folder, AL6301/AL6302 when the state directory or state.db would be written
 * through a link out of the root or where a file is, and AL8001–AL8014 for a missing, stale or
 * tampered artifact (`loadArtifact`).
 * @param options `root` as given (relative to the working directory or absolute); `artifactDir`
 *   relative to the root or absolute (default `.assemblyline/build`).
 */
export function openArtifact(options: { readonly root: string; readonly artifactDir?: string }): OpenedArtifact {
  const root = path.resolve(options.root);
  // A mistyped root says so, rather than "there is no compiled artifact" inside it.
  if (!fs.statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw runtimeError(fs.existsSync(root) ? Diagnostics.AgentRootNotDirectory : Diagnostics.AgentRootMissing, "", [options.root]);
  }
  const stateDir = path.join(root, ".assemblyline");
  // The state directory and state.db are written: never through a link out of the root, never
  // into a file where a folder is expected (AL6301/AL6302, before anything is read or created).
  for (const [target, kind] of [[stateDir, "directory"], [path.join(stateDir, STATE_DB_FILE), "file"]] as const) {
    const refusal = checkWriteTarget(root, target, kind);
    if (refusal) throw writeRefusalError("The runtime's state (.assemblyline/)", refusal, root);
  }
  // What a killed host left: half-created databases, entry scripts of earlier versions.
  removeStaleTemporaries([
    { dir: stateDir, patterns: [/^state\.db\.\d+-[0-9a-f]{8}\.tmp(?:-wal|-shm|-journal)?$/] },
    { dir: path.join(stateDir, "sandbox"), patterns: [/^child-[0-9a-f]{16}\.mjs(?:\.\d+\.tmp)?$/] },
  ]);
  const artifactDir = path.resolve(root, options.artifactDir ?? DEFAULT_ARTIFACT_DIR);
  return { root, stateDir, artifact: loadArtifact({ root, artifactDir, stateDir }) };
}

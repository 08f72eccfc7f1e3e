/**
 * The host policy of `call` and `approve` from flags over the project configuration's `host`
 * section (issue 10 item 5; `docs/configuration.md`): flags win, then the configuration, then
 * the runtime's defaults. Nothing in the agent's own files (agent.md, plugins) is consulted:
 * the project configuration belongs to the host, like the flags.
 */
import * as path from "node:path";
import { loadProjectConfig } from "../build/project-config/load-project-config.js";
import type { ProjectConfig } from "../build/project-config/types.js";
import { relativizeDiagnostic } from "../diagnostics/diagnostic.js";
import { RuntimeError } from "../runtime-min/errors.js";
import { configSelection } from "./config-selection.js";

/** The flags a host command takes for its policy. */
export interface HostPolicyFlags {
  /** `--execution` (`undefined` when not given). */
  readonly execution?: string;
  /** `--deadline MS` as typed. */
  readonly deadline?: string;
  /** `--project-config FILE` (a string) or `--no-project-config` (`false`). */
  readonly projectConfig?: string | boolean;
}

/** The policy a host command runs with. */
export interface HostPolicy {
  /** Still unchecked when it came from a flag (the command validates it, AL8042). */
  readonly execution: string;
  readonly deadlineMs?: number;
  /** Where the artifact is (`outDir` of the configuration), absolute; default `<root>/.assemblyline/build`. */
  readonly artifactDir?: string;
  /** Runtime options the configuration sets (flags for the limits override them). */
  readonly runtimeOptions: {
    readonly artifactByteLimit?: number;
    readonly deadlineMs?: number;
    readonly memoryMb?: number;
    readonly maxResultBytes?: number;
    readonly network?: "host" | "none";
  };
  readonly config: ProjectConfig;
}

/**
 * Resolves the policy for the agent at `root`.
 * @throws RuntimeError with the configuration's diagnostics (AL91xx) when it is invalid, or
 *   AL9001 words for a `--deadline` that is not a positive whole number.
 */
export async function resolveHostPolicy(root: string, flags: HostPolicyFlags): Promise<HostPolicy> {
  const absolute = path.resolve(root);
  const selection = configSelection({ ...(flags.projectConfig !== undefined ? { config: flags.projectConfig } : {}) });
  const loaded = await loadProjectConfig(absolute, selection);
  if (loaded.diagnostics.length > 0) throw new RuntimeError(loaded.diagnostics.map((d) => relativizeDiagnostic(d, absolute, path.relative)));
  const host = loaded.config.host;
  const deadlineMs = flags.deadline !== undefined ? Number(flags.deadline) : host.deadlineMs;
  return {
    execution: flags.execution ?? host.execution ?? "sandbox",
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...(loaded.config.outDir !== undefined ? { artifactDir: loaded.config.outDir } : {}),
    runtimeOptions: {
      ...(host.artifactByteLimit !== undefined ? { artifactByteLimit: host.artifactByteLimit } : {}),
      ...(deadlineMs !== undefined ? { deadlineMs } : {}),
      ...(host.memoryMb !== undefined ? { memoryMb: host.memoryMb } : {}),
      ...(host.maxResultBytes !== undefined ? { maxResultBytes: host.maxResultBytes } : {}),
      ...(host.network !== undefined ? { network: host.network } : {}),
    },
    config: loaded.config,
  };
}

/**
 * The runtime options `tools` and `search` take from the project configuration: where the
 * artifact is (`outDir`) and `host.artifactByteLimit` — the same resolution `call` and
 * `approve` use ({@link resolveHostPolicy}), so every host command reads the same artifact.
 * @throws RuntimeError with the configuration's diagnostics when it is invalid.
 */
export async function catalogRuntimeOptions(root: string, flags: Pick<HostPolicyFlags, "projectConfig">): Promise<{ readonly artifactDir?: string; readonly artifactByteLimit?: number }> {
  const policy = await resolveHostPolicy(root, flags.projectConfig === undefined ? {} : { projectConfig: flags.projectConfig });
  return {
    ...(policy.artifactDir ? { artifactDir: policy.artifactDir } : {}),
    ...(policy.runtimeOptions.artifactByteLimit !== undefined ? { artifactByteLimit: policy.runtimeOptions.artifactByteLimit } : {}),
  };
}

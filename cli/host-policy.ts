/**
 * The host policy of `call` and `approve` from flags over the project configuration's `host`
 * section (issue 10 item 5; `docs/configuration.md`): flags win, then the configuration, then
 * the runtime's defaults. Nothing in the agent's own files (agent.md, plugins) is consulted:
 * the project configuration belongs to the host, like the flags.
 */
import * as path from "node:path";
import { loadProjectConfig } from "../build/project-config/load-project-config.js";
import { shownFile, type ProjectConfig } from "../build/project-config/types.js";
import { fileStart } from "../common/positions.js";
import { relativizeDiagnostic } from "../diagnostics/diagnostic.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import { RuntimeError, runtimeError } from "../runtime-min/errors.js";
import { configSelection } from "./config-selection.js";
import { compileSettingsOf, type CompileSettings } from "../build/compile-settings.js";

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
  /**
   * The configuration's compile settings (`rules`, `maxWarnings`, `targets`, `tokenBudget`):
   * the compile-first step applies them as `compile` does (`build/compile-settings.ts`).
   */
  readonly compileSettings: CompileSettings;
  /** The agent root, absolute: the diagnostics' files are relative to it. */
  readonly root: string;
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
    compileSettings: compileSettingsOf(loaded.config),
    root: absolute,
  };
}

/**
 * What `tools` and `search` take from the project configuration: the runtime options — where the
 * artifact is (`outDir`) and `host.artifactByteLimit` — and the compile settings of their
 * compile-first step; the same resolution `call` and `approve` use ({@link resolveHostPolicy}),
 * so every host command reads the same artifact and compiles it as `compile` would.
 * @throws RuntimeError with the configuration's diagnostics when it is invalid.
 */
export async function catalogHostPolicy(
  root: string,
  flags: Pick<HostPolicyFlags, "projectConfig">,
): Promise<{ readonly runtimeOptions: { readonly artifactDir?: string; readonly artifactByteLimit?: number }; readonly compileSettings: CompileSettings }> {
  const policy = await resolveHostPolicy(root, flags.projectConfig === undefined ? {} : { projectConfig: flags.projectConfig });
  const runtimeOptions = {
    ...(policy.artifactDir ? { artifactDir: policy.artifactDir } : {}),
    ...(policy.runtimeOptions.artifactByteLimit !== undefined ? { artifactByteLimit: policy.runtimeOptions.artifactByteLimit } : {}),
  };
  return { runtimeOptions, compileSettings: policy.compileSettings };
}

/** The host-limit flags direct execution cannot apply to a tool's code, as the command line gave them. */
export interface DirectLimitFlags {
  /** `--memory-mb` as typed. */
  readonly memoryMb?: string;
  /** `--network` as typed. */
  readonly network?: string;
}

/**
 * The host limits a call under direct execution cannot apply to the tool's code, which runs in
 * the host process (docs/host-policy.md: `memoryMb` and `network` bound sandbox processes; a
 * tool's shell commands still get them). Asked for on the command line (`--memory-mb`,
 * `--network none`) they throw `RuntimeError` AL8065, a usage error naming both settings and
 * the two ways out; set by the project configuration (`host.memoryMb`, `host.network: "none"`,
 * no flag over them) they come back as warnings AL8066, and the call runs. Nothing under the
 * sandbox. README trial of 6 December: both were dropped silently. The one place this rule is.
 * AL8066 is reported at the first such key of the configuration file (the file's start for a
 * configuration that is code), relative to the agent root.
 */
export function directExecutionProblems(policy: HostPolicy, execution: "sandbox" | "direct", flags: HostPolicyFlags & DirectLimitFlags): Diagnostic[] {
  if (execution !== "direct") return [];
  const configFile = policy.config.file === undefined ? "" : shownFile(policy.config.file);
  const direct = flags.execution === "direct" ? "--execution direct" : `host.execution "direct" of ${configFile}`;
  const given = [...(flags.network === "none" ? ["--network none"] : []), ...(flags.memoryMb !== undefined ? [`--memory-mb ${flags.memoryMb}`] : [])];
  if (given.length > 0) {
    throw runtimeError(Diagnostics.DirectExecutionLimitFlags, "", [given.join(" and "), direct, flags.execution === "direct" ? "leave out --execution direct" : "pass --execution sandbox"]);
  }
  const host = policy.config.host;
  const configured = [...(flags.network === undefined && host.network === "none" ? ['host.network "none"'] : []), ...(host.memoryMb !== undefined ? [`host.memoryMb ${host.memoryMb}`] : [])];
  if (configured.length === 0) return [];
  const keys = policy.config.locations;
  const at = (flags.network === undefined && host.network === "none" ? keys?.["/host/network"] : undefined) ?? (host.memoryMb !== undefined ? keys?.["/host/memoryMb"] : undefined) ?? fileStart(policy.config.file ?? "");
  const warning = createDiagnostic(Diagnostics.DirectExecutionLimitConfig, at, [configFile, configured.join(" and "), flags.execution === "direct" ? "--execution direct" : 'host.execution "direct"']);
  return [at.file === "" ? warning : relativizeDiagnostic(warning, policy.root, path.relative)];
}

/**
 * The shell of a runtime's calls (`ctx.getSandbox().exec` and the core `bash` tool) under the
 * host's `shellIsolation` policy (seed "Execution Model": `ctx.getSandbox()` is "for isolated
 * file or shell work"; issue 4 item 4, issue 5). The isolation itself is
 * `../sandbox/shell-isolation.ts`; this module decides, per the policy and the once-per-process
 * probe, whether a command runs isolated, unisolated, or not at all.
 *
 * - `"auto"` (default): isolated when the probe succeeded; otherwise unisolated, and the
 *   runtime reports one AL8031 warning.
 * - `"required"`: isolated, or the shell request fails the call with `configuration_error`
 *   naming what the host must provide (and the runtime reports AL8032 up front).
 * - `"off"`: unisolated, no probe and no warning (the host's explicit choice).
 *
 * An isolated command whose setup fails at run time (after a successful probe) never falls
 * back: the call fails with `configuration_error`.
 */
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { runtimeError } from "../errors.js";
import { ToolCallError } from "../failures.js";
import { probeShellIsolation, SHELL_ISOLATION_POLICIES, type ShellIsolationPolicy, type ShellIsolationProbe, type ShellIsolationTools } from "../sandbox/shell-isolation.js";
import type { NetworkPolicy } from "../sandbox/process-isolation.js";
import type { ShellIsolationStatus } from "../types.js";
import { execInWorkspace, ShellIsolationSetupError, type ShellResult } from "./workspace.js";

/** What the host must provide for isolated shell commands (used in messages). */
export const SHELL_ISOLATION_REQUIREMENTS =
  "Linux with util-linux `unshare` and `mount` on PATH and unprivileged user namespaces enabled (user.max_user_namespaces > 0; kernel.unprivileged_userns_clone=1 or kernel.apparmor_restrict_unprivileged_userns=0 where those settings exist)";

/** Validates `RuntimeOptions.shellIsolation` (default `"auto"`); throws `RuntimeError` AL8033. */
export function checkShellIsolationPolicy(value: unknown): ShellIsolationPolicy {
  if (value === undefined) return "auto";
  if (typeof value === "string" && (SHELL_ISOLATION_POLICIES as readonly string[]).includes(value)) return value as ShellIsolationPolicy;
  const shown = typeof value === "string" ? JSON.stringify(value) : `(${value === null ? "null" : typeof value})`;
  throw runtimeError(Diagnostics.ShellIsolationPolicyInvalid, "", [shown]);
}

/** Runs shell commands in run workspaces under one runtime's policy. */
export class WorkspaceShell {
  /** Probes (unless the policy is `"off"`) and returns the shell of a runtime. Never throws. */
  static async open(policy: ShellIsolationPolicy, network: NetworkPolicy = "host", dataLimitMb?: number): Promise<WorkspaceShell> {
    const shell = new WorkspaceShell(policy, policy === "off" ? undefined : await probeShellIsolation(), network);
    shell.dataLimitMb = dataLimitMb;
    return shell;
  }

  /** Each isolated command process's data size in MiB (the sandbox process's: `processDataLimitMb`), when the runtime gives one. */
  private dataLimitMb: number | undefined;

  private constructor(
    private readonly policy: ShellIsolationPolicy,
    private readonly probe: ShellIsolationProbe | undefined,
    /** The host's network policy, which isolated commands keep too (`"none"`: no network). */
    private readonly network: NetworkPolicy,
    /** The isolation commands still run under when {@link withoutLinkGuard} counts them as not isolated. */
    private readonly unguardedTools?: ShellIsolationTools,
    /** Aborted by {@link close}: every command still running ends. Shared with the shell {@link withoutLinkGuard} derives. */
    private readonly closing: AbortController = new AbortController(),
  ) {}

  /**
   * Runs `work` with a signal that aborts when `stop` or {@link close} does, and lets go of both
   * afterwards (Node 20's `AbortSignal.any` keeps an entry per command on the runtime-long signal).
   */
  private async withStop<T>(stop: AbortSignal | undefined, work: (either: AbortSignal) => Promise<T>): Promise<T> {
    if (stop === undefined) return work(this.closing.signal);
    const either = new AbortController();
    const abort = (): void => either.abort();
    if (stop.aborted || this.closing.signal.aborted) either.abort();
    stop.addEventListener("abort", abort, { once: true });
    this.closing.signal.addEventListener("abort", abort, { once: true });
    try {
      return await work(either.signal);
    } finally {
      stop.removeEventListener("abort", abort);
      this.closing.signal.removeEventListener("abort", abort);
    }
  }

  /** Ends every command still running, and refuses new ones (the runtime closes). */
  close(): void {
    this.closing.abort();
  }

  /**
   * This shell for a runtime whose sandbox processes lack the link guard
   * (`ProcessIsolationProbe.linkGuardUnavailableReason`, or no namespaces at all): its commands
   * count as not isolated — AL8031 under `"auto"`, refused under `"required"` — since a link a
   * command leaves in the workspace would lead a sandboxed tool's own process out of it (review
   * of 5 December, N1). The command itself still runs in its namespaces where it can.
   */
  withoutLinkGuard(reason: string): WorkspaceShell {
    if (!this.probe?.available) return this;
    const derived = new WorkspaceShell(this.policy, { available: false, reason: `sandboxed tools' processes would follow a symbolic link a command leaves in the workspace: ${reason}` }, this.network, this.probe.tools, this.closing);
    derived.dataLimitMb = this.dataLimitMb;
    return derived;
  }

  /** The policy and whether commands run isolated (and why not, when the probe failed). */
  get status(): ShellIsolationStatus {
    const probe = this.probe;
    if (!probe) return { policy: this.policy, isolated: false };
    return probe.available ? { policy: this.policy, isolated: true } : { policy: this.policy, isolated: false, unavailableReason: probe.reason };
  }

  /** AL8031 (`"auto"` without isolation) or AL8032 (`"required"` without isolation); else none. */
  warnings(): Diagnostic[] {
    const probe = this.probe;
    if (!probe || probe.available) return [];
    const message = this.policy === "required" ? Diagnostics.ShellIsolationRequiredUnavailable : Diagnostics.ShellIsolationUnavailable;
    return [createDiagnostic(message, { file: "", line: 1, column: 1 }, [probe.reason])];
  }

  /**
   * Runs `command` in `workspace` (see `execInWorkspace`). Throws `ToolCallError`
   * `configuration_error` when the policy requires isolation this host lacks, when the network
   * policy is `"none"` and the command could not run isolated (nothing else keeps it off the
   * network), or when the isolation could not be set up; the command did not run then. `stop`
   * (the call's end) or {@link close} ends a command still running (host-file review of 5 December, H6:
   * an unawaited command outlived its call, `runtime.close()` and the host, racing later calls).
   */
  async exec(workspace: string, command: string, timeoutMs: number | undefined, stop?: AbortSignal): Promise<ShellResult> {
    const probe = this.probe;
    if (probe && !probe.available && this.policy === "required") {
      throw new ToolCallError(
        "configuration_error",
        `The shell command did not run: the host requires shell commands to run isolated (shellIsolation: "required"), but this host cannot isolate them: ${probe.reason}. The host must provide ${SHELL_ISOLATION_REQUIREMENTS}, or choose shellIsolation "auto" or "off".`,
      );
    }
    const isolated = probe?.available ? probe.tools : this.unguardedTools;
    if (this.network === "none" && isolated === undefined) {
      throw new ToolCallError(
        "configuration_error",
        `The shell command did not run: the host's network policy is "none", which only an isolated shell command can keep, and shell commands are not isolated here (${probe && !probe.available ? probe.reason : 'shellIsolation: "off"'}). The host must provide ${SHELL_ISOLATION_REQUIREMENTS}, or choose network "host".`,
      );
    }
    try {
      return await this.withStop(stop, (either) => execInWorkspace(workspace, command, timeoutMs, isolated, this.network, either, this.dataLimitMb));
    } catch (error) {
      if (!(error instanceof ShellIsolationSetupError)) throw error;
      throw new ToolCallError("configuration_error", `${error.message} The host must provide ${SHELL_ISOLATION_REQUIREMENTS}.`, { cause: error });
    }
  }
}

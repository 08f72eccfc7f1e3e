/**
 * What a called name means for the runtime that owns it, and whether a call of it runs its
 * authored tool now: the dispatch target (`./resolve-target.ts`, from the surface snapshot's
 * resolver), `ctx.config` with the host's `requiredConfig` values, and the rule that decides
 * when a call's sandbox process may start before its checks (issue 14 item 3). The call
 * pipeline (`./call-pipeline.ts`) runs its steps on these; `openRuntime` asks the same rule for
 * the call a host announces (`RuntimeOptions.firstCall`), before the state store opens. Nothing
 * here touches the state store.
 */
import { setOwn } from "../../common/json-value.js";
import type { LoadedArtifact, VerifiedTool } from "../artifact/load-artifact.js";
import type { CoreTool } from "../core-tools/types.js";
import type { Json } from "../sandbox/json-copy.js";
import { resolveCallTarget, type CallTarget } from "./resolve-target.js";
import type { ToolCatalog } from "./tool-catalog.js";

/** What {@link CallTargets} reads: the runtime's artifact, catalog, built-ins and host values. */
export interface CallTargetSources {
  readonly artifact: LoadedArtifact;
  /** Snapshot resolvers per surface. */
  readonly catalog: ToolCatalog;
  /** The runtime's built-in implementations, overridden by the host's, plus host-only tools. */
  readonly hostTools: ReadonlyMap<string, CoreTool>;
  /** The host's `requiredConfig` values (`RuntimeOptions.hostConfig`). */
  readonly hostConfig: { readonly [name: string]: string };
}

/** An authored call target. */
export type AuthoredTarget = Extract<CallTarget, { kind: "authored" }>;

/** The dispatch targets and `ctx.config` of one runtime, each computed once. */
export class CallTargets {
  /** `ctx.config` (or the missing-config message) per authored tool. */
  private readonly configs = new WeakMap<object, { [key: string]: Json } | string>();
  /** Dispatch targets by surface, then tool name. */
  private readonly targets = new Map<string, Map<string, CallTarget>>();

  constructor(private readonly sources: CallTargetSources) {}

  /**
   * The dispatch target of `name` on `surfaceId`, from the surface snapshot's resolver;
   * cached, since what a name means for dispatch never changes while the runtime is open
   * (promotions only change what the model starts with).
   */
  resolve(surfaceId: string, name: string): CallTarget {
    let perSurface = this.targets.get(surfaceId);
    if (!perSurface) this.targets.set(surfaceId, (perSurface = new Map()));
    let target = perSurface.get(name);
    if (!target) {
      target = this.resolveUncached(surfaceId, name);
      // Unknown names are not cached, so a flood of made-up names cannot grow the map.
      if (target.kind !== "refused") perSurface.set(name, target);
    }
    return target;
  }

  /**
   * `ctx.config` of an authored tool, or the configuration error naming the missing host
   * values. Computed once per tool: the tool's config and the host's values never change
   * while the runtime is open (the bridge copies it for each call).
   */
  ctxConfig(target: AuthoredTarget): { [key: string]: Json } | string {
    let config = this.configs.get(target.tool);
    if (config === undefined) {
      config = this.buildCtxConfig(target);
      this.configs.set(target.tool, config);
    }
    return config;
  }

  /**
   * The authored tool that a call of `name` on `surfaceId` will run now, or `undefined`: the
   * name resolves to an authored tool, the host supplied its `requiredConfig`, and no approval
   * gate stops the call (`approval` is `"ask"` for a new call, `"granted"` once approved). Such
   * a call may start its sandbox process before its input is checked; the checks, their order
   * and their words do not change (a call they refuse leaves the process warm for its run).
   * These are the pipeline's own refusals that come before the tool runs and need no state
   * (`./call-pipeline.ts`, `CallPipeline.run`): a new one there that needs none belongs here too.
   */
  toolStartingNow(surfaceId: string, name: string, approval: "ask" | "granted"): VerifiedTool | undefined {
    return this.startingNow(this.resolve(surfaceId, name), approval);
  }

  /** {@link toolStartingNow} of a target already resolved (the pipeline's, which holds it). */
  startingNow(target: CallTarget, approval: "ask" | "granted"): VerifiedTool | undefined {
    if (target.kind !== "authored" || typeof this.ctxConfig(target) === "string") return undefined;
    return target.approval && approval === "ask" ? undefined : target.tool;
  }

  private resolveUncached(surfaceId: string, name: string): CallTarget {
    const { catalog } = this.sources;
    const resolution = catalog.resolve(surfaceId, name);
    return resolveCallTarget(resolution, {
      surfaceId,
      authored: this.sources.artifact.tools.get(surfaceId),
      hostTools: this.sources.hostTools,
      toolSearchAvailable: resolution.kind === "unknown" && catalog.resolve(surfaceId, "tool_search").kind === "core",
    });
  }

  private buildCtxConfig(target: AuthoredTarget): { [key: string]: Json } | string {
    const { tool } = target;
    const { hostConfig } = this.sources;
    const missing = tool.requiredConfig.filter((name) => typeof hostConfig[name] !== "string");
    if (missing.length > 0) {
      const flags = missing.map((name) => `--config ${name}=<value>`).join(" ");
      return `Tool '${tool.name}' needs the host value${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (requiredConfig), which the host did not supply. Pass ${flags} (or hostConfig in openRuntime).`;
    }
    const config: { [key: string]: Json } = { ...(tool.config as { [key: string]: Json }) };
    for (const name of tool.requiredConfig) setOwn(config, name, hostConfig[name]!);
    return config;
  }
}

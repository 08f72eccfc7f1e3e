/**
 * Where a file sits: which plugin folder holds it and which agent root may select that plugin
 * (DESIGN §2: `plugins/<name>/` of a surface; `subagents/<child>/` surfaces under the root).
 * Answers are kept per folder, so asking again about a file of a known folder costs a lookup.
 */
import * as path from "node:path";
import type { CompilerHost } from "../../common/host.js";
import { findAgentRoot } from "../../compiler/agent/agent-root.js";

/** `…/ai.assemblyline/index.{ts,mts,js,mjs}`, either separator. */
const ENTRY = /^(.*)[\\/]ai\.assemblyline[\\/]index\.(?:ts|mts|js|mjs)$/;

/** Files of an agent or a plugin package that compile reads and reports into, besides modules. */
const AGENT_FILES = new Set(["agent.md", "plugin.json", "mcp.json", "SKILL.md"]);

/** The plugin folder of an entry path, or `undefined` when `file` is not an entry. */
export function pluginRootOfEntry(file: string): string | undefined {
  return ENTRY.exec(file)?.[1];
}

/** True when `file`'s name is one compile reads besides modules (`agent.md`, `plugin.json`, …). */
export function isAgentFileName(file: string): boolean {
  return AGENT_FILES.has(path.basename(file));
}

/** Finds plugin folders and agent roots through the host, remembering answers per folder. */
export class Locator {
  readonly #pluginRoots = new Map<string, string | null>();
  readonly #agentRoots = new Map<string, string | null>();

  constructor(readonly host: CompilerHost) {}

  /** The nearest folder at or above `dir` that has an `ai.assemblyline/` folder (a plugin root). */
  pluginRootAbove(dir: string): string | undefined {
    const known = this.#pluginRoots.get(dir);
    if (known !== undefined) return known ?? undefined;
    let found: string | null;
    if (this.host.kind(path.join(dir, "ai.assemblyline")) === "directory") found = dir;
    else {
      const parent = path.dirname(dir);
      found = parent === dir ? null : (this.pluginRootAbove(parent) ?? null);
    }
    this.#pluginRoots.set(dir, found);
    return found ?? undefined;
  }

  /**
   * The agent root that may select the plugin at `pluginRoot`: for `<surface>/plugins/<name>/`
   * the surface's root agent (climbing `subagents/<child>/`); for an installed package
   * `<project>/node_modules/…`, the project folder when it has an `agent.md`.
   */
  agentRootOfPlugin(pluginRoot: string): string | undefined {
    const known = this.#agentRoots.get(pluginRoot);
    if (known !== undefined) return known ?? undefined;
    let surface: string | undefined;
    const parent = path.dirname(pluginRoot);
    if (path.basename(parent) === "plugins" && this.#hasAgentFile(path.dirname(parent))) surface = path.dirname(parent);
    else {
      const modules = pluginRoot.lastIndexOf(`${path.sep}node_modules${path.sep}`);
      if (modules >= 0 && this.#hasAgentFile(pluginRoot.slice(0, modules))) surface = pluginRoot.slice(0, modules);
    }
    const root = surface === undefined ? null : this.rootOfSurface(surface);
    this.#agentRoots.set(pluginRoot, root);
    return root ?? undefined;
  }

  /** The root agent of a surface folder (climbs `…/subagents/<child>/` while the parent has `agent.md`; `compiler/agent/agent-root.ts`). */
  rootOfSurface(surface: string): string {
    return findAgentRoot(this.host, path.join(surface, "agent.md")) ?? surface;
  }

  /** The root agent of the nearest folder at or above `dir` with an `agent.md` (`compiler/agent/agent-root.ts`, the one place this rule lives). */
  agentRootAbove(dir: string): string | undefined {
    return findAgentRoot(this.host, path.join(dir, "agent.md"));
  }

  /** Forgets every answer (a folder may have gained or lost `agent.md` or `ai.assemblyline/`). */
  clear(): void {
    this.#pluginRoots.clear();
    this.#agentRoots.clear();
  }

  #hasAgentFile(dir: string): boolean {
    return this.host.kind(path.join(dir, "agent.md")) === "file";
  }
}

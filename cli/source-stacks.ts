/**
 * The pretty output of `call` and `approve` shows a failed tool's stack at the author's sources:
 * each frame in the tool's bundle (the runtime's verified copy, `.assemblyline/bundles/<hash>.mjs`)
 * is given the file, line and column of the definition module it came from, as Node's
 * `--enable-source-maps` would (new-user trial helper-64, M41). The map is made on demand
 * (`packaging/bundle-source-map.ts`), only for a stack that is shown, and used only when it
 * describes the very bundle that ran; the `--format json` result and the run's events in
 * state.db keep the stack as the tool's process reported it.
 */
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import type { LockedSource } from "../contract/lockfile-types.js";
import type { BundlePositionMap } from "../packaging/bundle-source-map.js";
import type { Runtime } from "../runtime-min/index.js";
import type { CallResult } from "../runtime-min/types.js";

/**
 * Loads `packaging/bundle-source-map.ts`, which builds with esbuild: the host bundle, which holds
 * no packager, is given the CLI bundle's (scripts/build-cli-bundle.mjs), loaded only for a stack.
 */
export type SourceMapLoader = () => Promise<Pick<typeof import("../packaging/bundle-source-map.js"), "lockedToolPositionMap">>;

/**
 * The `sourceStacks` hook of the host commands (`RuntimeCommandHooks`): `result` with the stack
 * of each event that has one rewritten at the sources (see the module comment), or `result`
 * itself when no frame could be mapped. Never throws.
 * @param load the source-map module's loader.
 */
export function sourceStacks(load: SourceMapLoader): (result: CallResult, runtime: Runtime) => Promise<CallResult> {
  return (result, runtime) => withSourceStacks(result, runtime, load);
}

/**
 * `result` with its stacks at the sources (see {@link sourceStacks}).
 * @param runtime the runtime that ran the call (its artifact and lock say which bundle ran, and
 *   where its plugin and definition are).
 */
async function withSourceStacks(result: CallResult, runtime: Runtime, load: SourceMapLoader): Promise<CallResult> {
  if (!result.events.some((event) => typeof event["stack"] === "string")) return result;
  try {
    const surface = surfaceOf(result);
    const map = await positionMapOf(runtime, surface, result.tool, load);
    if (!map) return result;
    const bundle = runtime.artifact.tools.get(surface)?.get(result.tool)?.verifiedBundle;
    if (!bundle) return result;
    let changed = false;
    const events = result.events.map((event) => {
      const stack = event["stack"];
      if (typeof stack !== "string") return event;
      const mapped = mapFrames(stack, bundle, map);
      if (mapped === stack) return event;
      changed = true;
      return { ...event, stack: mapped };
    });
    return changed ? { ...result, events } : result;
  } catch {
    return result;
  }
}

/** The surface the call ran on: its `tool.execution_started` event says it. */
function surfaceOf(result: CallResult): string {
  const started = result.events.find((event) => event.type === "tool.execution_started");
  return typeof started?.["surface"] === "string" ? started["surface"] : ".";
}

/** The position map of `tool`'s bundle on `surface`, from the runtime's lock and artifact. */
async function positionMapOf(runtime: Runtime, surface: string, toolName: string, load: SourceMapLoader): Promise<BundlePositionMap | undefined> {
  const verified = runtime.artifact.tools.get(surface)?.get(toolName);
  if (!verified) return undefined;
  const lock = runtime.artifact.lock as { surfaces?: Record<string, { capabilities?: Record<string, { source?: LockedSource; tools?: Record<string, { definition?: unknown }> }> }> };
  const capability = lock.surfaces?.[surface]?.capabilities?.[verified.capability];
  const definition = capability?.tools?.[toolName]?.definition;
  if (!capability?.source || typeof definition !== "string") return undefined;
  const tool = { surfaceId: surface, capability: verified.capability, toolName, source: capability.source, definition, integrity: verified.integrity };
  return (await load()).lockedToolPositionMap(runtime.root, tool);
}

/**
 * `stack` with every `<bundle>:line:column` (as a path or a `file:` URL) replaced by the source
 * position `map` gives, relative to the working directory; frames it cannot map stay as they are.
 */
function mapFrames(stack: string, bundle: string, map: BundlePositionMap): string {
  const spellings = [pathToFileURL(bundle).href, bundle];
  return stack
    .split("\n")
    .map((line) => {
      for (const spelling of spellings) {
        const at = line.indexOf(`${spelling}:`);
        if (at === -1) continue;
        const position = /^:(\d+):(\d+)/.exec(line.slice(at + spelling.length));
        if (!position) continue;
        const source = map(Number(position[1]), Number(position[2]));
        if (!source) return line;
        const shown = path.relative(process.cwd(), source.file).split(path.sep).join("/") || source.file;
        return `${line.slice(0, at)}${shown}:${source.line}:${source.column}${line.slice(at + spelling.length + position[0].length)}`;
      }
      return line;
    })
    .join("\n");
}

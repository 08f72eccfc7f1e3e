/**
 * Built-ins that need services this runtime does not have: `pair` (connection pairing),
 * `files_search` and `files_mount` (the user's file store) and `history_search` (the
 * conversation history store). The embedding host supplies their implementations on the JS
 * API — either by replacing these entries of `CORE_TOOLS` with its own `CoreTool`
 * (`RuntimeOptions.hostTools`), or as plain functions passed to the call in
 * `CoreToolContext.hostImplementations`; without one, a call fails with `configuration_error`
 * naming what the host must supply. They stay in the snapshot either way (`pair` is always
 * visible "so a pasted binding packet always has a landing spot").
 */
import { ToolCallError } from "../failures.js";
import { getCoreToolSpec } from "../../contract/core-catalog.js";
import { pickSpec } from "./spec.js";
import type { CoreJson, CoreTool, CoreToolContext } from "./types.js";

/** Names of the host-provided built-ins, sorted. */
export const HOST_PROVIDED_TOOLS: readonly string[] = Object.freeze(["files_mount", "files_search", "history_search", "pair"]);

/**
 * Creates the core tool `name` that delegates to `ctx.hostImplementations[name]`.
 * @throws Error when `name` is not a host-provided built-in (a programming error).
 */
export function createHostProvidedTool(name: string): CoreTool {
  const spec = getCoreToolSpec(name);
  if (!spec || spec.implementer !== "host") throw new Error(`"${name}" is not a host-provided core tool.`);
  return {
    ...pickSpec(name),
    async execute(input: CoreJson, ctx: CoreToolContext): Promise<unknown> {
      const implementation = ctx.hostImplementations && Object.prototype.hasOwnProperty.call(ctx.hostImplementations, name) ? ctx.hostImplementations[name] : undefined;
      if (typeof implementation !== "function") {
        throw new ToolCallError(
          "configuration_error",
          `${name} is not available in this runtime: it needs ${spec.hostService ?? "a host service"}. The host must supply a "${name}" implementation on the runtime's JS API (RuntimeOptions.hostTools).`,
        );
      }
      return implementation(input, ctx);
    },
  };
}

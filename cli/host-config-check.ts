/**
 * `--config KEY=VALUE` keys no tool of the agent requires (helper-73: a misspelt key was silently
 * ignored, and the tool then failed with configuration_error for the key it did require). The
 * runtime passes a tool only the `requiredConfig` keys it declares (seed "Tool implementation":
 * `ctx.config` is the merged config plus the host's `requiredConfig` values), so any other key
 * reaches no tool; a warning names it, with the closest key a tool requires.
 */
import { didYouMean } from "../common/did-you-mean.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { LoadedArtifact } from "../runtime-min/artifact/load-artifact.js";

/**
 * AL8048 for each key of `hostConfig` that no tool of `artifact` (any surface) lists in its
 * `requiredConfig`, in the order given; none when every key is required by some tool.
 */
export function unusedHostConfigWarnings(hostConfig: Readonly<Record<string, string>> | undefined, artifact: LoadedArtifact): Diagnostic[] {
  const keys = Object.keys(hostConfig ?? {});
  if (keys.length === 0) return [];
  const required = new Set<string>();
  for (const tools of artifact.tools.values()) for (const tool of tools.values()) for (const key of tool.requiredConfig) required.add(key);
  return keys
    .filter((key) => !required.has(key))
    .map((key) => {
      const near = didYouMean(key, required);
      const hint = near
        ? `Did you mean '${near}'? The keys the agent's tools require are listed by \`tools\` (requiredConfig).`
        : required.size > 0
          ? `The agent's tools require ${[...required].sort().map((name) => `'${name}'`).join(", ")}; remove --config ${key}=… or correct its key.`
          : `No tool of this agent declares requiredConfig; remove --config ${key}=….`;
      return createDiagnostic(Diagnostics.HostConfigKeyUnused, { file: "", line: 1, column: 1 }, [key], { hint });
    });
}

/**
 * Tool-name collisions within one surface (issue 2 item 4): two plugins of a surface may not
 * declare the same tool, and no plugin may shadow a core tool unless it says `disabled: true`
 * (seed "To remove a core default").
 */
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { CORE_TOOL_NAMES } from "./core-tool-names.js";
import type { ValidatedPlugin } from "./validate-plugin.js";

/**
 * Checks the validated plugins of one surface, in `agent.md` order. The second declaration of
 * a name is reported, with the first as a related location.
 */
export function checkSurfaceCollisions(plugins: readonly ValidatedPlugin[]): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  const firstByName = new Map<string, { capability: string; location: SourceLocation }>();
  for (const plugin of plugins) {
    for (const tool of plugin.tools) {
      if (CORE_TOOL_NAMES.has(tool.name)) {
        diagnostics.push(createDiagnostic(Diagnostics.CoreToolCollision, tool.location, [tool.name, tool.capability], { path: ["tools", tool.name] }));
        continue;
      }
      const first = firstByName.get(tool.name);
      if (!first) {
        firstByName.set(tool.name, { capability: tool.capability, location: tool.location });
        continue;
      }
      diagnostics.push(
        createDiagnostic(Diagnostics.ToolNameCollision, tool.location, [tool.name, first.capability, tool.capability], {
          path: ["tools", tool.name],
          related: [{ ...first.location, message: `'${tool.name}' is also declared by capability '${first.capability}' here` }],
        }),
      );
    }
  }
  return diagnostics;
}

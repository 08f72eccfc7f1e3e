/**
 * Test helper: init's starter agent as a fixture, written in-process. Most tests that start from
 * the starter agent are about what comes after (compile, call, the configuration); running the
 * built CLI's `init` for each cost a whole process (about 0.25 s of CPU to start,
 * docs/performance.md "The test suite's budget"). `test/e2e/init.test.ts` runs the real `init`
 * and checks that this helper writes the same files, byte for byte.
 */
import * as path from "node:path";
import { initAgent } from "../../cli/init/init-agent.js";
import type { AuthoringTypes } from "../../cli/init/agent-template.js";
import { repoRoot } from "./temp-tree.js";

/**
 * The authoring declarations the built CLI (`dist/`) names in a new agent's `tsconfig.json`,
 * relative to `root` (`cli/init/init-agent.ts`'s `authoringTypesFor`, as it answers in the
 * built CLI, with no install of the toolchain above `root`; run in-process from the sources it
 * would name the `.ts` sources instead).
 */
export function builtAuthoringTypes(root: string): AuthoringTypes {
  const relative = (file: string): string => {
    const posix = path.relative(root, path.join(repoRoot, "dist", "runtime-min", "authoring", file)).split(path.sep).join("/");
    return posix.startsWith("../") ? posix : `./${posix}`;
  };
  return { core: relative("index.d.ts"), assets: relative("assets.d.ts") };
}

/**
 * Writes the starter agent into `root` (absolute; created with its parents) as `assembly-line
 * init <root>` of the built CLI writes it; returns `root`. Throws when init refuses (a file in
 * the way): a fixture that could not be made.
 */
export function writeStarterAgent(root: string): string {
  const result = initAgent(root, builtAuthoringTypes(root));
  if (!result.ok) throw new Error(`init refused ${root}: ${result.diagnostics.map((d) => `${d.code} ${d.message}`).join("; ")}`);
  return root;
}

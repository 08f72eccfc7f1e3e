/** `--config` keys no tool requires (AL8048; cli/host-config-check.ts). */
import { describe, expect, it } from "vitest";
import { unusedHostConfigWarnings } from "../../cli/host-config-check.js";
import type { LoadedArtifact } from "../../runtime-min/artifact/load-artifact.js";

/** An artifact whose tools (per surface) require the given keys; nothing else of it is read. */
function artifactRequiring(bySurface: Record<string, Record<string, readonly string[]>>): LoadedArtifact {
  const tools = new Map(Object.entries(bySurface).map(([surface, named]) => [surface, new Map(Object.entries(named).map(([name, requiredConfig]) => [name, { name, requiredConfig }]))]));
  return { tools } as unknown as LoadedArtifact;
}

describe("unusedHostConfigWarnings", () => {
  const artifact = artifactRequiring({ ".": { search: ["SEARCH_API_URL"] }, "subagents/researcher": { fetch: ["FETCH_TOKEN"] } });

  it("says nothing for keys some tool requires, on any surface", () => {
    expect(unusedHostConfigWarnings({ SEARCH_API_URL: "u", FETCH_TOKEN: "t" }, artifact)).toEqual([]);
    expect(unusedHostConfigWarnings(undefined, artifact)).toEqual([]);
  });

  it("names each other key, with the nearest required key or the list of them", () => {
    const [typo, other] = unusedHostConfigWarnings({ SEARCH_API_ULR: "u", COLOR: "red" }, artifact);
    expect(typo).toMatchObject({ code: "AL8048", severity: "warning", hint: "Did you mean 'SEARCH_API_URL'? The keys the agent's tools require are listed by `tools` (requiredConfig)." });
    expect(other!.hint).toBe("The agent's tools require 'FETCH_TOKEN', 'SEARCH_API_URL'; remove --config COLOR=… or correct its key.");
  });
});

/**
 * The bundle cache's per-bundle key and the root-relative paths it is made of, on their fast
 * paths (issue 14 item 4, eleventh round): the same answers as `path.relative` and a SHA-256
 * through `createHash`, so the cache written before the change is still found after it.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { bundleBuildKey } from "../../packaging/bundle-cache.js";
import { toPosixRelative } from "../../packaging/esbuild-plugin.js";

describe("toPosixRelative", () => {
  it("gives path.relative's answer, with / separators, inside the root and anywhere else", () => {
    const root = "/work/agent";
    const cases = [
      "/work/agent/plugins/a/ai.assemblyline/tool-0.ts",
      "/work/agent/x",
      "/work/agent",
      "/work/agent-other/plugins/a.ts",
      "/work/agentx",
      "/work/other/a.ts",
      "/work/agent/plugins/../b.ts",
      "/work/agent/./plugins/b.ts",
      "/work/agent//plugins/b.ts",
      "/work/agent/plugins/b/",
      "/",
    ];
    for (const to of cases) expect(toPosixRelative(root, to), to).toBe(path.relative(root, to).split(path.sep).join("/"));
    for (const from of ["/work/agent/", "/work/./agent", "/work/agent/..", "/"]) {
      expect(toPosixRelative(from, "/work/agent/plugins/a.ts"), from).toBe(path.relative(from, "/work/agent/plugins/a.ts").split(path.sep).join("/"));
    }
  });
});

describe("bundleBuildKey", () => {
  it("is the SHA-256 (base64url) of the options key, the name and the definition, as stored by earlier builds", () => {
    const expected = createHash("sha256").update("options\0bundles/root/é/tool\0plugins/é/tool.ts").digest("base64url");
    expect(bundleBuildKey("options", "bundles/root/é/tool", "plugins/é/tool.ts")).toBe(expected);
  });
});

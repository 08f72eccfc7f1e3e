/**
 * The bundle cache's per-bundle key and the root-relative paths it is made of, on their fast
 * paths (issue 14 item 4, eleventh round): the same answers as `path.relative` and a SHA-256
 * through `createHash`, so the cache written before the change is still found after it; and the
 * one-shot hashes of bundles' integrities and probes' digests (twelfth round): `createHash`'s.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { bundleBuildKey } from "../../packaging/bundle-cache.js";
import { toPosixRelative } from "../../packaging/esbuild-plugin.js";
import { bundleIntegrity } from "../../packaging/integrity.js";
import { digest } from "../../common/probes.js";
import ssri from "ssri";

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

describe("the one-shot hashes (twelfth round)", () => {
  const samples: Uint8Array[] = [new Uint8Array(0), Buffer.from("export default 1;\n"), Buffer.from("caf\u00e9 \u{1F600}\n", "utf8"), new Uint8Array(70_000).map((_, i) => (i * 31) & 0xff), Buffer.from("xxabcxx").subarray(2, 5)];

  it("bundleIntegrity gives ssri's SRI (SHA-512) of the bytes, also of a view into a larger buffer", () => {
    for (const bytes of samples) {
      expect(bundleIntegrity(bytes)).toBe(`sha512-${createHash("sha512").update(bytes).digest("base64")}`);
      expect(bundleIntegrity(bytes)).toBe(ssri.fromData(Buffer.from(bytes), { algorithms: ["sha512"] }).toString());
    }
  });

  it("a probe's digest is createHash's SHA-256 of the bytes, and of a text's UTF-8 bytes", () => {
    for (const bytes of samples) expect(digest(bytes)).toBe(createHash("sha256").update(bytes).digest("base64url"));
    for (const text of ["", "plain", "caf\u00e9 \u2014 \u{1F600}", "a\0b"]) expect(digest(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("base64url"));
  });
});

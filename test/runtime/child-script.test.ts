/**
 * The sandbox entry's text (`runtime-min/sandbox/child-script.ts`): a built host reads the
 * prebuilt `child.bundle.mjs` synchronously on first use, so the pool can spawn a call's process
 * in the caller's turn, before the input check (issue 14 item 3); run from sources, the text is
 * bundled once per process (a promise), and known afterwards.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";

const dist = path.resolve(import.meta.dirname, "../../dist/runtime-min/sandbox");

describe("the sandbox entry's text", () => {
  it("is read at once from the prebuilt file in dist/, on first use", async () => {
    const built = (await import(pathToFileURL(path.join(dist, "child-script.js")).href)) as typeof import("../../runtime-min/sandbox/child-script.js");
    const first = built.prepareChildSource();
    expect(typeof first).toBe("string");
    expect(first).toBe(fs.readFileSync(path.join(dist, built.PREBUILT_CHILD_FILE), "utf8"));
    expect(built.prepareChildSource()).toBe(first);
  });

  it("is bundled on first use from sources (a promise), and given at once afterwards", async () => {
    vi.resetModules();
    const sources = await import("../../runtime-min/sandbox/child-script.js");
    const first = sources.prepareChildSource();
    expect(first).toBeInstanceOf(Promise);
    const text = await first;
    expect(text).toContain("process.exit(0)");
    expect(sources.prepareChildSource()).toBe(text);
  }, 60_000);
});

/**
 * scripts/declarations-cache.mjs: the dist build's declaration files are kept per user, by the
 * SHA-256 of the build's stamp and sources, with every other file the emit read (TypeScript's
 * libraries, the packages' declarations) and its SHA-256; a build of the same inputs in another
 * clone writes them instead of emitting (the test suite's budget, docs/performance.md). An entry
 * is used only when every recorded input is unchanged, only from a file of this user's that
 * nobody else can write, and only to write `.d.ts` files under `dist/`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot, tempDir, writeFiles } from "../helpers/temp-tree.js";

interface Cache {
  restore(): boolean;
  store(inputs: readonly (readonly [string, string])[], outputs: readonly (readonly [string, string])[]): void;
}
interface CacheModule {
  declarationsKey(stamp: unknown, hashes: Record<string, string>): string;
  openDeclarationsCache(repo: string, key: string, folder?: string, distCommon?: string): Promise<Cache | undefined>;
  emitInputs(repo: string, fileNames: readonly string[], sources: readonly string[]): [string, string][];
  sha256File(file: string): string;
}
const { declarationsKey, openDeclarationsCache, emitInputs, sha256File } = (await import(pathToFileURL(path.join(repoRoot, "scripts", "declarations-cache.mjs")).href)) as CacheModule;
const distCommon = path.join(repoRoot, "dist", "common");

/** A clone: one source, one package declaration under node_modules; what its emit read and wrote. */
function clone(): { repo: string; inputs: [string, string][]; outputs: [string, string][] } {
  const repo = tempDir("al-dts-clone-");
  writeFiles(repo, {
    "cli/a.ts": "export const a: number = 1;\n",
    "node_modules/@types/x/index.d.ts": "declare const x: 1;\n",
  });
  const inputs = emitInputs(repo, [path.join(repo, "cli/a.ts"), path.join(repo, "node_modules/@types/x/index.d.ts")], ["cli/a.ts"]);
  return { repo, inputs, outputs: [["dist/cli/a.d.ts", "export declare const a: number;\n"]] };
}

describe("the per-user declarations", () => {
  const stamp = { script: "s", config: "c", base: "b", typescript: "6.0.3", esbuild: "0.28.2" };
  const key = declarationsKey(stamp, { "cli/a.ts": "1" });

  it("records the files read besides the sources, by path relative to the repository, with their SHA-256", () => {
    const { repo, inputs } = clone();
    expect(inputs).toEqual([["node_modules/@types/x/index.d.ts", sha256File(path.join(repo, "node_modules/@types/x/index.d.ts"))]]);
  });

  it("written in one clone, are written byte for byte in another of the same inputs, with no emit", async () => {
    const user = path.join(tempDir("al-dts-user-"), "private");
    const first = clone();
    const writer = await openDeclarationsCache(first.repo, key, user, distCommon);
    expect(writer).toBeDefined();
    expect(writer!.restore()).toBe(false);
    writer!.store(first.inputs, first.outputs);
    expect(fs.readdirSync(user).filter((name) => name.startsWith("declarations-"))).toEqual([`declarations-${key}.bin`]);
    expect(fs.statSync(path.join(user, `declarations-${key}.bin`)).mode & 0o777).toBe(0o600);
    const second = clone();
    expect((await openDeclarationsCache(second.repo, key, user, distCommon))!.restore()).toBe(true);
    expect(fs.readFileSync(path.join(second.repo, "dist/cli/a.d.ts"), "utf8")).toBe(first.outputs[0]![1]);
    // Another key (a changed source or stamp): nothing.
    const third = clone();
    expect((await openDeclarationsCache(third.repo, declarationsKey(stamp, { "cli/a.ts": "2" }), user, distCommon))!.restore()).toBe(false);
    expect((await openDeclarationsCache(third.repo, declarationsKey({ ...stamp, typescript: "6.0.4" }, { "cli/a.ts": "1" }), user, distCommon))!.restore()).toBe(false);
    expect(fs.existsSync(path.join(third.repo, "dist"))).toBe(false);
  });

  it("are not used when a recorded input changed, or from a file not this user's alone, or altered, or to write outside dist/", async () => {
    const user = path.join(tempDir("al-dts-user-"), "private");
    const first = clone();
    (await openDeclarationsCache(first.repo, key, user, distCommon))!.store(first.inputs, first.outputs);
    const entry = path.join(user, `declarations-${key}.bin`);
    const restoreIn = async (): Promise<{ restored: boolean; repo: string }> => {
      const next = clone();
      return { restored: (await openDeclarationsCache(next.repo, key, user, distCommon))!.restore(), repo: next.repo };
    };
    // Another installed package declaration.
    const changed = clone();
    fs.appendFileSync(path.join(changed.repo, "node_modules/@types/x/index.d.ts"), "declare const y: 2;\n");
    expect((await openDeclarationsCache(changed.repo, key, user, distCommon))!.restore()).toBe(false);
    expect(fs.existsSync(path.join(changed.repo, "dist"))).toBe(false);
    for (const mode of [0o620, 0o602]) {
      fs.chmodSync(entry, mode);
      expect((await restoreIn()).restored, mode.toString(8)).toBe(false);
    }
    fs.chmodSync(entry, 0o600);
    expect((await restoreIn()).restored).toBe(true);
    if (process.getuid?.() === 0) {
      fs.chownSync(entry, 4321, 4321);
      expect((await restoreIn()).restored).toBe(false);
      fs.chownSync(entry, 0, 0);
    }
    const bytes = fs.readFileSync(entry);
    fs.writeFileSync(entry, Buffer.concat([bytes.subarray(0, bytes.length - 1), Buffer.from([bytes.readUInt8(bytes.length - 1) ^ 1])]), { mode: 0o600 });
    expect((await restoreIn()).restored).toBe(false);
    // An entry naming a file outside dist/ (only the user could have written it): nothing written.
    for (const output of ["cli/a.d.ts", "dist/../outside.d.ts", "dist/cli/a.js"]) {
      const writer = clone();
      (await openDeclarationsCache(writer.repo, key, user, distCommon))!.store(writer.inputs, [["dist/cli/b.d.ts", "ok\n"], [output, "evil\n"]]);
      const { restored, repo } = await restoreIn();
      expect(restored, output).toBe(false);
      expect(fs.existsSync(path.join(repo, "dist")), output).toBe(false);
      expect(fs.existsSync(path.join(repo, output)), output).toBe(false);
    }
  });
});

/**
 * Every compile ends (AL7012, `packaging/read-targets.ts`; helper-133): a link committed in the
 * agent's own folders to a device (`/dev/zero`), or a named pipe, imported as a module, was read by
 * esbuild forever (memory climbed to gigabytes). The file esbuild would read — the name as
 * written, its extension probes, TypeScript's `./x.js` for `x.ts`, in any letter case; a folder's
 * index; a package's file; a `package.json` on the way — must be a regular file, and
 * is checked before esbuild reads it. Imports of regular files keep working.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as esbuild from "esbuild";
import { describe, expect, test } from "vitest";
import { bundleTools } from "../../packaging/index.js";
import { tempDir, writeFiles } from "../helpers/temp-tree.js";
import { tool } from "./helpers.js";

const defineTool = (body: string): string => `import { defineTool } from "@assemblyline-agents/core";\n${body}\nexport default defineTool({ async execute() { return {}; } });\n`;

/**
 * Packages the tool `name` (`plugins/evil/ai.assemblyline/<name>.ts`); a packaging that has not
 * ended after 10 s fails the test, and the esbuild service (still reading) is stopped.
 */
async function packageTool(root: string, name: string): Promise<Awaited<ReturnType<typeof bundleTools>>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"hung">((resolve) => (timer = setTimeout(() => resolve("hung"), 10_000)));
  const result = await Promise.race([bundleTools({ root, tools: [tool(root, "evil", name, `ai.assemblyline/${name}.ts`)] }), timeout]);
  clearTimeout(timer);
  if (result === "hung") {
    await esbuild.stop();
    throw new Error(`packaging ${name} never ended`);
  }
  return result;
}

/** An agent whose `plugins/evil/ai.assemblyline/` holds `definitions` (name → body) and whose `shared/` holds a link to `/dev/zero` and named pipes. */
function hostileAgent(definitions: Record<string, string>, files: Record<string, string> = {}): string {
  const root = tempDir();
  writeFiles(root, { ...Object.fromEntries(Object.entries(definitions).map(([name, body]) => [`plugins/evil/ai.assemblyline/${name}.ts`, defineTool(body)])), "shared/fine.ts": "export const fine = 1;\n", ...files });
  fs.symlinkSync("/dev/zero", path.join(root, "shared", "zero.js"));
  execFileSync("mkfifo", [path.join(root, "shared", "pipe.ts"), path.join(root, "shared", "probe.tsx")]);
  return root;
}

describe("a file esbuild would read that is not a regular file is refused before it is read (AL7012)", () => {
  test("a link to /dev/zero as written, in another letter case, and a named pipe behind TypeScript's ./x.js or an extension probe", async () => {
    const definitions: Record<string, string> = {
      zero: '// @ts-ignore\nimport zero from "../../../shared/zero.js";\nconsole.log(zero);',
      upper: '// @ts-ignore\nimport zero from "../../../shared/ZERO.js";\nconsole.log(zero);',
      rewritten: '// @ts-ignore\nimport pipe from "../../../shared/pipe.js";\nconsole.log(pipe);',
      probed: '// @ts-ignore\nimport probe from "../../../shared/probe";\nconsole.log(probe);',
    };
    const root = hostileAgent(definitions);
    for (const name of Object.keys(definitions)) {
      const result = await packageTool(root, name);
      expect(result.bundles.size, name).toBe(0);
      expect(result.diagnostics, name).toEqual([expect.objectContaining({ code: "AL7012", severity: "error", file: path.join(root, "plugins/evil/ai.assemblyline", `${name}.ts`), line: 3 })]);
    }
    const zero = await packageTool(root, "zero");
    expect(zero.diagnostics[0]!.message).toBe("The import '../../../shared/zero.js' would make esbuild read shared/zero.js (a link to /dev/zero), which is a character device, not a regular file: the read would never end");
    expect((await packageTool(root, "rewritten")).diagnostics[0]!.message).toContain("would make esbuild read shared/pipe.ts, which is a named pipe (FIFO)");
  }, 60_000);

  test("a folder's index, a package's file, a package.json on the way of an import or above a definition", async () => {
    const root = hostileAgent(
      {
        folder: '// @ts-ignore\nimport x from "../../../shared/dir";\nconsole.log(x);',
        pkg: '// @ts-ignore\nimport x from "pipepkg";\nconsole.log(x);',
        manifest: '// @ts-ignore\nimport { fine } from "../../../shared/pkg/fine.js";\nconsole.log(fine);',
      },
      { "node_modules/pipepkg/package.json": JSON.stringify({ name: "pipepkg", version: "1.0.0", main: "index.js" }), "shared/pkg/fine.ts": "export const fine = 2;\n" },
    );
    fs.mkdirSync(path.join(root, "shared", "dir"));
    execFileSync("mkfifo", [path.join(root, "shared", "dir", "index.ts"), path.join(root, "node_modules", "pipepkg", "index.js")]);
    fs.symlinkSync("/dev/zero", path.join(root, "shared", "pkg", "package.json"));
    for (const name of ["folder", "pkg", "manifest"]) {
      const result = await packageTool(root, name);
      expect(result.bundles.size, name).toBe(0);
      expect(result.diagnostics.map((d) => [d.code, path.basename(d.file)]), name).toEqual([["AL7012", `${name}.ts`]]);
    }
    expect((await packageTool(root, "manifest")).diagnostics[0]!.message).toContain("read shared/pkg/package.json (a link to /dev/zero)");
    // A package.json above a definition (esbuild reads it for the entry point), here a named pipe in the plugin.
    execFileSync("mkfifo", [path.join(root, "plugins", "evil", "package.json")]);
    const above = await packageTool(root, "folder");
    expect(above.diagnostics.map((d) => [d.code, d.file, d.message])).toEqual([["AL7012", path.join(root, "plugins/evil/ai.assemblyline/folder.ts"), expect.stringContaining("read plugins/evil/package.json, which is a named pipe (FIFO)")]]);
  }, 60_000);

  test("regular files keep bundling: ./x.js for x.ts, an extension probe, a folder's index, a link to a regular file, a package", async () => {
    const root = hostileAgent(
      { fine: 'import { fine } from "../../../shared/fine.js";\nimport { other } from "../../../shared/other";\nimport { index } from "../../../shared/lib";\nimport { linked } from "../../../shared/linked.js";\nimport { pad } from "padder";\nconsole.log(fine, other, index, linked, pad);' },
      {
        "shared/other.ts": "export const other = 'OTHER';\n",
        "shared/lib/index.ts": "export const index = 'INDEX';\n",
        "vendor/linked.js": "export const linked = 'LINKED';\n",
        "node_modules/padder/package.json": JSON.stringify({ name: "padder", version: "1.0.0", type: "module", main: "index.js" }),
        "node_modules/padder/index.js": "export const pad = 'PAD';\n",
      },
    );
    fs.symlinkSync(path.join(root, "vendor", "linked.js"), path.join(root, "shared", "linked.js"));
    const result = await packageTool(root, "fine");
    expect(result.diagnostics).toEqual([]);
    const text = Buffer.from([...result.bundles.values()][0] as Uint8Array).toString("utf8");
    for (const marker of ["fine = 1", "OTHER", "INDEX", "LINKED", "PAD"]) expect(text).toContain(marker);
  }, 60_000);
});

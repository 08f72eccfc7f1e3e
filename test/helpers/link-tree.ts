/**
 * A small agent tree full of symbolic links, for tests that compare a derived file-system answer
 * with the operating system's own (`derivedRealpath`'s real paths, the snapshot host's kinds from
 * folder listings): links to a file, to a folder, through a linked folder, a chain, a broken
 * link, a loop, a link out of the tree and an alias of a plugin folder; optionally a FIFO.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * Builds the tree as `<base>/agent` (and `<base>/outside`, which a link leaves the tree for).
 * @returns the agent root.
 */
export function buildLinkTree(base: string, options: { readonly fifo?: boolean } = {}): string {
  const root = path.join(base, "agent");
  fs.mkdirSync(path.join(root, "plugins/p/ai.assemblyline"), { recursive: true });
  fs.mkdirSync(path.join(root, "shared/deep"), { recursive: true });
  fs.mkdirSync(path.join(base, "outside"), { recursive: true });
  fs.writeFileSync(path.join(root, "plugins/p/ai.assemblyline/index.ts"), "export default {};");
  fs.writeFileSync(path.join(root, "shared/deep/tool.ts"), "export default 1;");
  fs.writeFileSync(path.join(base, "outside/secret.ts"), "x");
  const link = (target: string, at: string) => fs.symlinkSync(target, path.join(root, at));
  link("../../shared/deep/tool.ts", "plugins/p/linked-file.ts");
  link("../../shared", "plugins/p/linked-dir");
  link("linked-file.ts", "plugins/p/chain.ts");
  link("nowhere.ts", "plugins/p/broken.ts");
  link("loop-b", "plugins/p/loop-a");
  link("loop-a", "plugins/p/loop-b");
  link(path.join(base, "outside"), "plugins/p/out");
  link("plugins/p", "p-alias");
  if (options.fifo && process.platform !== "win32") execFileSync("mkfifo", [path.join(root, "plugins/p/pipe")]);
  return root;
}

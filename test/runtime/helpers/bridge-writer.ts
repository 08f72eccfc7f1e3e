/**
 * Test helper process (issue 14 item 2, "a crash between envelope write and rename"): publishes
 * large file envelopes on an {@link EnvelopeBridge} and dies by SIGKILL in the middle of its
 * `killAt`-th publish — `mid-write` (half the envelope written to its temporary file) or
 * `before-rename` (the whole envelope written, not yet renamed). Doorbells go to stdout with
 * synchronous writes, so the parent sees exactly the ones rung before the kill.
 *
 *     node --import ./ts-loader.mjs bridge-writer.ts <bridgeDir> <mid-write|before-rename> <killAt>
 */
import * as fs from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { EnvelopeBridge } from "../../../runtime-min/sandbox/bridge.js";

const [dir, mode, killAtText] = process.argv.slice(2) as [string, "mid-write" | "before-rename", string];
const killAt = Number(killAtText);
const mutableFs = createRequire(import.meta.url)("node:fs") as typeof fs;
const { writeSync, renameSync } = mutableFs;
let publishing = 0;
const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};
// The bridge's own `fs` calls go through these (ESM namespaces of built-ins follow the CommonJS exports after syncBuiltinESMExports).
mutableFs.writeSync = ((fd: number, data: string | Uint8Array, ...rest: unknown[]) => {
  if (fd > 2 && publishing === killAt && mode === "mid-write" && typeof data === "string") {
    (writeSync as (fd: number, text: string) => number)(fd, data.slice(0, Math.floor(data.length / 2)));
    die();
  }
  return (writeSync as (...args: unknown[]) => number)(fd, data, ...rest);
}) as typeof fs.writeSync;
mutableFs.renameSync = ((from: fs.PathLike, to: fs.PathLike) => {
  if (publishing === killAt && mode === "before-rename") die();
  renameSync(from, to);
}) as typeof fs.renameSync;
syncBuiltinESMExports();

const bridge = new EnvelopeBridge(dir, "c", (line) => writeSync(1, line), { inlineMaxBytes: 64 * 1024 });
for (publishing = 1; publishing <= killAt + 1; publishing++) {
  // 2 MB of JSON: far over the inline limit, so each is a file envelope.
  bridge.publish({ kind: "result", id: publishing, ok: true, output: { text: String(publishing % 10).repeat(2 * 1024 * 1024) } });
}

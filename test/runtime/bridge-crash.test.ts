/**
 * Issue 14 item 2 ("No contract test weakened"): the file-backed bridge's partial-frame guarantee
 * under a crash. A writer killed mid-write or between writing an envelope and renaming it leaves
 * only a temporary file that no doorbell names and no reader opens: every envelope a doorbell
 * announced, and every file under a final envelope name, is complete JSON.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvelopeBridge, FrameReader } from "../../runtime-min/sandbox/bridge.js";
import { tempDir } from "../helpers/temp-tree.js";

const loader = path.join(import.meta.dirname, "helpers", "ts-loader.mjs");
const writer = path.join(import.meta.dirname, "helpers", "bridge-writer.ts");

describe("a bridge writer that crashes while publishing", () => {
  for (const mode of ["mid-write", "before-rename"] as const) {
    it(`killed ${mode === "mid-write" ? "halfway through writing an envelope" : "between writing an envelope and renaming it"}: no reader observes a partial envelope`, () => {
      const dir = tempDir("al-bridge-crash-");
      const killAt = 3;
      const run = spawnSync(process.execPath, ["--import", loader, writer, dir, mode, String(killAt)], { encoding: "buffer", timeout: 60_000 });
      expect(run.signal).toBe("SIGKILL");
      // The doorbells rung before the crash: one per completed publish, none for the killed one.
      const frames = new FrameReader().push(run.stdout);
      expect(frames.map((frame) => (frame.kind === "file" ? frame.line.split(" ")[0] : "inline"))).toEqual(["c-1.json", "c-2.json"]);
      const reader = new EnvelopeBridge(dir, "h", () => undefined);
      for (const [index, frame] of frames.entries()) {
        const message = reader.take((frame as { line: string }).line) as { id: number; output: { text: string } };
        expect(message.id).toBe(index + 1);
        expect(message.output.text).toBe(String(index + 1).repeat(2 * 1024 * 1024));
      }
      // The killed publish left its temporary file (half or whole), never its final name.
      const names = fs.readdirSync(dir).sort();
      expect(names).toContain(`.c-${killAt}.json.tmp`);
      expect(names).not.toContain(`c-${killAt}.json`);
      const temporary = fs.readFileSync(path.join(dir, `.c-${killAt}.json.tmp`), "utf8");
      if (mode === "mid-write") expect(() => JSON.parse(temporary)).toThrow();
      else expect((JSON.parse(temporary) as { id: number }).id).toBe(killAt);
      // Whatever a reader finds under a final envelope name is complete.
      for (const name of names.filter((entry) => /^c-\d+\.json$/.test(entry))) {
        expect(() => JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"))).not.toThrow();
      }
      // And a doorbell naming the temporary file is refused.
      expect(() => reader.take(`.c-${killAt}.json.tmp 10`)).toThrow(/is not an envelope of the other side/);
      reader.close();
    });
  }
});

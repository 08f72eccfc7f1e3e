/**
 * A run folder the call journal makes itself (helper-122's review: `JournalWriter.open` made
 * `runs/<run>` with the process's default mode, where the runtime's own workspace code makes it
 * the host user's only) is private, as is a `runs/` it makes on the way: the journal holds the
 * calls' inputs and results.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, expect, it } from "vitest";
import { JournalWriter } from "../../runtime-min/state/run-journal.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

it("makes runs/ and runs/<run> with mode 0700 and the journal with 0600, whatever the umask leaves", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "al-journal-mode-"));
  made.push(root);
  const runDir = path.join(root, "runs", "run-private");
  const writer = JournalWriter.open(runDir, 1, 0);
  try {
    expect(fs.statSync(path.join(root, "runs")).mode & 0o777).toBe(0o700);
    expect(fs.statSync(runDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.join(runDir, writer.name)).mode & 0o777).toBe(0o600);
  } finally {
    writer.close(true);
  }
});

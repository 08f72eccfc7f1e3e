/** `compile --watch`'s pretty "Changed:" line names at most MAX_CHANGED_SHOWN files (an `rm -rf` of a plugin filled the terminal with one line of hundreds). */
import { describe, expect, it } from "vitest";
import { changedLine, MAX_CHANGED_SHOWN } from "../../cli/watch/watch-compile.js";

describe("changedLine", () => {
  it("names every file up to the limit, then the first ones and how many more", () => {
    expect(changedLine(["agent.md"])).toBe("Changed: agent.md\n");
    const ten = Array.from({ length: MAX_CHANGED_SHOWN }, (_, i) => `f${i}.txt`);
    expect(changedLine(ten)).toBe(`Changed: ${ten.join(", ")}\n`);
    expect(changedLine([...ten, "g.txt"])).toBe(`Changed: ${ten.join(", ")} and 1 more file\n`);
    const many = Array.from({ length: 400 }, (_, i) => `plugins/example/data/f${i}.txt`);
    const line = changedLine(many);
    expect(line).toBe(`Changed: ${many.slice(0, MAX_CHANGED_SHOWN).join(", ")} and 390 more files\n`);
  });
});

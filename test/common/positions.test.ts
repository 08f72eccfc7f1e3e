/**
 * Line maps (common/positions.ts): every line end TypeScript and editors count (`\r\n`, `\n`,
 * `\r`, U+2028, U+2029), through both of `createLineMap`'s scans (the `indexOf` one for texts
 * whose lines all end in `\n`, and the walk for any other; issue 14 item 1).
 */
import { describe, expect, it } from "vitest";
import { createLineMap, lineColumnOf } from "../../common/positions.js";
import { loadTypeScript, ts } from "../../compiler/static-analysis/typescript.js";

describe("createLineMap", () => {
  it("starts a line after each line end, as TypeScript's scanner does", () => {
    const texts = [
      "",
      "one line",
      "a\nb\n",
      "\n\n\n",
      "a\r\nb\r\n",
      "a\rb\rc",
      "a\u2028b\u2029c\n",
      "\r\n\r\r\n\n\r",
      "\uFEFFbom\nthen\n",
      "export default {\n  a: 1,\n};\n",
    ];
    loadTypeScript();
    for (const text of texts) {
      expect(createLineMap("/f.ts", text).lineStarts).toEqual(ts.createSourceFile("/f.ts", text, ts.ScriptTarget.ESNext).getLineStarts());
    }
  });

  it("gives the same lines and columns whether a text ends its lines with \\n or mixes in \\r", () => {
    const lf = "first\nsecond line\n\nfourth";
    const mixed = "first\nsecond line\r\n\nfourth";
    const lfMap = createLineMap("/f.ts", lf);
    const mixedMap = createLineMap("/f.ts", mixed);
    expect(lineColumnOf(lfMap, lf.indexOf("fourth"))).toEqual({ line: 4, column: 1 });
    expect(lineColumnOf(mixedMap, mixed.indexOf("fourth"))).toEqual({ line: 4, column: 1 });
    expect(lineColumnOf(lfMap, lf.indexOf("line"))).toEqual({ line: 2, column: 8 });
  });
});

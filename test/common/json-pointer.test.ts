/**
 * JSON Pointer segments (RFC 6901 §3/§4): `~` is written `~0` and `/` is written `~1`, and
 * unescaping undoes it. `escapePointerSegment` returns segments with nothing to escape as they
 * are (a fast path, issue 14 item 1); these cases pin both paths to the RFC's rules.
 */
import { describe, expect, it } from "vitest";
import { childPointer, escapePointerSegment, pointerToSegments, segmentsToPointer, unescapePointerSegment } from "../../common/json-pointer.js";

describe("escapePointerSegment", () => {
  it("escapes ~ as ~0 and / as ~1, in that order, and leaves everything else", () => {
    expect(escapePointerSegment("")).toBe("");
    expect(escapePointerSegment("inputSchema")).toBe("inputSchema");
    expect(escapePointerSegment("a b.c[0]\\\"é")).toBe("a b.c[0]\\\"é");
    expect(escapePointerSegment("a/b")).toBe("a~1b");
    expect(escapePointerSegment("m~n")).toBe("m~0n");
    expect(escapePointerSegment("~1")).toBe("~01");
    expect(escapePointerSegment("/~/")).toBe("~1~0~1");
    expect(escapePointerSegment("~~")).toBe("~0~0");
  });

  it("round-trips through unescapePointerSegment and the pointer helpers", () => {
    for (const segment of ["", "plain", "a/b", "m~n", "~1", "~0/", "//~~", "x~1y/z"]) {
      expect(unescapePointerSegment(escapePointerSegment(segment))).toBe(segment);
      expect(pointerToSegments(childPointer("/tools", segment))).toEqual(["tools", segment]);
      expect(pointerToSegments(segmentsToPointer(["a", segment]))).toEqual(["a", segment]);
    }
  });
});

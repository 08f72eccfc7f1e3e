/**
 * The overlay host (common/host.ts) as the language server uses it: unsaved buffers win over
 * the disk for text, kind and bytes (the lock reader and the content hash read bytes), and a
 * buffer equal to the disk apart from a byte order mark keeps the disk's exact bytes.
 */
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { createNodeHost, createOverlayHost, type OverlayFile } from "../../common/host.js";
import { writeTree } from "../helpers/temp-tree.js";

describe("createOverlayHost", () => {
  it("reads text, kind and bytes of an overlaid file from the buffer, and follows later map updates", () => {
    const root = writeTree({ "a.txt": "disk\n" });
    const overlays = new Map<string, OverlayFile>();
    const host = createOverlayHost(createNodeHost(), overlays);
    const file = path.join(root, "a.txt");
    const fresh = path.join(root, "new.txt");
    expect(host.read(file)).toMatchObject({ kind: "file", text: "disk\n" });
    expect(host.kind(fresh)).toBe("missing");

    overlays.set(file, { text: "buffer ✓\n", version: "2" });
    overlays.set(fresh, { text: "unsaved\n", version: "1" });
    expect(host.read(file)).toEqual({ kind: "file", text: "buffer ✓\n", version: "overlay:2", invalidUtf8: false });
    expect(Buffer.from(host.readBytes(file)!).toString("utf8")).toBe("buffer ✓\n");
    expect(host.kind(fresh)).toBe("file");
    expect(Buffer.from(host.readBytes(fresh)!).toString("utf8")).toBe("unsaved\n");

    overlays.delete(file);
    expect(Buffer.from(host.readBytes(file)!).toString("utf8")).toBe("disk\n");
  });

  it("keeps the disk's bytes (byte order mark included) for a buffer that differs only by the BOM", () => {
    const root = writeTree({ "bom.json": new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('{ "a": 1 }\n')]) });
    const file = path.join(root, "bom.json");
    const host = createOverlayHost(createNodeHost(), new Map([[file, { text: '{ "a": 1 }\n', version: "1" }]]));
    expect([...host.readBytes(file)!.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const edited = createOverlayHost(createNodeHost(), new Map([[file, { text: '{ "a": 2 }\n', version: "2" }]]));
    expect(Buffer.from(edited.readBytes(file)!).toString("utf8")).toBe('{ "a": 2 }\n');
  });
});

/**
 * Locates a property path inside a JSON file's text (for diagnostics about plugins.lock and
 * manifest.json that point at the exact line, as DESIGN §7 asks of every diagnostic).
 */
import { findNodeAtLocation, parseTree, type Node } from "jsonc-parser";
import { createLineMap, locationOf } from "../../common/positions.js";
import type { SourceLocation } from "../../diagnostics/diagnostic.js";

/** Finds locations in one JSON text. */
export class JsonLocator {
  private readonly tree: Node | undefined;
  private readonly lines;

  /** @param file the path reported in locations (root-relative, `/` separators). */
  constructor(file: string, text: string) {
    this.tree = parseTree(text);
    this.lines = createLineMap(file, text);
  }

  /** Location of the value at `segments`, or of its nearest existing parent (line 1 if none). */
  locate(segments: readonly (string | number)[]): SourceLocation {
    if (this.tree) {
      for (let length = segments.length; length >= 0; length--) {
        const node = findNodeAtLocation(this.tree, segments.slice(0, length) as (string | number)[]);
        if (node) {
          const target = node.parent?.type === "property" ? node.parent : node;
          return locationOf(this.lines, target.offset, target.offset + target.length);
        }
      }
    }
    return { file: this.lines.file, line: 1, column: 1 };
  }
}

/**
 * Locates a property path inside a JSON file's text (for diagnostics about plugins.lock and
 * manifest.json that point at the exact line, as DESIGN §7 asks of every diagnostic). The
 * parsing and locating is the shared reader's (common/json-text.ts); the artifact's
 * diagnostics point at the whole member, name and value.
 */
import { JsonPositions } from "../../common/json-text.js";
import type { SourceLocation } from "../../diagnostics/diagnostic.js";

/** Finds locations in one JSON text. */
export class JsonLocator {
  private readonly positions: JsonPositions;

  /** @param file the path reported in locations (root-relative, `/` separators). */
  constructor(file: string, text: string) {
    this.positions = new JsonPositions(file, text);
  }

  /** Location of the member at `segments` (name and value), or of its nearest existing parent (line 1 if none). */
  locate(segments: readonly (string | number)[]): SourceLocation {
    return this.positions.locate(segments, "property");
  }
}

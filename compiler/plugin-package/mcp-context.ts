/**
 * What the per-server checks of `mcp.json` share: the document with locations, the plugin root,
 * and helpers that turn a pointer inside the server into a location and a property path.
 */
import { type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { pointerToSegmentsIn } from "../../common/json-pointer.js";
import { fileStart } from "../../common/positions.js";
import type { CompilerHost } from "../../common/host.js";
import { locateValue, type LocatedValue, type ValueLocation } from "../model.js";
import type { DuplicateKey } from "./json-document.js";

/** One server entry being checked. */
export interface ServerContext {
  readonly host: CompilerHost;
  readonly rootReal: string;
  /** Absolute path of mcp.json (as the author sees it). */
  readonly file: string;
  readonly located: LocatedValue;
  readonly duplicates: readonly DuplicateKey[];
  /** The server's key in `mcpServers`. */
  readonly name: string;
  /** JSON Pointer of the server object (`/mcpServers/<name>`). */
  readonly pointer: string;
}

/** Where the value at `relative` (a pointer inside the server, `""` = the server) is written. */
export function locateInServer(context: ServerContext, relative: string): ValueLocation {
  return locateValue(context.located, `${context.pointer}${relative}`, fileStart(context.file));
}

/** The key of a member if it has one, else its value. */
export function keyOrValue(location: ValueLocation): SourceLocation {
  return location.key ?? location.value;
}

/** Property-path segments from the document root to `relative` inside the server. */
export function pathInServer(context: ServerContext, relative: string): PropertyKey[] {
  return pointerToSegmentsIn(`${context.pointer}${relative}`, context.located.value);
}

/** Segments of `relative` alone (`/env/RETRIES` → `["env", "RETRIES"]`), for messages. */
export function segmentsInServer(context: ServerContext, relative: string): PropertyKey[] {
  return pathInServer(context, relative).slice(pointerToSegmentsIn(context.pointer, context.located.value).length);
}

/** True when any diagnostic is an error (the entry is skipped). */
export function hasError(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

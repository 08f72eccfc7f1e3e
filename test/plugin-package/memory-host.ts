/**
 * An in-memory {@link CompilerHost} for plugin-package tests: a map of absolute POSIX paths to
 * files (text or bytes), directories, symbolic links and unreadable files. Links are resolved
 * the way the operating system does (component by component, `..` applied to the resolved
 * path), so containment can be tested without touching the disk.
 */
import * as path from "node:path";
import { decodeUtf8, type CompilerHost, type DirectoryEntry, type ReadResult } from "../../common/host.js";

/** One entry of the file map. */
export type MemoryEntry = string | Uint8Array | { readonly symlink: string } | { readonly directory: true } | { readonly unreadable: string };

type Node =
  | { readonly kind: "file"; readonly content: string | Uint8Array }
  | { readonly kind: "directory" }
  | { readonly kind: "symlink"; readonly target: string }
  | { readonly kind: "unreadable"; readonly reason: string };

/** Builds a host from `files` (absolute POSIX paths; parent directories are implied). */
export function createMemoryHost(files: Readonly<Record<string, MemoryEntry>>): CompilerHost {
  const nodes = new Map<string, Node>([["/", { kind: "directory" }]]);
  for (const [file, entry] of Object.entries(files)) {
    for (let dir = path.posix.dirname(file); !nodes.has(dir); dir = path.posix.dirname(dir)) nodes.set(dir, { kind: "directory" });
    nodes.set(file, toNode(entry));
  }

  /** The real path of `file`, following a final link only when `followLast`. */
  const resolve = (file: string, followLast: boolean, depth = 0): string | undefined => {
    if (depth > 40) return undefined;
    let current = "/";
    const parts = path.posix.normalize(file).split("/").filter(Boolean);
    for (let i = 0; i < parts.length; i++) {
      const next = path.posix.join(current, parts[i]!);
      const node = nodes.get(next);
      if (!node) return i === parts.length - 1 ? next : undefined;
      if (node.kind === "symlink" && (followLast || i < parts.length - 1)) {
        const resolved = resolve(path.posix.resolve(current, node.target), true, depth + 1);
        if (resolved === undefined || !nodes.has(resolved)) return undefined;
        current = resolved;
      } else {
        current = next;
      }
    }
    return current;
  };
  const nodeAt = (file: string): Node | undefined => {
    const real = resolve(file, true);
    return real === undefined ? undefined : nodes.get(real);
  };

  return {
    read(file): ReadResult {
      const node = nodeAt(file);
      if (!node) return { kind: "missing" };
      if (node.kind === "directory") return { kind: "directory" };
      if (node.kind === "unreadable") return { kind: "unreadable", reason: node.reason };
      if (node.kind !== "file") return { kind: "missing" };
      if (typeof node.content === "string") return { kind: "file", text: node.content, version: "1", invalidUtf8: false };
      return { kind: "file", ...decodeKeepingBom(node.content), version: "1" };
    },
    readBytes(file) {
      const node = nodeAt(file);
      if (node?.kind !== "file") return undefined;
      return typeof node.content === "string" ? new TextEncoder().encode(node.content) : node.content;
    },
    readDirectory(dir) {
      const real = resolve(dir, true);
      if (real === undefined || nodes.get(real)?.kind !== "directory") return undefined;
      const entries: DirectoryEntry[] = [];
      for (const [file, node] of nodes) {
        if (file === real || path.posix.dirname(file) !== real) continue;
        const kind = node.kind === "unreadable" ? "file" : node.kind;
        entries.push({ name: path.posix.basename(file), kind });
      }
      return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    realpath(file) {
      const real = resolve(file, true);
      return real !== undefined && nodes.has(real) ? real : undefined;
    },
    kind(file) {
      const real = resolve(file, false);
      const node = real === undefined ? undefined : nodes.get(real);
      if (!node) return "missing";
      return node.kind === "unreadable" ? "file" : node.kind;
    },
  };
}

function toNode(entry: MemoryEntry): Node {
  if (typeof entry === "string" || entry instanceof Uint8Array) return { kind: "file", content: entry };
  if ("symlink" in entry) return { kind: "symlink", target: entry.symlink };
  if ("unreadable" in entry) return { kind: "unreadable", reason: entry.unreadable };
  return { kind: "directory" };
}

function decodeKeepingBom(bytes: Uint8Array): { text: string; invalidUtf8: boolean } {
  return decodeUtf8(bytes, { keepBom: true });
}

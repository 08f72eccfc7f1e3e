/**
 * The first step of a compile: the root must be a folder (DESIGN §7: a mistyped path creates
 * no cache, lock or artifact).
 */
import * as path from "node:path";
import type { AgentAnalysis } from "../compiler/analyze-agent.js";
import type { CompilerHost } from "../common/host.js";
import { fileStart } from "../common/positions.js";
import { Diagnostics } from "../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../diagnostics/diagnostic.js";

/** A diagnostic when `root` is missing or not a folder (the user passed a file, e.g. agent.md). */
export function checkRoot(host: CompilerHost, root: string, shown: string): Diagnostic | undefined {
  const kind = host.kind(root);
  if (kind === "directory") return undefined;
  if (kind === "symlink" && host.realpath(root) !== undefined && host.kind(host.realpath(root)!) === "directory") return undefined;
  // No file of the agent is at fault, so the diagnostic has no location (file "").
  if (kind === "missing") return createDiagnostic(Diagnostics.AgentRootMissing, fileStart(""), [shown]);
  return createDiagnostic(Diagnostics.AgentRootNotDirectory, fileStart(""), [shown], { hint: `Pass the folder that holds agent.md: ${path.dirname(shown)}` });
}

/** The analysis of an agent that could not be loaded at all. */
export function emptyAnalysis(root: string, problem: Diagnostic): AgentAnalysis {
  return { root, agent: { root, surfaces: [], diagnostics: [problem] }, capabilities: [], diagnostics: [problem] };
}

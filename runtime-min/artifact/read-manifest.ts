/**
 * Reads `manifest.json` and checks its shape against `./manifest.ts` (DESIGN §6). Problems
 * become AL8002/AL8003 diagnostics that name the property path and line; nothing is guessed.
 */
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import { createDiagnostic } from "../../diagnostics/diagnostic.js";
import { formatPropertyPath } from "../../common/property-path.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { JsonLocator } from "./json-locator.js";
import type { ArtifactManifest } from "../../contract/manifest.js";

/** Result of {@link readManifest}: the manifest when it is well-formed, and the problems found. */
export interface ManifestReading {
  readonly manifest: ArtifactManifest | undefined;
  readonly locator: JsonLocator;
  readonly diagnostics: readonly Diagnostic[];
}

type Path = (string | number)[];

/**
 * Parses and shape-checks manifest text.
 * @param file the manifest's root-relative path (for diagnostics).
 */
export function readManifest(file: string, text: string): ManifestReading {
  const locator = new JsonLocator(file, text);
  const problems: Diagnostic[] = [];
  const report = (path: Path, reason: string): void => {
    const where = path.length > 0 ? `${formatPropertyPath(path)} ${reason}` : reason;
    problems.push(createDiagnostic(Diagnostics.ArtifactManifestInvalid, locator.locate(path), [where], { path }));
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    report([], `it is not JSON (${(error as Error).message})`);
    return { manifest: undefined, locator, diagnostics: problems };
  }
  if (!isObject(value)) {
    report([], "it must be a JSON object");
    return { manifest: undefined, locator, diagnostics: problems };
  }
  if (value.manifestVersion !== 1) {
    problems.push(createDiagnostic(Diagnostics.ArtifactVersionUnsupported, locator.locate(["manifestVersion"]), [JSON.stringify(value.manifestVersion) ?? "undefined"], { path: ["manifestVersion"] }));
    return { manifest: undefined, locator, diagnostics: problems };
  }
  if (typeof value.lockIntegrity !== "string" || value.lockIntegrity === "") report(["lockIntegrity"], "must be an SRI string");
  if (!isObject(value.surfaces)) report(["surfaces"], "must be an object keyed by surface id");
  else for (const [surfaceId, surface] of Object.entries(value.surfaces)) checkSurface(surface, ["surfaces", surfaceId], report);
  return { manifest: problems.length === 0 ? (value as unknown as ArtifactManifest) : undefined, locator, diagnostics: problems };
}

function checkSurface(surface: unknown, at: Path, report: (path: Path, reason: string) => void): void {
  if (!isObject(surface)) return report(at, "must be an object");
  if (surface.parent !== null && typeof surface.parent !== "string") report([...at, "parent"], "must be a surface id or null");
  if (!isStringArray(surface.disabledCoreTools)) report([...at, "disabledCoreTools"], "must be an array of strings");
  if (!Array.isArray(surface.skills)) report([...at, "skills"], "must be an array");
  else {
    surface.skills.forEach((skill: unknown, index: number) => {
      if (isObject(skill) && skill.integrity !== undefined && (typeof skill.integrity !== "string" || !skill.integrity.startsWith("sha512-"))) {
        report([...at, "skills", index, "integrity"], "must be an SRI sha512 string");
      }
    });
  }
  if (!isObject(surface.tools)) return report([...at, "tools"], "must be an object keyed by tool name");
  for (const [name, tool] of Object.entries(surface.tools)) checkTool(tool, [...at, "tools", name], report);
}

function checkTool(tool: unknown, at: Path, report: (path: Path, reason: string) => void): void {
  if (!isObject(tool)) return report(at, "must be an object");
  for (const key of ["capability", "description", "bundle", "integrity"] as const) {
    if (typeof tool[key] !== "string" || tool[key] === "") report([...at, key], "must be a non-empty string");
  }
  if (!isObject(tool.inputSchema)) report([...at, "inputSchema"], "must be a JSON Schema object");
  if (!isObject(tool.config)) report([...at, "config"], "must be an object");
  if (tool.visibility !== "visible" && tool.visibility !== "deferred" && tool.visibility !== "hidden") report([...at, "visibility"], 'must be "visible", "deferred" or "hidden"');
  for (const key of ["requiredConfig", "tags", "aliases"] as const) {
    if (!isStringArray(tool[key])) report([...at, key], "must be an array of strings");
  }
  if (tool.factory !== undefined && (typeof tool.factory !== "string" || tool.factory === "")) report([...at, "factory"], "must be an export name");
  if (tool.namespace !== undefined && typeof tool.namespace !== "string") report([...at, "namespace"], "must be a string");
  if (tool.needsApproval !== undefined) {
    const approval = tool.needsApproval;
    if (!isObject(approval) || typeof approval.reason !== "string" || typeof approval.sideEffect !== "string") {
      report([...at, "needsApproval"], "must be { reason, sideEffect } with string values");
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

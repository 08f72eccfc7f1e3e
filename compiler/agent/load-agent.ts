/**
 * Stage 1 of the pipeline: load an agent root into its surfaces (DESIGN §2).
 *
 * The root is surface `"."`; every `subagents/<name>/` folder is a child surface with its own
 * `agent.md` (recursively). Each surface's front matter gives its name and its
 * `capabilities:` requests; its `skills/` folder gives its own skills. Resolution of those
 * requests to plugin packages is `resolveCapabilities` (next module); this stage only reads
 * what the surface's own files say.
 */
import * as path from "node:path";
import { createDiagnostic, type Diagnostic, type SourceLocation } from "../../diagnostics/diagnostic.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { fileStart, folderStart } from "../../common/positions.js";
import { invalidUtf8Location } from "../../common/invalid-utf8.js";
import { brokenLinkHint, brokenLinkReason } from "../../common/broken-link.js";
import type { CompilerHost } from "../../common/host.js";
import { isJsonObject, type JsonObject } from "../../common/json-value.js";
import type { AgentModel, CapabilityRequest, LocatedValue, Surface } from "../model.js";
import { findLocation } from "../location-table.js";
import { describeKind } from "../../diagnostics/json-kinds.js";
import { parseFrontMatter, type FrontMatterStore } from "./front-matter.js";
import { didYouMean } from "../../common/did-you-mean.js";
import { escapePointerSegment } from "../../common/json-pointer.js";
import { discoverSurfaceSkills } from "./surface-skills.js";
import { pluginNameProblems } from "../plugin-package/plugin-name.js";

/**
 * The hint of a `capabilities:` that is not a mapping: each capability is a key with its entry
 * (`hello: {}`), also where a list names them (`- hello`, helper-69), which is spelt out with
 * the list's own names.
 */
function capabilitiesHint(capabilities: unknown): string {
  const names = Array.isArray(capabilities) ? capabilities.filter((item): item is string => typeof item === "string").slice(0, 3) : [];
  if (names.length === 0) return "Write each capability as a key with its entry, one per line under capabilities:, e.g. hello: {}.";
  return `Write each capability as a key with its entry, one per line under capabilities: (${names.map((name) => `${name}: {}`).join(", ")}), not as a list item.`;
}

/** Fields a capability entry may have (DESIGN §2). */
export const CAPABILITY_FIELDS = ["package", "config"] as const;

/**
 * Loads the agent at `root` (absolute): the root surface and every nested subagent surface.
 *
 * @param frontMatters where each `agent.md`'s parsed front matter is kept between compiles
 *   (the compile's analysis cache); without it, every front matter is parsed.
 * @returns surfaces root first, then children in code-unit order of their ids, each with its
 *   own skills (`skills/<name>/SKILL.md`, see `discoverSurfaceSkills`), plus every diagnostic
 *   found (missing or broken `agent.md`, bad capability entries, an ignored `tools/` folder,
 *   skipped skills). Never throws.
 */
export function loadAgent(host: CompilerHost, root: string, frontMatters?: FrontMatterStore): AgentModel {
  const surfaces: Surface[] = [];
  const diagnostics: Diagnostic[] = [];
  const visit = (id: string, dir: string, parent: string | null): void => {
    const surface = loadSurface(host, root, id, dir, parent, diagnostics, frontMatters);
    if (surface) surfaces.push(surface);
    for (const child of listSubagents(host, dir, diagnostics)) {
      visit(id === "." ? `subagents/${child}` : `${id}/subagents/${child}`, path.join(dir, "subagents", child), id);
    }
  };
  visit(".", root, null);
  surfaces.sort((a, b) => (a.id === "." ? -1 : b.id === "." ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { root, surfaces, diagnostics };
}

function loadSurface(host: CompilerHost, root: string, id: string, dir: string, parent: string | null, diagnostics: Diagnostic[], frontMatters: FrontMatterStore | undefined): Surface | undefined {
  const agentFile = path.join(dir, "agent.md");
  const read = host.read(agentFile);
  if (read.kind !== "file") {
    // A link that leads to no file reads as missing, but the name is taken (`init` refuses it).
    const broken = read.kind === "missing" ? brokenLinkReason(host, agentFile) : undefined;
    if (broken !== undefined) diagnostics.push(createDiagnostic(Diagnostics.AgentFileUnreadable, fileStart(agentFile), [broken], { hint: brokenLinkHint("agent.md") }));
    // No file to point at: the root's is about the run as a whole (`file: ""`, docs/cli.md; helper-78
    // D8.4 had `agent.md:1:1` for a file that does not exist), a subagent's is about its folder.
    else if (read.kind === "missing") diagnostics.push(createDiagnostic(Diagnostics.AgentFileMissing, id === "." ? fileStart("") : folderStart(dir), [id === "." ? dir : id]));
    else diagnostics.push(createDiagnostic(Diagnostics.AgentFileUnreadable, fileStart(agentFile), [read.kind === "directory" ? "it is a directory" : read.reason]));
    return undefined;
  }
  if (read.invalidUtf8) diagnostics.push(createDiagnostic(Diagnostics.AgentFileNotUtf8, invalidUtf8Location(agentFile, read.text, read.bytes) ?? fileStart(agentFile)));
  if (host.kind(path.join(dir, "tools")) === "directory") {
    diagnostics.push(createDiagnostic(Diagnostics.ToolsFolderIgnored, folderStart(path.join(dir, "tools"))));
  }

  const parse = (): ReturnType<typeof parseFrontMatter> => parseFrontMatter(agentFile, read.text);
  const frontMatter = frontMatters ? frontMatters.frontMatter(agentFile, read.text, parse) : parse();
  diagnostics.push(...frontMatter.diagnostics);
  const located: LocatedValue<JsonObject> = frontMatter.located ?? { value: {}, locations: new Map() };
  const at = (pointer: string, key = false): SourceLocation => {
    const found = findLocation(located.locations, pointer);
    return (key ? found?.key : undefined) ?? found?.value ?? fileStart(agentFile);
  };

  reportMisspelledFields(located, at, diagnostics);
  const name = located.value["name"];
  if (name !== undefined && typeof name !== "string") {
    diagnostics.push(createDiagnostic(Diagnostics.AgentFieldType, at("/name"), ["name", "a string", describeKind(name, "yaml")], { path: ["name"] }));
  }
  const skills = discoverSurfaceSkills(host, root, dir);
  diagnostics.push(...skills.diagnostics);
  return {
    id,
    dir,
    agentFile,
    parent,
    name: typeof name === "string" ? name : undefined,
    frontMatter: located,
    capabilities: readCapabilities(located, at, diagnostics),
    skills: skills.skills,
  };
}

/** Top-level front matter fields this toolchain reads or documents (DESIGN §2). */
export const KNOWN_FRONT_MATTER_FIELDS: readonly string[] = ["name", "description", "capabilities"];

/**
 * AL1027 for each top-level field that is not known but within a small edit distance of a
 * known one (`capabilites`, `Capabilities`, `nmae`): such a field is never read, and a
 * misspelled `capabilities:` would drop every plugin of the surface. Fields far from every
 * known name are left alone (the host may read them).
 */
function reportMisspelledFields(located: LocatedValue<JsonObject>, at: (pointer: string, key?: boolean) => SourceLocation, diagnostics: Diagnostic[]): void {
  for (const field of Object.keys(located.value)) {
    if (KNOWN_FRONT_MATTER_FIELDS.includes(field)) continue;
    const suggestion = didYouMean(field, KNOWN_FRONT_MATTER_FIELDS);
    if (suggestion === undefined) continue;
    diagnostics.push(createDiagnostic(Diagnostics.AgentFieldMisspelled, at(`/${escapePointerSegment(field)}`, true), [field, suggestion], { path: [field] }));
  }
}

function readCapabilities(
  located: LocatedValue<JsonObject>,
  at: (pointer: string, key?: boolean) => SourceLocation,
  diagnostics: Diagnostic[],
): CapabilityRequest[] {
  const capabilities = located.value["capabilities"];
  if (capabilities === undefined || capabilities === null) return [];
  if (!isJsonObject(capabilities)) {
    diagnostics.push(
      createDiagnostic(Diagnostics.AgentFieldType, at("/capabilities"), ["capabilities", "a mapping of capability keys", describeKind(capabilities, "yaml")], {
        path: ["capabilities"],
        hint: capabilitiesHint(capabilities),
      }),
    );
    return [];
  }
  const requests: CapabilityRequest[] = [];
  for (const key of Object.keys(capabilities)) {
    const pointer = `/capabilities/${escapePointerSegment(key)}`;
    const keyProblem = capabilityKeyProblem(key);
    if (keyProblem) {
      diagnostics.push(createDiagnostic(Diagnostics.CapabilityKeyInvalid, at(pointer, true), [key, keyProblem], { path: ["capabilities", key] }));
      continue;
    }
    const entry = capabilities[key] ?? null;
    if (entry !== null && !isJsonObject(entry)) {
      diagnostics.push(createDiagnostic(Diagnostics.CapabilityEntryNotMapping, at(pointer), [key, describeKind(entry, "yaml")], { path: ["capabilities", key] }));
      continue;
    }
    const fields: JsonObject = entry ?? {};
    let ok = true;
    for (const field of Object.keys(fields)) {
      if ((CAPABILITY_FIELDS as readonly string[]).includes(field)) continue;
      // Reported, but the capability is still resolved with its known fields, so the plugin's
      // and the config's problems are reported in the same run (the error keeps the compile from writing).
      const suggestion = didYouMean(field, CAPABILITY_FIELDS);
      diagnostics.push(
        createDiagnostic(Diagnostics.CapabilityUnknownField, at(`${pointer}/${escapePointerSegment(field)}`, true), [field, key], {
          path: ["capabilities", key, field],
          // A near miss of 'package' or 'config' may still be one of the plugin's options written
          // one level too high (`packages:` for a plugin whose configSchema has it): the config
          // check then leaves that option's AL5004 to this error (`validateConfigValue`), so the
          // hint names both fixes (helper-72's review).
          hint: suggestion
            ? `Did you mean '${suggestion}'? If '${field}' is one of the plugin's options, put it under 'config:'.`
            : `A capability entry has only 'package' and 'config'; put plugin options under 'config:'.`,
        }),
      );
    }
    const pkg = fields["package"];
    if (pkg !== undefined && typeof pkg !== "string") {
      ok = false;
      diagnostics.push(
        createDiagnostic(Diagnostics.AgentFieldType, at(`${pointer}/package`), [`capabilities.${key}.package`, "a string", describeKind(pkg, "yaml")], {
          path: ["capabilities", key, "package"],
        }),
      );
    }
    const config = fields["config"];
    if (config !== undefined && config !== null && !isJsonObject(config)) {
      ok = false;
      diagnostics.push(
        createDiagnostic(Diagnostics.AgentFieldType, at(`${pointer}/config`), [`capabilities.${key}.config`, "a mapping", describeKind(config, "yaml")], {
          path: ["capabilities", key, "config"],
        }),
      );
    }
    if (!ok) continue;
    requests.push({
      key,
      package: typeof pkg === "string" ? pkg : undefined,
      config: isJsonObject(config) ? config : {},
      configPointer: `${pointer}/config`,
      location: at(pointer, true),
    });
  }
  return requests;
}

/**
 * Why `key` cannot be a capability key, or `undefined` when it can: the Agent Plugins v1 §5.5
 * name rule (compiler/plugin-package/plugin-name.ts), since a key names `plugins/<key>/`.
 */
function capabilityKeyProblem(key: string): string | undefined {
  const problems = pluginNameProblems(key);
  return problems.length > 0 ? problems.join("; ") : undefined;
}

function listSubagents(host: CompilerHost, dir: string, diagnostics: Diagnostic[]): string[] {
  const subagentsDir = path.join(dir, "subagents");
  const entries = host.readDirectory(subagentsDir);
  if (!entries) return [];
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const kind = entry.kind === "symlink" ? symlinkTargetKind(host, path.join(subagentsDir, entry.name)) : entry.kind;
    if (kind === "directory") names.push(entry.name);
    else diagnostics.push(createDiagnostic(Diagnostics.SubagentsNotDirectory, fileStart(path.join(subagentsDir, entry.name)), [entry.name]));
  }
  return names;
}

function symlinkTargetKind(host: CompilerHost, link: string): string {
  const target = host.realpath(link);
  return target ? host.kind(target) : "missing";
}

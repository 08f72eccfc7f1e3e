/**
 * `assembly-line init [dir]` as a function (issue 10 item 3): writes the starter agent of
 * `agent-template.ts` into `dir`, or nothing at all. Every file is checked before the first is
 * written, so an existing file is never replaced and a refused init leaves the folder as it was.
 * A project's own `.gitignore` and `tsconfig.json` are not in the way (an agent added to an
 * existing repository; `cargo init` does the same with `.gitignore`): the lines `.gitignore`
 * lacks are added to it, and `tsconfig.json` is left as it is, with a note naming what to add.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileStart, folderStart } from "../../common/positions.js";
import { Diagnostics } from "../../diagnostics/catalog/index.js";
import { createDiagnostic, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { locateAuthoringCore } from "../../packaging/authoring-core.js";
import { checkWriteTarget, writeFileConfined, type WriteRefusal } from "../../common/confined-write.js";
import { writeRefusalDiagnostic } from "../../diagnostics/write-refusal.js";
import { createNodeHost } from "../../common/host.js";
import { shellQuote } from "../../common/shell-quote.js";
import { cliCommand } from "../../common/cli-command.js";
import { brokenLinkHint, brokenLinkReason } from "../../common/broken-link.js";
import { findAgentRoot } from "../../compiler/agent/agent-root.js";
import { agentNameFor, agentTemplate, GITIGNORE_HEADER, GITIGNORE_LINES, tsconfigAdditions, type AuthoringTypes } from "./agent-template.js";

/** Files of a project that may already be there: `init` adds to `.gitignore` and keeps `tsconfig.json`. */
const PROJECT_FILES: ReadonlySet<string> = new Set([".gitignore", "tsconfig.json"]);

/**
 * The folder beside `dir` that AL9101's hint suggests for a new agent: `../my-agent`, or
 * `../my-agent-2`, `-3`, … when that is `dir` itself or already exists (in a folder named
 * `my-agent`, `init ../my-agent` was the same folder and the same error: helper-78's trial).
 */
export function freshSibling(dir: string): string {
  const parent = path.dirname(path.resolve(dir));
  for (let n = 1; ; n++) {
    const name = n === 1 ? "my-agent" : `my-agent-${n}`;
    const candidate = path.join(parent, name);
    if (candidate !== path.resolve(dir) && lstatOrUndefined(candidate) === undefined) return `../${name}`;
  }
}

/** How many of the files in the way AL9101 names before "and N more files" (the starter agent's every file). */
const MAX_FILES_NAMED = 8;

/** What {@link initAgent} did. */
export interface InitResult {
  readonly ok: boolean;
  /**
   * Errors (one AL9101 naming the files in the way, or AL9102) when nothing was written; when
   * the agent was written, the note about a project's own `tsconfig.json` (AL9103, info) or nothing.
   */
  readonly diagnostics: readonly Diagnostic[];
  /** POSIX paths, relative to `dir`, of the files written (sorted); empty on failure. */
  readonly written: readonly string[];
  /** The lines added to the project's own `.gitignore` (empty when it had them, or when `init` wrote it). */
  readonly gitignoreAdded: readonly string[];
  /** The agent's name in `agent.md`. */
  readonly agentName: string;
  /**
   * The root of the agent whose subagent this is (`dir` is its `subagents/<name>/`), absolute:
   * the subagent is compiled and called through that root (a surface of it), not on its own.
   */
  readonly parentAgent?: string;
}

/**
 * Creates the starter agent in `dir` (absolute; created with its parents when missing).
 *
 * @param dir the new agent root.
 * @param types where the authoring declarations are (default: next to this toolchain, see
 *   {@link authoringTypesFor}).
 * @returns the files written, or diagnostics and nothing written. Throws only when the disk
 *   write itself fails (permissions), which the CLI reports as an internal failure.
 */
export function initAgent(dir: string, types: AuthoringTypes = authoringTypesFor(dir)): InitResult {
  const agentName = agentNameFor(path.basename(dir));
  const shown = (relative: string): string => path.relative(process.cwd(), path.join(dir, relative)) || ".";
  const refused = (diagnostic: Diagnostic): InitResult => ({ ok: false, diagnostics: [diagnostic], written: [], gitignoreAdded: [], agentName });
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) return refused(createDiagnostic(Diagnostics.InitTargetNotDirectory, fileStart(""), [shown(".")]));
  const files = new Map(agentTemplate(agentName, types));
  const existing = [...files.keys()].filter((relative) => lstatOrUndefined(path.join(dir, relative)) !== undefined);
  // A project's .gitignore and tsconfig.json are kept when no file of the agent itself is in the
  // way; .gitignore, which init adds to, only as a plain file (never a link followed out of the folder).
  const gitignoreRefusal = existing.includes(".gitignore") ? checkWriteTarget(dir, path.join(dir, ".gitignore")) : undefined;
  const kept = existing.filter((relative) => PROJECT_FILES.has(relative) && (relative !== ".gitignore" || gitignoreRefusal === undefined));
  // agent.md first: when it is in the way, the folder is most likely an agent already. A project's
  // files that init would keep are not named: they are not in the way, nor is a linked
  // .gitignore (init would add to it, not overwrite it: its refusal says why, below).
  const inTheWay = existing
    .filter((relative) => !kept.includes(relative) && !(relative === ".gitignore" && gitignoreRefusal))
    .sort((a, b) => Number(b === "agent.md") - Number(a === "agent.md"));
  if (inTheWay.length > 0) {
    // One error for all of them, at the first (new-user trial M33: `init` again in an agent printed
    // six errors with a code frame each, about 40 lines for one mistake).
    const named = inTheWay.slice(0, MAX_FILES_NAMED).map(shown);
    const more = inTheWay.length - named.length;
    const list = more > 0 ? `${named.join(", ")} and ${more} more file${more === 1 ? "" : "s"}` : named.length === 1 ? named[0]! : `${named.slice(0, -1).join(", ")} and ${named.at(-1)!}`;
    // A broken agent.md link is no agent: say so, as compile does (AL1002), rather than "an agent already".
    const broken = inTheWay.includes("agent.md") ? brokenLinkReason(createNodeHost(), path.join(dir, "agent.md")) : undefined;
    const agentAlready = broken !== undefined ? ` (${shown("agent.md")} could not be read: ${broken})` : inTheWay.includes("agent.md") ? ` (${shown(".")} has an agent.md: it is an agent already)` : "";
    const hint = broken !== undefined ? { hint: brokenLinkHint("agent.md") } : {};
    // A folder in the way (an agent.md/ folder) is placed on the folder, without a line and column.
    const first = inTheWay[0]!;
    const at = lstatOrUndefined(path.join(dir, first))?.isDirectory() ? folderStart(first) : fileStart(first);
    return refused(createDiagnostic(Diagnostics.InitWouldOverwrite, at, [list, agentAlready, freshSibling(dir)], hint));
  }
  // Inside another agent: in its plugins/ folder an agent is never what was meant (nothing is
  // written); elsewhere, a warning.
  const around = enclosingAgent(dir);
  const inside = around === undefined ? undefined : insideAgentDiagnostic(dir, around, shown);
  if (inside?.severity === "error") return refused(inside);
  if (gitignoreRefusal) return refused(writeRefusalDiagnostic(".gitignore", gitignoreRefusal, dir));
  for (const relative of kept) files.delete(relative);
  // The project's .gitignore first: when it cannot be written (a link made since the check),
  // nothing else is written either.
  const gitignore = kept.includes(".gitignore") ? addToGitignore(dir) : { added: [] };
  if (gitignore.refusal) return refused(writeRefusalDiagnostic(".gitignore", gitignore.refusal, dir));
  const gitignoreAdded = [...gitignore.added];
  for (const [relative, text] of files) {
    const target = path.join(dir, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // "wx": fail rather than replace a file that appeared since the check.
    fs.writeFileSync(target, text, { flag: "wx" });
  }
  const diagnostics = kept.includes("tsconfig.json") ? [createDiagnostic(Diagnostics.InitKeptTsconfig, fileStart(path.join(dir, "tsconfig.json")), [shown("tsconfig.json"), tsconfigAdditions(types), types.assets])] : [];
  if (inside) diagnostics.push(inside);
  const parentAgent = parentOfSubagent(dir);
  return { ok: true, diagnostics, written: [...files.keys()], gitignoreAdded, agentName, ...(parentAgent !== undefined ? { parentAgent } : {}) };
}

/** The agent root `dir` is a subagent folder of (`<root>/subagents/<name>` of a folder with an agent.md), or `undefined`. */
function parentOfSubagent(dir: string): string | undefined {
  const parent = path.dirname(dir);
  const root = path.dirname(parent);
  return path.basename(parent) === "subagents" && createNodeHost().kind(path.join(root, "agent.md")) === "file" ? root : undefined;
}

/**
 * The root of the agent `dir` lies inside (`compiler/agent/agent-root.ts`), unless `dir` is a
 * subagent folder of it (`…/subagents/<name>` of a folder with an agent.md); `undefined` when
 * there is none.
 */
function enclosingAgent(dir: string): string | undefined {
  const parent = path.dirname(dir);
  if (parentOfSubagent(dir) !== undefined) return undefined;
  return parent === dir ? undefined : findAgentRoot(createNodeHost(), path.join(parent, "agent.md"));
}

/**
 * AL9104 for `dir` inside the agent at `around`: an error in its `plugins/` folder (or the folder
 * itself), a warning elsewhere.
 */
function insideAgentDiagnostic(dir: string, around: string, shown: (relative: string) => string): Diagnostic {
  const subagent = path.relative(process.cwd(), path.join(around, "subagents", path.basename(dir))) || ".";
  const inPlugins = !path.relative(path.join(around, "plugins"), dir).startsWith("..");
  const aroundShown = path.relative(process.cwd(), around) || ".";
  const refusal = {
    severity: "error" as const,
    hint: `Nothing was written. A subagent of ${aroundShown} goes in its subagents/<name>/ (\`${cliCommand("init", subagent)}\`), and a plugin in its plugins/<name>/, with a plugin.json and no agent.md.`,
  };
  return createDiagnostic(Diagnostics.InitInsideAgent, fileStart(path.join(dir, "agent.md")), [shown("."), aroundShown, shellQuote(subagent)], inPlugins ? refusal : {});
}

/**
 * Adds the lines of a new agent's `.gitignore` that the project's `.gitignore` in `dir` lacks
 * (as a pattern with or without the leading or trailing slash), under the same comment, with
 * an atomic write (`common/confined-write.ts`). The project's own bytes are kept as they are (a
 * pattern in another encoding is not decoded and written back), the added lines end as the
 * file's first line does (CRLF or LF), and the file keeps its permission bits (before the
 * umask, as for any new file). Returns the lines added, or the refusal of the write (a link).
 */
function addToGitignore(dir: string): { readonly added: readonly string[]; readonly refusal?: WriteRefusal } {
  const file = path.join(dir, ".gitignore");
  const bytes = fs.readFileSync(file);
  // Patterns are compared as text; only ASCII ones can equal the lines init adds.
  const text = bytes.toString("latin1");
  const present = new Set(text.split(/\r?\n/).map((line) => line.trim().replace(/^\//, "").replace(/\/$/, "")));
  const missing = GITIGNORE_LINES.filter((line) => !present.has(line.replace(/\/$/, "")));
  if (missing.length === 0) return { added: [] };
  const firstEnd = text.indexOf("\n");
  const eol = firstEnd > 0 && text[firstEnd - 1] === "\r" ? "\r\n" : "\n";
  const separator = text === "" || text.endsWith("\n") ? "" : eol;
  const added = `${separator}${text === "" ? "" : eol}${GITIGNORE_HEADER}${eol}${missing.join(eol)}${eol}`;
  const mode = fs.statSync(file).mode & 0o7777;
  const refusal = writeFileConfined(dir, file, [bytes, Buffer.from(added, "utf8")], { mode });
  return refusal ? { added: [], refusal } : { added: missing };
}

/**
 * The authoring declarations of the toolchain that runs, relative to `dir`: the compiled
 * `index.d.ts` and `assets.d.ts` next to `dist/runtime-min/authoring/index.js` (or the `.ts`
 * sources when running from source). When the toolchain is installed in the project
 * (`npm install -D @assemblyline-agents/assembly-line`), these are paths into `node_modules`.
 */
export function authoringTypesFor(dir: string): AuthoringTypes {
  const core = locateAuthoringCore();
  const declarations = core.loader === "js" ? core.file.replace(/\.js$/, ".d.ts") : core.file;
  const authoringDir = viaProjectNodeModules(dir, path.dirname(declarations));
  // `compilerOptions.paths` entries must start with "./" or "../" when no `baseUrl` is set (TS5090).
  const relative = (file: string): string => {
    const posix = path.relative(dir, file).split(path.sep).join("/");
    return posix.startsWith("../") ? posix : `./${posix}`;
  };
  return { core: relative(path.join(authoringDir, path.basename(declarations))), assets: relative(path.join(authoringDir, "assets.d.ts")) };
}

/**
 * `authoringDir` as seen through `<dir>/node_modules/@assemblyline-agents/assembly-line` when the
 * project installed this toolchain there (also as a symlink, as `npm install <folder>` makes it),
 * so the tsconfig holds a path that works in every checkout of the project, not one into the
 * toolchain's own folder.
 */
function viaProjectNodeModules(dir: string, authoringDir: string): string {
  const toolchainRoot = path.resolve(authoringDir, "..", "..", "..");
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const installed = path.join(current, "node_modules", "@assemblyline-agents", "assembly-line");
    try {
      if (fs.realpathSync(installed) === fs.realpathSync(toolchainRoot)) return path.join(installed, path.relative(toolchainRoot, authoringDir));
    } catch {
      // not installed here; look further up
    }
    if (path.dirname(current) === current) return authoringDir;
  }
}

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

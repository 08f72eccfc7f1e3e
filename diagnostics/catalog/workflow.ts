/**
 * Diagnostics of the project workflow (issue 10): `init`, the project configuration file,
 * `--max-warnings` and several roots. Part of the AL9xxx table (usage).
 */
import { defineMessages } from "./types.js";

export const WorkflowMessages = defineMessages({
  InitWouldOverwrite: {
    code: "AL9101",
    severity: "error",
    message: "init would overwrite {0}{1}; nothing was written.",
    hint: "Run `{cli} init` in an empty folder (or a new one beside this one: `{cli} init {2}`; one inside an agent would be nested in it), or move those files away first.",
    docs: "`init` never replaces a file: when any file of the agent it would create already exists, it writes none of them (exit code 1). One error names the files in the way (up to eight, then how many more), at the first of them: the agent's own, not a project's `.gitignore` or `tsconfig.json`, which init would keep. A project's own `.gitignore` and `tsconfig.json` are not in the way: `init` adds the lines `.gitignore` lacks, and leaves `tsconfig.json` as it is (AL9103 names what to add to it).",
  },
  InitKeptTsconfig: {
    code: "AL9103",
    severity: "info",
    message: "{0} was already there and was left as it is: for typed `@assemblyline-agents/core` imports and the editor plugin, the plugins' TypeScript needs the settings init writes in a new agent.",
    hint: "Add to its compilerOptions (an object of that name, if it has none): {1}. If it has an include list, add plugins/**/*.ts to it; for typed asset imports (.md, .png, …) add {2} to include, or to files when it has no include (adding an include would narrow the project to what it lists). Or give plugins/ a tsconfig.json of its own with these settings.",
    docs: "`init` in an existing project (issue 10 item 3; new-user trial helper-67): the project's own `tsconfig.json` is never replaced, and the agent is written beside it. Compiling does not need it (the compiler reads no tsconfig); type-checking the plugins and the editor plugin do, so the settings to add are named, with the paths of this installation.",
  },
  InitInsideAgent: {
    code: "AL9104",
    severity: "warning",
    message: "{0} is inside the agent whose root is {1}: the new agent would not be part of it (that agent's compile does not read it).",
    hint: "A subagent of {1} goes in its subagents/<name>/ (`{cli} init {2}`), and a plugin in its plugins/<name>/, with a plugin.json and no agent.md. If a separate agent is what you meant, nothing else is needed.",
    docs: "A warning, and the agent is written, for a folder elsewhere inside an agent; an error, and nothing is written, for the agent's plugins/ folder or a folder in it, where an agent is never what was meant: the agent's compile would read the folder as a plugin without a plugin.json (new-user trials helper-67 and helper-69: `init plugins` run in an agent root made a second agent inside the first). A subagent folder (`subagents/<name>/` of an agent) gets neither: that is where a subagent belongs.",
  },
  InitTargetNotDirectory: {
    code: "AL9102",
    severity: "error",
    message: "init cannot create an agent in {0}: it exists and is not a folder.",
    docs: "`init [dir]` creates `dir` (and its parents) when missing; a file of that name is in the way.",
  },
  ProjectConfigSyntax: {
    code: "AL9110",
    severity: "error",
    message: "The project configuration {0} is not valid {1}: {2}.",
    docs: "The configuration file could not be parsed; fix the syntax at the position shown. Nothing was compiled.",
  },
  ProjectConfigInvalid: {
    code: "AL9111",
    severity: "error",
    message: "The project configuration {0} is not valid: '{1}' {2}.",
    docs: "The configuration does not match `schemas/assembly-line.config.schema.json` (a wrong type, value or unknown key); the path names the property. Nothing was compiled.",
  },
  ProjectConfigLoadFailed: {
    code: "AL9112",
    severity: "error",
    message: "The project configuration {0} could not be loaded: {1}",
    hint: "A JavaScript or TypeScript configuration must default-export a plain object (or export it as module.exports).",
    docs: "Loading a `.js`/`.mjs`/`.cjs`/`.ts` configuration threw, or the file named by `--config` is missing or unreadable.",
  },
  RuleUnknownCode: {
    code: "AL9113",
    severity: "error",
    message: "rules names {0}, which is not a diagnostic code of this toolchain.",
    docs: "Every key of `rules` must be a code of the catalog (`AL` and four digits); a misspelt code would silently change nothing.",
  },
  RuleCannotLowerError: {
    code: "AL9114",
    severity: "error",
    message: "rules cannot set {0} to '{1}': it is an error, and a compile with an error writes no lock or artifact.",
    hint: "Fix what {0} reports instead. Only warnings and notes can be turned off or down; any code can be raised to 'error'.",
    docs: "An error means the lock or artifact would be wrong (plugins.lock must stay valid for runtime-min), so `rules` may raise any code to `error` but lower only warnings and notes.",
  },
  MaxWarningsExceeded: {
    code: "AL9115",
    severity: "error",
    message: "{0} warnings, more than the {1} allowed ({2}); nothing was written.",
    hint: "Fix the warnings, turn codes you accept off in the configuration's rules, or raise the limit.",
    docs: "`--max-warnings N` (or `maxWarnings` in the configuration) fails a compile with more than N warnings, like ESLint's option; the compile then writes nothing.",
  },
  RootGlobMatchedNothing: {
    code: "AL9116",
    severity: "error",
    message: "No agent root matches {0} (no folder with an agent.md).",
    docs: "A root given as a glob (`agents/*`) must match at least one folder that holds an agent.md.",
  },
  SharedOutDir: {
    code: "AL9117",
    severity: "error",
    message: "{0} and {1} would write their artifacts to the same folder {2}.",
    hint: "Give each agent its own outDir (a configuration file per agent), or leave outDir at its default (<root>/.assemblyline/build).",
    docs: "Several roots compiled together may not share one artifact directory: the second would replace the first.",
  },
});

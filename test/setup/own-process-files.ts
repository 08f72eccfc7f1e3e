/**
 * Which test files `npm test` runs in a process of their own (vitest.config.ts's `own-process`
 * project); every other file shares its worker process with the files run before it
 * (`isolate: false`), which saves vitest's start and the module loads per file.
 */
/**
 * Test files that need a process of their own: they mock modules (`vi.mock`, `vi.resetModules`),
 * which only works on a fresh module graph, or they change process-wide state other files could
 * see while they run (environment variables, the working directory, the file-creation mask, a
 * replaced member of `process`). Every other file shares its
 * worker process with the files before it (below). A new file that does any of this goes here;
 * `test/setup/own-process-files.test.ts` fails when one is missing.
 */
export const OWN_PROCESS_FILES: readonly string[] = [
  "test/build/analysis-pool.test.ts", // ASSEMBLY_LINE_ANALYSIS_WORKER
  "test/build/plugin-reuse.test.ts", // ASSEMBLY_LINE_ANALYSIS_WORKER
  "test/build/analysis-worker-recording.test.ts", // vi.mock
  "test/build/check-writes-nothing.test.ts", // vi.mock
  "test/build/read-ahead-compile.test.ts", // vi.mock, ASSEMBLY_LINE_READ_AHEAD
  "test/cli/internal-error.test.ts", // vi.mock
  "test/common/confined-write-durable.test.ts", // vi.mock("node:fs")
  "test/config/config-search.test.ts", // vi.stubEnv (XDG_CONFIG_HOME), process.chdir
  "test/contract/validator-code-cache.test.ts", // vi.stubEnv (ASSEMBLY_LINE_CODE_CACHE)
  "test/diagnostics/terminal-color.test.ts", // vi.stubEnv
  "test/editor/lsp-first-answer.test.ts", // vi.mock
  "test/runtime/call-journal-fold-durable.test.ts", // node:fs functions wrapped (syncBuiltinESMExports)
  "test/runtime/child-script.test.ts", // vi.resetModules
  "test/runtime/early-start.test.ts", // LANG in process.env, process.umask, process.kill replaced
  "test/runtime/process-escape.test.ts", // process.umask
  "test/runtime/sandbox.test.ts", // secrets and NODE_OPTIONS in process.env
  "test/runtime/sandbox-tls.test.ts", // NODE_EXTRA_CA_CERTS in process.env
  "test/runtime/shell-isolation-home.test.ts", // HOME and PATH in process.env
  "test/runtime/shell-isolation.test.ts", // a secret and XDG_RUNTIME_DIR in process.env
  "test/startup/compile-record.test.ts", // process.chdir
  "test/startup/isolation-cache.test.ts", // vi.resetModules
];

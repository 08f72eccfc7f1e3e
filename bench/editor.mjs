/**
 * `npm run bench` — issue 9: `semanticDiagnosticsSync` latency in a real tsserver (the repo's
 * TypeScript) with and without the Assembly Line tsserver plugin, on the entry file of a
 * 50-plugin agent and on an ordinary `.ts` file: median and p95 over 200 edits, warm.
 *
 * Two copies of the same generated project are opened by two tsservers, one whose tsconfig
 * lists the plugin and one without; the plugin is this checkout's build, linked as
 * `node_modules/@assemblyline-agents/assembly-line`. Each edit inserts or removes one character
 * in a tool description of the entry (which makes the descriptor drift from its defineTool(),
 * so the plugin reports and withdraws a diagnostic) or in a string of the ordinary file,
 * through `updateOpen`; then the `semanticDiagnosticsSync` request is timed as an editor sees it.
 * The two servers' edits alternate, so a busy machine slows both alike.
 * Targets: entry ≤ 1.5× TypeScript's own time; ordinary files within noise.
 * Then the first wait (`editor.first`, no target): a fresh tsserver with the plugin against one
 * without, spawn → the answer to the first `semanticDiagnosticsSync` of the entry, opened with a
 * drifted description (the plugin reports it), in FIRST_ROUNDS rounds (which server starts first
 * alternates); CPU is the server's user + system time until the answer, from /proc.
 * `--fresh N` sets how many rounds (default 10); `--before DIR` adds, to the same rounds, a
 * fresh tsserver whose plugin is another checkout's build (`DIR/dist/`, linked as the package
 * of a third copy of the project), for before/after figures (`editor.first.before`, and
 * `editor.first.vs-before` with the medians of the paired wall and CPU ratios); `--first-only`
 * measures only those rounds (not the 200 edits).
 * Usage: node bench/editor.mjs [--quick] [--json] [--fresh N] [--before DIR] [--first-only]
 * (bench/lib.mjs: the shared flags and figures `editor.entry`, `editor.ordinary` and
 * `editor.first`; --quick: 3 edits after 1 warm-up edit, 2 plugins, one tsserver pair for both
 * cases, one round of fresh servers, and the projects' `lib` is ES2022 alone, see {@link QUICK_LIB}).
 */
import "./clean-env.mjs";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { launchServer } from "@typescript/server-harness";
import { generateAgent } from "./generate-agent.mjs";
import { emit, median, note, parseBenchArgs, processCpuMs, quantile, ratioFigure, summarizeMs } from "./lib.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.dirname(here);
const require = createRequire(import.meta.url);
const { quick, json, values } = parseBenchArgs({ fresh: { type: "string" }, before: { type: "string" }, "first-only": { type: "boolean", default: false } });
const out = { json };
const EDITS = quick ? 3 : 200;
const WARMUP = quick ? 1 : 20;
const PLUGINS = quick ? 2 : 50;
const FIRST_ROUNDS = quick ? 1 : Number(values.fresh ?? 10);
const BEFORE = values.before === undefined ? undefined : path.resolve(values.before);
if (BEFORE !== undefined && !fs.existsSync(path.join(BEFORE, "dist/editor/ts-plugin.cjs"))) throw new Error(`--before: no ${path.join(BEFORE, "dist/editor/ts-plugin.cjs")} (build that checkout first)`);
const PLUGIN = "@assemblyline-agents/assembly-line/ts-plugin";
/**
 * --quick only: the generated projects' `lib`. Without one, TypeScript takes the target's
 * default, which adds the DOM (`lib.dom.d.ts`, about 2 MB), parsed and bound by each of the
 * quick run's four tsservers: 0.6-0.9 s of CPU per program, about a third of the script's CPU in
 * `npm test` (docs/performance.md, "The test suite's budget", helper-104). No source here names
 * the DOM. A full run keeps the default, so its figures stay comparable with earlier runs.
 */
const QUICK_LIB = ["es2022"];

const ORDINARY = `export interface Order { id: string; total: number; lines: { sku: string; qty: number }[] }

export function totalOf(order: Order): number {
  return order.lines.reduce((sum, line) => sum + line.qty, 0) * 1.0;
}

export const label = "orders";
`;

/** The generated project in `dir`; with `withPlugin`, its tsconfig lists the plugin of the checkout `checkout` (default: this one). */
function makeProject(dir, withPlugin, checkout = repo) {
  generateAgent(dir, { plugins: PLUGINS, tools: 5 });
  fs.mkdirSync(path.join(dir, "src"), { recursive: true });
  fs.writeFileSync(path.join(dir, "src/ordinary.ts"), ORDINARY);
  const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", ...(quick ? { lib: QUICK_LIB } : {}), noEmit: true, skipLibCheck: true, types: [], ...(withPlugin ? { plugins: [{ name: PLUGIN }] } : {}) };
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions }, null, 2));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "bench-agent", private: true, type: "module" }));
  const link = path.join(dir, "node_modules/@assemblyline-agents/assembly-line");
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(checkout, link, "dir");
}

function positionOf(text, offset) {
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, offset: before.at(-1).length + 1 };
}

/** A tsserver on `dir`: `request(command, args)` sends one request and resolves its body. */
function launch(dir) {
  const server = launchServer(require.resolve("typescript/lib/tsserver.js"), ["--disableAutomaticTypingAcquisition", "--pluginProbeLocations", dir]);
  let seq = 0;
  const request = async (command, args) => {
    const response = await server.message({ seq: ++seq, type: "request", command, arguments: args });
    if (!response.success) throw new Error(`${command}: ${response.message}`);
    return response.body;
  };
  return { dir, request, pid: server.pid, close: () => server.exitOrKill(5000) };
}

/**
 * `relative` opened in `server` (a {@link launch}ed tsserver, a new one when not given);
 * `edit(i)` toggles one character after `needle` and times the diagnostics.
 */
async function openSession(dir, relative, needle, server = launch(dir)) {
  const { request } = server;
  const file = path.join(dir, relative);
  const text = fs.readFileSync(file, "utf8");
  const at = positionOf(text, text.indexOf(needle) + needle.length);
  await request("updateOpen", { openFiles: [{ file, projectRootPath: dir }] });
  return {
    times: [],
    ours: 0,
    /** CPU ms (user + system) of the server process so far, or undefined off Linux. */
    cpu: () => processCpuMs(server.pid),
    async edit(i) {
      // Alternately insert and remove one character, so the text returns to where it was.
      const insert = i % 2 === 0;
      const end = insert ? at : { line: at.line, offset: at.offset + 1 };
      await request("updateOpen", { changedFiles: [{ fileName: file, textChanges: [{ start: at, end, newText: insert ? "x" : "" }] }] });
      const started = performance.now();
      const diagnostics = await request("semanticDiagnosticsSync", { file });
      const elapsed = performance.now() - started;
      if (i >= WARMUP) this.times.push(elapsed);
      this.ours = Math.max(this.ours, diagnostics.filter((d) => d.source === "assembly-line").length);
    },
    // A shared server (given by the caller) is closed by the caller.
    close: () => (server.shared ? Promise.resolve() : server.close()),
  };
}

/**
 * A fresh tsserver on `dir`: spawn → the answer to the first `semanticDiagnosticsSync` of
 * `relative`, opened with `text`. Returns `{ wallMs, cpuMs, ours }` (CPU of the server until the
 * answer; `ours`: how many diagnostics the plugin gave), then closes the server.
 */
async function firstDiagnostics(dir, relative, text) {
  const start = performance.now();
  const server = launch(dir);
  const file = path.join(dir, relative);
  await server.request("updateOpen", { openFiles: [{ file, fileContent: text, projectRootPath: dir }] });
  const diagnostics = await server.request("semanticDiagnosticsSync", { file });
  const wallMs = performance.now() - start;
  const cpuMs = processCpuMs(server.pid) ?? null;
  await server.close();
  return { wallMs, cpuMs, ours: diagnostics.filter((d) => d.source === "assembly-line").length };
}

/**
 * Median and p95 of both sessions; their edits alternate (and which goes first alternates) so
 * that the load of a shared machine weighs on both alike. `servers` (`{ without, withPlugin }`,
 * --quick only) are tsservers to reuse; without them each session starts its own.
 */
async function measure(withoutDir, withDir, relative, needle, servers) {
  const without = await openSession(withoutDir, relative, needle, servers?.without);
  const withPlugin = await openSession(withDir, relative, needle, servers?.withPlugin);
  const cpuStart = new Map();
  for (let i = 0; i < WARMUP + EDITS; i++) {
    if (i === WARMUP) for (const session of [without, withPlugin]) cpuStart.set(session, session.cpu());
    // Which server goes first alternates too.
    const [first, second] = i % 4 < 2 ? [without, withPlugin] : [withPlugin, without];
    await first.edit(i);
    await second.edit(i);
  }
  const cpuMs = new Map([without, withPlugin].map((session) => [session, session.cpu() - cpuStart.get(session)]));
  await without.close();
  await withPlugin.close();
  const summary = (session) => ({ ...summarizeMs(session.times), p95: quantile(session.times, 0.95), ours: session.ours });
  return { without: summary(without), withPlugin: summary(withPlugin), cpuRatio: cpuMs.get(withPlugin) / cpuMs.get(without) };
}

const base = fs.mkdtempSync(path.join(os.tmpdir(), "al-bench-editor-"));
try {
  const withDir = path.join(base, "with");
  const withoutDir = path.join(base, "without");
  const beforeDir = path.join(base, "before");
  makeProject(withDir, true);
  makeProject(withoutDir, false);
  if (BEFORE !== undefined) makeProject(beforeDir, true, BEFORE);
  const cases = [
    ["editor.entry", `entry of a ${PLUGINS}-plugin agent`, `plugins/plugin-000${quick ? 1 : 7}/ai.assemblyline/index.ts`, "Generated tool 0", { op: "<=", value: 1.5 }],
    ["editor.ordinary", "ordinary .ts file", "src/ordinary.ts", 'label = "orders', undefined],
  ];
  note(`semanticDiagnosticsSync over ${EDITS} edits after ${WARMUP} warm-up edits, TypeScript ${require("typescript/package.json").version}`, out);
  // --quick: one tsserver pair for both cases (a tsserver's start is most of a quick run's CPU:
  // about 2.5 s each); a full run starts a fresh pair per case, so neither case runs on a
  // server the other warmed.
  const servers = quick ? { without: { ...launch(withoutDir), shared: true }, withPlugin: { ...launch(withDir), shared: true } } : undefined;
  try {
    for (const [name, label, relative, needle, target] of values["first-only"] ? [] : cases) {
      const { without, withPlugin, cpuRatio } = await measure(withoutDir, withDir, relative, needle, servers);
      emit(
        ratioFigure({
          name,
          label: `tsserver semanticDiagnosticsSync with the Assembly Line plugin, ${label} (up to ${withPlugin.ours} assembly-line diagnostics)`,
          baselineLabel: "the same tsserver request without the plugin",
          subject: withPlugin,
          baseline: without,
          ...(target ? { target } : {}),
          // Issue 9 reports median and p95; the target is held to the stricter of the two, p95.
          compare: "p95",
          medianRatio: Math.round((withPlugin.median / without.median) * 1000) / 1000,
          p95Ratio: Math.round((withPlugin.p95 / without.p95) * 1000) / 1000,
          ...(Number.isFinite(cpuRatio) ? { cpuRatio: Math.round(cpuRatio * 1000) / 1000 } : {}),
        }),
        out,
      );
    }
  } finally {
    if (servers) await Promise.all([servers.without.close(), servers.withPlugin.close()]);
  }
  const entry = cases[0][2];
  const drifted = fs.readFileSync(path.join(withDir, entry), "utf8").replace("Generated tool 0", "Generated tool 0x");
  const first = { without: [], withPlugin: [], before: [] };
  const dirs = { without: withoutDir, withPlugin: withDir, before: beforeDir };
  const variants = ["without", "withPlugin", ...(BEFORE !== undefined ? ["before"] : [])];
  for (let round = 0; round < FIRST_ROUNDS; round++) {
    // Which server starts first rotates.
    for (let k = 0; k < variants.length; k++) {
      const name = variants[(round + k) % variants.length];
      first[name].push(await firstDiagnostics(dirs[name], entry, drifted));
    }
  }
  emit(
    ratioFigure({
      name: "editor.first",
      label: `fresh tsserver with the Assembly Line plugin: spawn → first semanticDiagnosticsSync of the entry of a ${PLUGINS}-plugin agent (up to ${Math.max(...first.withPlugin.map((s) => s.ours))} assembly-line diagnostics)`,
      baselineLabel: "a fresh tsserver without the plugin",
      subject: first.withPlugin,
      baseline: first.without,
    }),
    out,
  );
  if (BEFORE !== undefined) {
    emit(
      ratioFigure({
        name: "editor.first.before",
        label: `fresh tsserver with the --before build's plugin: spawn → first semanticDiagnosticsSync of the entry of a ${PLUGINS}-plugin agent`,
        baselineLabel: "a fresh tsserver without the plugin",
        subject: first.before,
        baseline: first.without,
      }),
      out,
    );
    const paired = (pick) => Math.round(median(first.withPlugin.map((s, i) => pick(s) / pick(first.before[i]))) * 1000) / 1000;
    emit(
      ratioFigure({
        name: "editor.first.vs-before",
        label: `fresh tsserver with this build's plugin: spawn → first semanticDiagnosticsSync of the entry of a ${PLUGINS}-plugin agent`,
        baselineLabel: "the same with the --before build's plugin",
        subject: first.withPlugin,
        baseline: first.before,
        pairedWallRatio: paired((s) => s.wallMs),
        pairedCpuRatio: paired((s) => s.cpuMs),
        pairedCpuRatioToWithout: Math.round(median(first.withPlugin.map((s, i) => s.cpuMs / first.without[i].cpuMs)) * 1000) / 1000,
        pairedCpuRatioBeforeToWithout: Math.round(median(first.before.map((s, i) => s.cpuMs / first.without[i].cpuMs)) * 1000) / 1000,
      }),
      out,
    );
  }
  note(`load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs`, out);
} finally {
  fs.rmSync(base, { recursive: true, force: true });
}

/**
 * The layer rules of the toolchain (issue 8, DESIGN §1), checked in `npm test`
 * (test/architecture/layers.test.ts) and by `npm run lint:layers`.
 *
 * Top-level folders, from the top down; a folder imports only folders BELOW it:
 *
 *   bin/                     the executable
 *   cli/, editor/            the command line; the tsserver plugin and the language server
 *   build/                   the compile driver: analyse → lock → package → emit
 *   packaging/, lockfile/    esbuild bundles and the artifact; plugins.lock (siblings)
 *   compiler/, runtime-min/  the front end (agent, plugin package, static analysis, validation,
 *                            config); the runtime (siblings: the runtime never imports the front end)
 *   contract/                what compiler and runtime share: core tool catalogue, locked tool and
 *                            manifest types, artifact and lock names, defaults, JSON Schema dialects
 *   diagnostics/             the diagnostics catalog and its formatters
 *   common/                  JSON values and pointers, positions, text, the file-system host, quoting
 *
 * Siblings on one rank do not import each other. No import cycles anywhere.
 */
const RANKS = [
  ["bin"],
  ["cli", "editor"],
  ["build"],
  ["packaging", "lockfile"],
  ["compiler", "runtime-min"],
  ["contract"],
  ["diagnostics"],
  ["common"],
];

const rankOf = new Map(RANKS.flatMap((folders, rank) => folders.map((folder) => [folder, rank])));
const forbidden = [];
for (const [folder, rank] of rankOf) {
  const notBelow = [...rankOf].filter(([other, otherRank]) => other !== folder && otherRank <= rank).map(([other]) => other);
  forbidden.push({
    name: `layer-${folder}`,
    severity: "error",
    comment: `${folder}/ imports only the layers below it (${[...rankOf].filter(([, r]) => r > rank).map(([f]) => `${f}/`).join(", ") || "none"}).`,
    from: { path: `^${folder}/` },
    to: { path: `^(${notBelow.join("|")})/` },
  });
}
forbidden.push({
  name: "no-circular",
  severity: "error",
  comment: "Import cycles hide which module owns a rule; break the cycle by moving the shared part down.",
  from: {},
  to: { circular: true },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(node_modules|dist|test|bench|scripts|examples)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6", "cjs"],
  },
};

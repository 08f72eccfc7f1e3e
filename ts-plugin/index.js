// The tsserver plugin `@assemblyline-agents/assembly-line/ts-plugin`. tsserver resolves plugin
// names as paths inside node_modules (it does not read package.json "exports"), so this folder
// exists at the package root and hands over to the one-file CommonJS bundle that
// `npm run build` writes (scripts/build-ts-plugin.mjs).
"use strict";
module.exports = require("../dist/editor/ts-plugin.cjs").createPluginModule;

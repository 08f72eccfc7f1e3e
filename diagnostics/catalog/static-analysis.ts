/**
 * Diagnostics of static analysis of ai.assemblyline entries and definition modules
 * (DESIGN §3: the entry is read without running plugin code; issue 2 item 3).
 *
 * AL30xx files and syntax, AL31xx the entry's default export, AL32xx values the static
 * evaluator cannot read, AL33xx relative imports of static values.
 */
import { defineMessages } from "./types.js";

export const StaticAnalysisMessages = defineMessages({
  SourceFileMissing: {
    code: "AL3001",
    severity: "error",
    message: "'{0}' does not exist.",
    docs: "The static analysis reads the plugin entry and its definition modules; a path that names no file cannot be analysed.",
  },
  SourceFileIsDirectory: {
    code: "AL3002",
    severity: "error",
    message: "'{0}' is a directory, not a source file.",
    hint: "Point at the module file itself (for example './ai.assemblyline/echo.ts').",
    docs: "Entries and definition modules are single files (DESIGN §2); a directory cannot be parsed.",
  },
  SourceFileUnreadable: {
    code: "AL3003",
    severity: "error",
    message: "'{0}' could not be read: {1}.",
    docs: "The file exists but is not a readable regular file.",
  },
  SourceFileNotUtf8: {
    code: "AL3004",
    severity: "error",
    message: "'{0}' is not valid UTF-8; invalid bytes were read as U+FFFD.",
    hint: "Save the file as UTF-8.",
    docs: "Modules are read as UTF-8 text, as Node.js and TypeScript read them; other encodings change the meaning of strings.",
  },
  SyntaxError: {
    code: "AL3005",
    severity: "error",
    message: "Syntax error: {0}",
    docs: "A module that does not parse cannot be analysed; the message is TypeScript's parser message.",
  },
  MoreSyntaxErrors: {
    code: "AL3006",
    severity: "info",
    message: "{0} more syntax errors in this file are not shown.",
    hint: "Fix the errors above first; later ones are often caused by the first.",
    docs: "Only the first syntax errors of a file are reported, so a file that is not TypeScript does not flood the output.",
  },
  NestedTooDeeply: {
    code: "AL3007",
    severity: "error",
    message: "This value is nested (directly or through constants) more than {0} levels deep.",
    hint: "Flatten the value; descriptors and schemas never need this much nesting.",
    docs: "Nesting is capped so that analysis never exhausts the stack; a legitimate descriptor is far below the limit.",
  },
  JsonSyntaxError: {
    code: "AL3008",
    severity: "error",
    message: "Invalid JSON: {0}.",
    hint: "Fix the JSON file; JSON modules allow no comments, trailing commas or single quotes.",
    docs: "A JSON file imported by the entry is parsed as Node.js parses JSON modules: strict JSON, no comments or trailing commas.",
  },
  ValueTooLarge: {
    code: "AL3009",
    severity: "error",
    message: "The evaluated value has more than {0} parts.",
    hint: "Constants that are referenced many times multiply the size of the value; write the value more directly.",
    docs: "Repeated references to constants can make a small file describe an enormous value; evaluation stops at a fixed size.",
  },
  MissingDefaultExport: {
    code: "AL3101",
    severity: "error",
    message: "'{0}' has no default export.",
    hint: "Default-export the plugin object: export default { tools: { … } } (or export default defineAssemblyLinePlugin({ … })).",
    docs: "The entry's default export is the plugin's descriptor object (DESIGN §3).",
  },
  DefaultExportNotObject: {
    code: "AL3102",
    severity: "error",
    message: "The entry's default export must be an object, but it is {0}.",
    hint: "Default-export an object with a 'tools' property.",
    docs: "The entry's default export is the plugin's descriptor object (DESIGN §3).",
  },
  DuplicateDefaultExport: {
    code: "AL3103",
    severity: "error",
    message: "The module has more than one default export.",
    hint: "Keep one default export.",
    docs: "A module may have only one default export (ECMAScript modules); which one is meant cannot be decided.",
  },
  PluginWrapperArguments: {
    code: "AL3104",
    severity: "error",
    message: "defineAssemblyLinePlugin(…) takes exactly one object argument, but is given {0}.",
    hint: "Pass the plugin object: defineAssemblyLinePlugin({ tools: { … } }).",
    docs: "The wrapper only types its argument; the compiler reads that single object (DESIGN §3).",
  },
  NotStatic: {
    code: "AL3201",
    severity: "error",
    message: "Cannot read {0}: the compiler never runs plugin code.",
    hint: "Write the value as a literal, a top-level const, or a relative import of a static const or a JSON file.",
    docs: "The compiler never imports or evaluates plugin code; the entry may only use literals, object and array literals, top-level consts, spreads of static values and relative imports of static values (DESIGN §3).",
  },
  ReferenceCycle: {
    code: "AL3202",
    severity: "error",
    message: "'{0}' refers to itself: {1}.",
    hint: "Break the cycle; a static value cannot contain itself.",
    docs: "Constants that refer to each other in a cycle describe an infinite value.",
  },
  ProtoKey: {
    code: "AL3203",
    severity: "error",
    message: "A '__proto__' key in an object literal sets the object's prototype instead of defining a property.",
    hint: "Rename the key; '__proto__' cannot be declared as a property in an object literal.",
    docs: "In JavaScript, `{ __proto__: x }` and `{ \"__proto__\": x }` change the prototype, so the property would silently not exist at run time.",
  },
  UndeclaredName: {
    code: "AL3204",
    severity: "error",
    message: "'{0}' is not declared at the top level of this module.",
    hint: "Declare it as a top-level const in this module, or write the value inline.",
    docs: "Only top-level const declarations and relative imports of static values can be read statically (DESIGN §3); globals only exist at run time.",
  },
  NotJsonValue: {
    code: "AL3205",
    severity: "error",
    message: "{0} is not a JSON value.",
    hint: "Write a JSON value: a string, number, boolean, null, array or object.",
    docs: "Descriptors, schemas and config are JSON (they are locked into plugins.lock); values JSON cannot represent would be lost or changed.",
  },
  InvalidSpread: {
    code: "AL3206",
    severity: "error",
    message: "Only {0} can be spread here, but this is {1}.",
    hint: "Spread objects into objects and arrays into arrays, or write the members out.",
    docs: "Spreading a value of another type produces index keys, characters or nothing, which is never what a descriptor means.",
  },
  TypeScriptSyntaxInJavaScript: {
    code: "AL3207",
    severity: "error",
    message: "{0} is TypeScript syntax, but '{1}' is a JavaScript file.",
    hint: "Remove it, or rename the file to .ts or .mts.",
    docs: "JavaScript modules cannot contain TypeScript syntax; Node.js and bundlers would reject the file.",
  },
  UsedBeforeDeclaration: {
    code: "AL3208",
    severity: "error",
    message: "'{0}' is used before its declaration, so loading the module would fail.",
    hint: "Move the declaration of '{0}' above its first use.",
    docs: "A const is in its temporal dead zone until its declaration runs; reading it earlier throws a ReferenceError when the module loads.",
  },
  ImportOutsidePluginRoot: {
    code: "AL3301",
    severity: "error",
    message: "The import '{0}' resolves to '{1}', which is outside the plugin root.",
    hint: "Move the shared value inside the plugin directory.",
    docs: "A plugin package is self-contained: its content hash and bundles cover only files inside the plugin root (after symlinks are resolved).",
  },
  ImportFromPackage: {
    code: "AL3302",
    severity: "error",
    message: "{0} is imported from the package '{1}', which the static analysis does not read.",
    hint: "Write the value inline, or move it into a file inside the plugin and import it with a relative path.",
    docs: "Only relative imports of static values inside the plugin root can be read statically (DESIGN §3); packages are code.",
  },
  ImportNotFound: {
    code: "AL3303",
    severity: "error",
    message: "Cannot find the module '{0}' (looked for {1}).",
    hint: "Check the path: it is resolved from the folder of the importing file.",
    docs: "Relative imports resolve like TypeScript's NodeNext resolution: './x.js' may name x.ts, x.mts or x.js; an extensionless path tries the module extensions and an index file.",
  },
  ImportedNameMissing: {
    code: "AL3304",
    severity: "error",
    message: "'{0}' has no export named '{1}'.",
    hint: "Import a name the module exports, or export the value from it with 'export const'.",
    docs: "An imported name must be exported by the module it is imported from.",
  },
});

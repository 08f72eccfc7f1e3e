/**
 * The parser-only TypeScript of the CLI bundle (docs/performance.md, "Incremental compiles with
 * packaging", thirteenth round): scripts/build-cli-bundle.mjs minifies ts-morph's TypeScript into
 * `dist/cli-bundle/typescript.cjs`, and the bundle uses that copy only to parse
 * (`compiler/static-analysis/typescript.ts`: `createSourceFile`, `forEachChild`, the `is…` tests,
 * `SyntaxKind`, …). Every process that parses deserialises the copy's cached code, whose size
 * follows the number of functions in the script, not the ones it runs: the type checker, the
 * emitter, the language service and tsserver made about half of it. {@link trimTypeScript}
 * removes the top-level declarations nothing kept reaches, before esbuild minifies the rest.
 *
 * TypeScript's `typescript.js` is one arrow function (`var ts = {}; ((module) => { … })(…)`) whose
 * body declares everything at its top level and exports it with one
 * `__export(typescript_exports, { name: () => name, … })`. What is kept (the rest is removed):
 * - every top-level statement that may do something when the script runs: calls, enums
 *   (`var SyntaxKind = ((SyntaxKind) => …)(…)`), initialised state, `setObjectAllocator(…)`;
 * - a declaration that only binds a name (a function, or a `var` bound to a function, an arrow,
 *   a class, another name, a string or number, `{}` or `[]`), and the statements tied to that
 *   name (`X.y = …`, its namespace's `__export(X, {…})`, a `registerCodeFix(…)`/`registerRefactor(…)`
 *   tied to the registering function), only when a kept statement or a name in `keep` reaches it
 *   (a name reaches a declaration when it appears in the statement as a reference: a property
 *   name after a dot or before a colon does not count, so the reach is an over-approximation by
 *   name, never an under-approximation of what the code can call);
 * - TypeScript's message table (`var Diagnostics = { X: diag(…), … }`, 2,130 messages, a quarter
 *   of the file) member by member, like a namespace object: `Diagnostics.X` keeps `X`, any other
 *   reference keeps them all. One exception to "a call runs at load" makes that pay: a codefix's
 *   `var errorCodes = mapDefined(Object.keys(Diagnostics), (key) => …)` only binds its name when
 *   `mapDefined` is TypeScript's and the callback calls, assigns and creates nothing (otherwise it
 *   runs, and keeps every message) — docs/performance.md, fourteenth round;
 * - the exports of kept declarations and of names declared otherwise; the `0 && (module.exports
 *   = {…})` annotation for Node's ESM loader goes (the copy is only `require`d).
 * `keep` (names of TypeScript's exports, or of its top-level declarations) is every `ts.<name>`
 * the toolchain's compiler sources write (the build collects it), so
 * whatever they call is in the copy; test/startup/bundled-typescript.test.ts checks that each of
 * them is, and that the copy parses every example and toolchain source to the same tree.
 */

/**
 * Removes from `text` (TypeScript's `typescript.js`, parsed with `ts`, the TypeScript module the
 * build runs) the top-level declarations that neither a statement kept nor a name of `keep`
 * reaches (see above). Returns the new text, and the counts of statements and exports before and
 * after. Throws when the file does not have the expected shape (the build then fails: a new
 * TypeScript release must be looked at, not silently copied whole or cut wrong).
 */
export function trimTypeScript(ts, text, keep) {
  const sourceFile = ts.createSourceFile("typescript.js", text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
  const wrapper = sourceFile.statements[1];
  const arrow = wrapper && ts.isExpressionStatement(wrapper) && ts.isCallExpression(wrapper.expression) && ts.isParenthesizedExpression(wrapper.expression.expression) ? wrapper.expression.expression.expression : undefined;
  if (!arrow || !ts.isArrowFunction(arrow) || !ts.isBlock(arrow.body)) throw new Error("trim-typescript: typescript.js is not `var ts = {}; ((module) => { … })(…)`");
  const body = arrow.body.statements;
  const declared = new Map(); // name → index of the statement declaring it
  const tied = new Map(); // name → indexes of statements kept only with that name
  const removable = new Set();
  const tie = (name, index) => {
    if (!tied.has(name)) tied.set(name, []);
    tied.get(name).push(index);
    removable.add(index);
  };
  const onlyBinds = (init) =>
    init === undefined ||
    ts.isArrowFunction(init) ||
      ts.isFunctionExpression(init) ||
      ts.isClassExpression(init) ||
      ts.isIdentifier(init) ||
      ts.isStringLiteral(init) ||
      ts.isNumericLiteral(init) ||
      (ts.isObjectLiteralExpression(init) && init.properties.length === 0) ||
      (ts.isArrayLiteralExpression(init) && init.elements.length === 0) ||
      pureCall(init) ||
      diagTable(init) ||
      keysOfTable(init);
  /**
   * TypeScript's message table, `var Diagnostics = { X: diag(1002, 1, "X_1002", "…"), … }`: an
   * object literal whose every member is a call of the top-level `diag`, which only returns a new
   * object of its arguments (checked below), with literal arguments. It only binds its name, and
   * is kept member by member like a namespace object: a reference `Diagnostics.X` keeps that
   * member, any other reference keeps them all.
   */
  function diagTable(init) {
    if (!ts.isObjectLiteralExpression(init) || init.properties.length === 0 || !diagOnlyBuilds()) return false;
    const literal = (arg) => effectless(arg) || (ts.isVoidExpression(arg) && ts.isNumericLiteral(arg.expression));
    return init.properties.every((property) => ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && ts.isCallExpression(property.initializer) && ts.isIdentifier(property.initializer.expression) && property.initializer.expression.text === "diag" && property.initializer.arguments.every(literal));
  }
  /** Whether the top-level `function diag(…)` only returns an object literal of plain values and its parameters. */
  function diagOnlyBuilds() {
    const diag = body.find((statement) => ts.isFunctionDeclaration(statement) && statement.name?.text === "diag");
    const only = diag?.body?.statements.length === 1 ? diag.body.statements[0] : undefined;
    return only !== undefined && ts.isReturnStatement(only) && only.expression !== undefined && ts.isObjectLiteralExpression(only.expression) && only.expression.properties.every((property) => ts.isShorthandPropertyAssignment(property) || (ts.isPropertyAssignment(property) && effectless(property.initializer)));
  }
  /**
   * The one exception the trim makes to "a call runs at load": a codefix's list of error codes
   * read from the whole message table, `var errorCodes = mapDefined(Object.keys(Diagnostics),
   * (key) => { const d = Diagnostics[key]; return d.category === 1 ? d.code : void 0; })`
   * (TypeScript's disableJsDiagnostics). `Object.keys` of a {@link diagTable} and the top-level
   * `mapDefined` (a loop that pushes what its callback returns into a new array) have no effect,
   * and neither does a callback that calls, assigns and creates nothing, so the statement only
   * binds its name: left in, it would keep every message of the table.
   */
  function keysOfTable(init) {
    if (!ts.isCallExpression(init) || !ts.isIdentifier(init.expression) || init.expression.text !== "mapDefined" || init.arguments.length !== 2) return false;
    const [keys, callback] = init.arguments;
    const table = ts.isCallExpression(keys) && keys.arguments.length === 1 && ts.isIdentifier(keys.arguments[0]) && keys.expression.getText(sourceFile) === "Object.keys" ? keys.arguments[0].text : undefined;
    const declaration = table === undefined ? undefined : body.find((statement) => ts.isVariableStatement(statement) && statement.declarationList.declarations.some((d) => ts.isIdentifier(d.name) && d.name.text === table));
    const tableInit = declaration?.declarationList.declarations.find((d) => d.name.text === table)?.initializer;
    return tableInit !== undefined && diagTable(tableInit) && mapDefinedOnlyMaps() && ts.isArrowFunction(callback) && readsOnly(callback.body);
  }
  /** Whether the top-level `function mapDefined(array, mapFn)` is TypeScript's: a new array of `mapFn`'s defined results. */
  function mapDefinedOnlyMaps() {
    const mapDefined = body.find((statement) => ts.isFunctionDeclaration(statement) && statement.name?.text === "mapDefined");
    if (mapDefined?.body === undefined || mapDefined.parameters.length !== 2) return false;
    const text = mapDefined.body.getText(sourceFile).replace(/\s+/g, " ");
    return text === "{ const result = []; if (array !== void 0) { for (let i = 0; i < array.length; i++) { const mapped = mapFn(array[i], i); if (mapped !== void 0) { result.push(mapped); } } } return result; }";
  }
  /** Whether `node` reads only: no call, `new`, assignment, `++`/`--`, `delete`, `await` or `yield` in it. */
  function readsOnly(node) {
    if (ts.isCallExpression(node) || ts.isNewExpression(node) || ts.isTaggedTemplateExpression(node) || ts.isDeleteExpression(node) || ts.isAwaitExpression(node) || ts.isYieldExpression(node)) return false;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) return false;
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) return false;
    return ts.forEachChild(node, (child) => (readsOnly(child) ? undefined : true)) === undefined;
  }
  /**
   * A call or `new` marked `/* @__PURE__ *\/` (its result unused, it may go: the annotation's
   * contract, which esbuild and TypeScript's own build keep) whose arguments have no effects of
   * their own: TypeScript's enums `/* @__PURE__ *\/ ((E2) => {…})(E || {})`, `new Map([…])`,
   * `memoize(() => …)`, `createBinder()`.
   */
  function pureCall(init) {
    if (!(ts.isCallExpression(init) || ts.isNewExpression(init)) || !text.slice(init.pos, init.getStart(sourceFile)).includes("@__PURE__")) return false;
    return (init.arguments ?? []).every(effectless);
  }
  function effectless(node) {
    if (ts.isIdentifier(node) || ts.isStringLiteral(node) || ts.isNumericLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) return true;
    if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword || node.kind === ts.SyntaxKind.NullKeyword) return true;
    if (ts.isParenthesizedExpression(node)) return effectless(node.expression);
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.BarBarToken) return effectless(node.left) && effectless(node.right);
    if (ts.isArrayLiteralExpression(node)) return node.elements.every(effectless);
    if (ts.isObjectLiteralExpression(node)) return node.properties.every((property) => ts.isPropertyAssignment(property) && !ts.isComputedPropertyName(property.name) && effectless(property.initializer));
    return false;
  }
  /** `X` of a statement `((X2) => { … })(X || (X = {}))`, TypeScript's namespaces; else `undefined`. */
  const namespaceOf = (e) => {
    if (!ts.isCallExpression(e) || e.arguments.length !== 1 || !ts.isParenthesizedExpression(e.expression) || !ts.isArrowFunction(e.expression.expression)) return undefined;
    const arg = e.arguments[0];
    if (!ts.isBinaryExpression(arg) || arg.operatorToken.kind !== ts.SyntaxKind.BarBarToken || !ts.isIdentifier(arg.left)) return undefined;
    const fill = ts.isParenthesizedExpression(arg.right) ? arg.right.expression : undefined;
    const ok = fill && ts.isBinaryExpression(fill) && fill.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isIdentifier(fill.left) && fill.left.text === arg.left.text && ts.isObjectLiteralExpression(fill.right) && fill.right.properties.length === 0;
    return ok ? arg.left.text : undefined;
  };
  /** `{ name: () => binding, … }` of an `__export` call: export name → binding. */
  const gettersOf = (object) =>
    new Map(
      object.properties.map((property) => {
        const ok = ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && ts.isArrowFunction(property.initializer) && ts.isIdentifier(property.initializer.body);
        if (!ok) throw new Error(`trim-typescript: the export ${property.getText(sourceFile).slice(0, 80)} is not \`name: () => binding\``);
        return [property.name.text, property.initializer.body.text];
      }),
    );
  /**
   * The namespace objects other than TypeScript's own exports (`var ts_X_exports = {}` filled by
   * `__export(ts_X_exports, {…})`): a reference `ts_X_exports.member` keeps only that member (and
   * the object); any other reference keeps them all.
   */
  const namespaces = new Map();
  let exportAt = -1;
  // A name declared twice at the top level (an enum merged, a function redeclared) would be kept
  // by one of its statements only: such a file is refused.
  const names = new Set();
  const declare = (name) => {
    if (names.has(name)) throw new Error(`trim-typescript: ${name} is declared twice at the top level of typescript.js`);
    names.add(name);
  };
  body.forEach((statement, index) => {
    if (ts.isFunctionDeclaration(statement) && statement.name) declare(statement.name.text);
    else if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) declare(d.name.text);
    if (ts.isFunctionDeclaration(statement) && statement.name) {
      declared.set(statement.name.text, index);
      removable.add(index);
    } else if (ts.isVariableStatement(statement) && statement.declarationList.declarations.every((d) => ts.isIdentifier(d.name) && onlyBinds(d.initializer))) {
      for (const d of statement.declarationList.declarations) {
        declared.set(d.name.text, index);
        // A message table is kept member by member, its members' code being in its own statement.
        if (statement.declarationList.declarations.length === 1 && d.initializer !== undefined && diagTable(d.initializer)) namespaces.set(d.name.text, { at: index, bindings: new Map(), members: new Set(), object: d.initializer });
      }
      removable.add(index);
    }
  });
  body.forEach((statement, index) => {
    if (!ts.isExpressionStatement(statement)) return;
    const e = statement.expression;
    if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && e.expression.text === "__export" && e.arguments.length === 2 && ts.isIdentifier(e.arguments[0]) && ts.isObjectLiteralExpression(e.arguments[1])) {
      if (e.arguments[0].text === "typescript_exports") exportAt = index;
      else if (declared.has(e.arguments[0].text)) {
        tie(e.arguments[0].text, index);
        namespaces.set(e.arguments[0].text, { at: index, bindings: gettersOf(e.arguments[1]), members: new Set(), object: e.arguments[1] });
      }
    } else if (namespaceOf(e) !== undefined && declared.has(namespaceOf(e))) {
      tie(namespaceOf(e), index); // `((X2) => { … })(X || (X = {}))`: fills the namespace X only
    } else if (ts.isCallExpression(e) && ts.isIdentifier(e.expression) && /^register(?:CodeFix|Refactor)$/.test(e.expression.text) && declared.has(e.expression.text)) {
      tie(e.expression.text, index);
    } else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(e.left) && ts.isIdentifier(e.left.expression) && declared.has(e.left.expression.text)) {
      tie(e.left.expression.text, index);
    } else if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken && ts.isNumericLiteral(e.left) && e.left.text === "0") {
      removable.add(index); // `0 && (module.exports = {…})`: never runs
    }
  });
  if (exportAt === -1) throw new Error("trim-typescript: no `__export(typescript_exports, {…})` in typescript.js");
  const nameOnly = (node) => {
    const parent = node.parent;
    if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
    // A declaration's own name declares; it does not reach (what reaches it is a use elsewhere).
    if (ts.isVariableDeclaration(parent) || ts.isFunctionDeclaration(parent)) return parent.name === node;
    if (ts.isPropertyAssignment(parent) || ts.isMethodDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isGetAccessorDeclaration(parent) || ts.isSetAccessorDeclaration(parent)) return parent.name === node;
    return false;
  };
  const referenced = new Map();
  const references = (statement) => {
    if (referenced.has(statement)) return referenced.get(statement);
    const names = new Set();
    referenced.set(statement, names);
    const visit = (node) => {
      if (ts.isIdentifier(node) && !nameOnly(node)) {
        const parent = node.parent;
        const member = namespaces.has(node.text) && ts.isPropertyAccessExpression(parent) && parent.expression === node && ts.isIdentifier(parent.name) ? parent.name.text : undefined;
        names.add(member === undefined ? node.text : `${node.text}.${member}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(statement);
    return names;
  };
  const reached = new Set();
  const reachedNames = new Set();
  const work = [];
  const reachedFrom = new Map(); // name → the statement (index) or `keep` (-1) that reached it first
  let from = -1;
  const reach = (name) => {
    const dot = name.indexOf(".");
    if (dot !== -1) {
      const namespace = namespaces.get(name.slice(0, dot));
      const member = name.slice(dot + 1);
      if (reachedNames.has(name.slice(0, dot)) || namespace.members.has(member)) return;
      namespace.members.add(member);
      const at = declared.get(name.slice(0, dot));
      if (!reached.has(at)) {
        reached.add(at);
        work.push(at);
      }
      // The `__export` statement is written with the members kept (below); its own references are not followed.
      if (namespace.bindings.has(member)) reach(namespace.bindings.get(member));
      return;
    }
    const at = declared.get(name);
    if (at === undefined || reachedNames.has(name)) return;
    reachedNames.add(name);
    reachedFrom.set(name, from);
    for (const index of [at, ...(tied.get(name) ?? [])]) {
      if (reached.has(index)) continue;
      reached.add(index);
      work.push(index);
    }
  };
  body.forEach((statement, index) => {
    from = index;
    if (!removable.has(index) && index !== exportAt) for (const name of references(statement)) reach(name);
  });
  from = -1;
  const exportsObject = body[exportAt].expression.arguments[1];
  // `name: () => binding`: an export goes with the declaration of the name it returns.
  const bindingOf = gettersOf(exportsObject);
  // The export statement itself runs: its function and target are kept (its exports as kept below).
  const exportCall = body[exportAt].expression;
  for (const name of [...references(exportCall.expression), ...references(exportCall.arguments[0])]) reach(name);
  for (const name of keep) reach(bindingOf.get(name) ?? name);
  const settle = () => {
    while (work.length > 0) {
      from = work.pop();
      for (const name of references(body[from])) reach(name);
    }
    from = -1;
  };
  settle();
  // A registering function's calls are kept with it; it is kept whenever anything kept reads
  // what it fills (its registries: the top-level variables it assigns or adds to), so a
  // registry is never read emptied by the trim.
  const everDeclared = new Map();
  body.forEach((statement, index) => {
    if (ts.isVariableStatement(statement)) for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) everDeclared.set(d.name.text, index);
  });
  /** The names a statement fills: assigned (`r = …`) or added to (`r.set(…)`, `r.add(…)`, `r.push(…)`). */
  const filledBy = (statement) => {
    const names = new Set();
    const visit = (node) => {
      if (ts.isIdentifier(node)) {
        const parent = node.parent;
        if (ts.isBinaryExpression(parent) && parent.left === node && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) names.add(node.text);
        if (ts.isPropertyAccessExpression(parent) && parent.expression === node && /^(?:set|add|push)$/.test(parent.name.text) && ts.isCallExpression(parent.parent) && parent.parent.expression === parent) names.add(node.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(statement);
    return names;
  };
  const registering = [...tied.keys()].filter((name) => /^register(?:CodeFix|Refactor)$/.test(name));
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of registering) {
      if (reachedNames.has(name)) continue;
      const registries = [...filledBy(body[declared.get(name)])].filter((other) => everDeclared.has(other));
      const reads = (index) => index !== declared.get(name) && registries.some((registry) => index !== everDeclared.get(registry) && references(body[index]).has(registry));
      if (body.some((_, index) => (reached.has(index) || (!removable.has(index) && index !== exportAt)) && reads(index))) {
        reach(name);
        settle();
        changed = true;
      }
    }
  }
  // A tied statement of a name declared but not kept, or of a name nothing declares, stays out.
  const exported = exportsObject.properties.filter((property) => {
    const at = declared.get(bindingOf.get(property.name.text));
    return at === undefined || reached.has(at);
  });
  const edits = [[exportsObject.getStart(sourceFile), exportsObject.getEnd(), `{\n${exported.map((property) => `  ${property.getText(sourceFile)}`).join(",\n")}\n}`]];
  const partial = new Map(); // index of an `__export` statement or a message table → that namespace
  for (const [name, namespace] of namespaces) if (!reachedNames.has(name) && namespace.members.size > 0) partial.set(namespace.at, namespace);
  body.forEach((statement, index) => {
    const namespace = partial.get(index);
    if (namespace !== undefined) {
      const object = namespace.object;
      const kept = object.properties.filter((property) => namespace.members.has(property.name.text));
      edits.push([object.getStart(sourceFile), object.getEnd(), `{\n${kept.map((property) => `  ${property.getText(sourceFile)}`).join(",\n")}\n}`]);
    } else if (removable.has(index) && !reached.has(index)) edits.push([statement.getFullStart(), statement.getEnd(), ""]);
  });
  edits.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end, replacement] of edits) {
    out += text.slice(at, start) + replacement;
    at = end;
  }
  out += text.slice(at);
  /** Why `name` is kept: the first lines of the statements that reached it, nearest first. */
  const why = (name) => {
    const chain = [];
    for (let at = reachedFrom.get(name); at !== undefined && at >= 0 && chain.length < 40; ) {
      const statement = body[at];
      chain.push(statement.getText(sourceFile).slice(0, 100).replace(/\s+/g, " "));
      const bound = [...declared].find(([, index]) => index === at)?.[0] ?? [...tied].find(([, list]) => list.includes(at))?.[0];
      at = bound === undefined ? undefined : reachedFrom.get(bound);
    }
    return chain;
  };
  return { text: out, why, statements: [body.length, body.length - (edits.length - 1)], exports: [exportsObject.properties.length, exported.length] };
}

/**
 * The names the toolchain's compiler sources read from TypeScript's namespace: every `ts.<name>`
 * in the `.ts` files of `texts` (types included: a type name that is no value keeps nothing).
 */
export function typescriptNamesUsed(texts) {
  const names = new Set();
  for (const text of texts) for (const match of text.matchAll(/\bts\.([A-Za-z_$][\w$]*)/g)) names.add(match[1]);
  return [...names].sort();
}

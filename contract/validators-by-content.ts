/**
 * Compiled JSON Schema validators shared by schema content: one place for the cache the
 * compiler's capability configs (`compiler/config/validate-config.ts`) and the runtime's input
 * check (`runtime-min/execution/validate-input.ts`) both keep. An ajv compile (code generation,
 * then V8's compile of the generated code) costs about half a millisecond a schema; equal
 * schemas — a family of plugins declaring one configSchema, tools sharing an inputSchema — share
 * one (issue 14 item 1: "share work across identical schemas by content hash").
 *
 * What a validator does depends only on the schema's content (its dialect is read from its own
 * `$schema`) and on the order of its keys: ajv fills in defaults and reports errors in the order
 * the schema names properties and keywords. So the key is the schema's JSON text as written, key
 * order included: two schemas that differ only in key order get a compile each, and each value's
 * defaults and errors come in its own schema's order, exactly as without the cache. (A schema
 * read from plugins.lock has its keys sorted, so equal locked schemas always share.) Each schema
 * object also remembers its value, so a schema asked again (every call of a tool) is not
 * serialised again.
 */

/** Validators (or whatever a compile gives, `undefined` included) by schema content, optionally bounded. */
export class ValidatorsByContent<V> {
  readonly #bySchema = new WeakMap<object, V>();
  /** By JSON text, the most recently used last. */
  readonly #byContent = new Map<string, V>();
  readonly #maxEntries: number;

  /**
   * @param maxEntries how many contents to keep (the least recently used goes first); a
   *   long-lived process that sees every edit of a schema (the language server) needs a bound.
   */
  constructor(maxEntries: number = Number.POSITIVE_INFINITY) {
    this.#maxEntries = maxEntries;
  }

  /**
   * The value for `schema`: remembered for this object, else for equal content, else
   * `compile()`'s (kept for both). A `compile` that throws keeps nothing, so the next ask tries again.
   */
  get(schema: object, compile: () => V): V {
    if (this.#bySchema.has(schema)) return this.#bySchema.get(schema) as V;
    const key = JSON.stringify(schema);
    let value: V;
    if (this.#byContent.has(key)) {
      value = this.#byContent.get(key) as V;
      this.#byContent.delete(key);
    } else {
      value = compile();
      if (this.#byContent.size >= this.#maxEntries) this.#byContent.delete(this.#byContent.keys().next().value!);
    }
    this.#byContent.set(key, value);
    this.#bySchema.set(schema, value);
    return value;
  }
}

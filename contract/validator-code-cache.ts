/**
 * ajv validators of the agent's input schemas, kept as JavaScript between processes (issue 14
 * item 3, a whole `call`). A `call` checks its input against the tool's locked `inputSchema`;
 * compiling that schema with ajv means loading ajv, setting up an engine and generating and
 * evaluating validator code: about 4–5 ms of a 100 ms `call`, every time, for a schema that
 * does not change between calls.
 *
 * So the first process that compiles a schema writes ajv's standalone code of the validator
 * (`ajv/dist/standalone`: the very function `ajv.compile` built, written out as a CommonJS
 * module) to the user's private code-cache folder (`common/private-cache-folder.ts`), and later
 * processes evaluate that code instead of loading ajv at all. Verdicts and error objects are the
 * same, since the code is the same; `contract/precompiled-validators.ts` does the same for the
 * toolchain's fixed schemas at build time.
 *
 * - A file is named by the SHA-256 ({@link ValidatorCodeCache.keyOf}) of everything the code
 *   depends on: this format, ajv's and ajv-formats' versions, the dialect, the ajv options and
 *   the schema's JSON text. Another schema, dialect, option or ajv is another file.
 * - Files are sealed (`common/sealed-file.ts`): a truncated, altered or foreign file, or code that
 *   throws or exports no function, is a miss, never a crash; the schema is compiled with ajv again.
 * - The code runs in the host, so it is read only from the private folder the V8 code cache uses
 *   (this user's, mode 0700, nobody else can write it), never from the agent's folder, and not at
 *   all when `ASSEMBLY_LINE_CODE_CACHE=0` (docs/caches.md).
 * - A process that writes a file deletes this cache's files not written for 30 days.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { ValidateFunction } from "ajv";
import { codeCacheFolder, pruneStaleCacheFiles } from "../common/private-cache-folder.js";
import { readSealedPayload, writeSealedFile } from "../common/sealed-file.js";

/** First bytes of a cached validator's file; the payload is the module's source text. */
const MAGIC = Buffer.from("assembly-line validator code 1\n", "utf8");

/** This cache's files and the temporaries of killed writers (`common/confined-write.ts`), for pruning. */
const CACHE_FILE = /^ajv-[0-9a-f]{64}\.bin(?:\.\d+-[0-9a-f]{8}\.tmp)?$/;

const require = createRequire(import.meta.url);

/** ajv's and ajv-formats' versions, read once: the generated code is theirs. */
let versions: readonly string[] | undefined;

function packageVersions(): readonly string[] {
  versions ??= ["ajv", "ajv-formats"].map((name) => (require(`${name}/package.json`) as { version: string }).version);
  return versions;
}

/**
 * Whether the validator of a schema with this JSON text may be kept as code. Not when the text
 * holds `"__proto__"`: ajv's standalone code writes schema values (a `const`, an `enum`, the
 * names an `additionalProperties` error lists) as object literals, where a `"__proto__"` key sets
 * the object's prototype instead of making a key, so the cached validator would decide otherwise
 * than the compiled one (a `const` of `{"__proto__": {"a": 1}}` would accept `{}`). The compiler
 * keeps such a key as data (`setOwn`), so such a schema is compiled every time.
 */
export function cacheableSchemaText(schemaText: string): boolean {
  return !schemaText.includes('"__proto__"');
}

/** What a {@link ValidatorCodeCache} did (for tests and benchmarks). */
export interface ValidatorCodeCacheStats {
  /** Validators evaluated from a cached file. */
  readonly hits: number;
  /** Lookups that found no usable file. */
  readonly misses: number;
  /** Files written. */
  readonly writes: number;
}

/** The cached validators of one folder (or none: every lookup misses and nothing is written). */
export class ValidatorCodeCache {
  readonly #dir: string | undefined;
  #hits = 0;
  #misses = 0;
  #writes = 0;
  #pruned = false;

  /**
   * @param dir the folder; default the user's private code-cache folder. `null`, or a folder
   *   that is not private (`isPrivateFolder`), or `ASSEMBLY_LINE_CODE_CACHE=0`: no cache.
   */
  constructor(dir?: string | null) {
    this.#dir = dir === null ? undefined : codeCacheFolder(dir);
  }

  /** Whether files are read and written at all. */
  get enabled(): boolean {
    return this.#dir !== undefined;
  }

  /** What this cache did so far. */
  stats(): ValidatorCodeCacheStats {
    return { hits: this.#hits, misses: this.#misses, writes: this.#writes };
  }

  /**
   * The key of the validator of `schemaText` (the schema's JSON text, `$schema` and `$id`
   * removed) compiled in `dialect` with the ajv `options`: SHA-256 hex of this cache's format,
   * ajv's and ajv-formats' versions, the dialect, the options and the text. `undefined` when the
   * cache is off, or when the validator must not be kept as code ({@link cacheableSchemaText}).
   */
  keyOf(dialect: string, options: object, schemaText: string): string | undefined {
    if (!this.enabled || !cacheableSchemaText(schemaText)) return undefined;
    return createHash("sha256")
      .update(JSON.stringify([MAGIC.toString("utf8"), ...packageVersions(), dialect, options]))
      .update("\0")
      .update(schemaText)
      .digest("hex");
  }

  /**
   * The validator cached under `key`, evaluated as a CommonJS module whose `require` is this
   * module's (the ajv runtime helpers and ajv-formats' formats the code may require resolve from
   * the toolchain); `undefined` when there is none or it is not usable.
   */
  load(key: string): ValidateFunction | undefined {
    const code = this.#dir === undefined ? undefined : readSealedPayload(this.#file(key), MAGIC);
    if (typeof code === "string") {
      try {
        const module = { exports: {} as unknown };
        new Function("module", "exports", "require", code)(module, module.exports, require);
        if (typeof module.exports === "function") {
          this.#hits += 1;
          return module.exports as ValidateFunction;
        }
      } catch {
        // Code that does not run is a miss: the schema is compiled again and the file rewritten.
      }
    }
    this.#misses += 1;
    return undefined;
  }

  /**
   * Keeps `code` (ajv's standalone module of a validator) under `key`: written atomically,
   * confined to the folder, never through a link (`writeSealedFile`). Never throws; a file that
   * cannot be written is only a miss next time.
   */
  store(key: string, code: string): void {
    if (this.#dir === undefined) return;
    // 0600, as the V8 code cache's files: the folder is this user's (a schema is no secret, but
    // nothing in the folder is anyone else's business).
    if (writeSealedFile(this.#dir, this.#file(key), MAGIC, code, { mode: 0o600 }).written) this.#writes += 1;
    if (!this.#pruned) {
      this.#pruned = true;
      pruneStaleCacheFiles(this.#dir, CACHE_FILE);
    }
  }

  #file(key: string): string {
    return path.join(this.#dir!, `ajv-${key}.bin`);
  }
}

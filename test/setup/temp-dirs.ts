/**
 * Setup file of every test project (`vitest.config.ts`, `vitest.conformance.config.ts`): vitest
 * runs it before each test file, also in a worker that shares its modules across files
 * (`isolate: false`), so the temporary directories each file made (`../helpers/temp-tree.ts`) are
 * removed after that file.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../helpers/temp-tree.js";

afterAll(() => {
  removeTempDirs();
});

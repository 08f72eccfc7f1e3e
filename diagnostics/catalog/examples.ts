/**
 * One example message per diagnostic code, shown in docs/diagnostics.md.
 *
 * Generated, then kept: `npm run docs:examples` runs the whole test suite with the diagnostic
 * recorder on (test/setup/diagnostic-coverage.ts) and adds, for each code that has no example
 * yet, the shortest message a test really produced (temp paths shortened). Existing entries are
 * never rewritten, so they may be edited by hand. A code without an example is documented with
 * its bare message template.
 */
export const DiagnosticExamples: Readonly<Record<string, string>> = {
};

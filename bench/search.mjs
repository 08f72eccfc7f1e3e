#!/usr/bin/env node
/**
 * tool_search latency over 10,000 generated tools, against a plain linear scan, in one run.
 *
 *   npm run build && node bench/search.mjs [--tools 10000] [--queries 1000] [--seed 42] [--json] [--quick]
 *
 * `--json` prints the figure `search.tool-search` as one JSON line (bench/lib.mjs: tool_search
 * against the scan, per query, with both summaries); `--quick` uses 1,000 tools and 100 queries.
 *
 * - Catalogue: deterministic (seeded PRNG) tools with snake_case and camelCase names, a
 *   namespace, tags, aliases and a one-sentence description drawn from fixed word lists.
 * - Queries: 1,000 deterministic queries of several kinds (one word, verb + noun, a tag, an
 *   alias, a namespace + noun, a description phrase, a camelCase fragment, a typo, "" browse).
 *   Most are generated from one target tool, so recall@8 (target on the first page) can be
 *   reported for both methods.
 * - Index: `createToolSearchIndex(catalogue).search(query, { limit: 8 })` from `dist/`.
 * - Baseline: lower-case the query and every tool's name, description, tags, aliases and
 *   namespace, keep the tools whose text `includes` the query, take the first 8.
 * - Each method is warmed up with 200 queries, then every query is timed once per method with
 *   `performance.now()`, the two methods interleaved query by query (alternating which runs
 *   first) so machine load affects both alike; we report median, p95, mean and max in ms.
 */
import "./clean-env.mjs";
import { performance } from "node:perf_hooks";
import { emit, parseBenchArgs, ratioFigure } from "./lib.mjs";
import { seededRandom } from "./seeded-random.mjs";

// --help/-h and unknown flags: bench/lib.mjs (parseBenchArgs).
const { quick: QUICK, json: JSON_OUTPUT, values } = parseBenchArgs({ tools: { type: "string" }, queries: { type: "string" }, seed: { type: "string" } });
const TOOL_COUNT = Number(values.tools ?? (QUICK ? 1_000 : 10_000));
const QUERY_COUNT = Number(values.queries ?? (QUICK ? 100 : 1_000));
const SEED = Number(values.seed ?? 42);
const { createToolSearchIndex } = await import("../dist/runtime-min/search/index.js");

const random = seededRandom(SEED);
const pick = (list) => list[Math.floor(random() * list.length)];

const VERBS = ["get", "list", "create", "update", "delete", "search", "fetch", "send", "sync", "export", "import", "archive", "restore", "approve", "reject", "assign", "merge", "close", "open", "render", "convert", "validate", "schedule", "cancel", "refund", "charge", "notify", "summarize", "translate", "classify", "upload", "download", "share", "tag", "comment", "review", "publish", "index", "resolve", "escalate"];
const NOUNS = ["invoice", "customer", "ticket", "order", "payment", "refund", "subscription", "issue", "pull request", "commit", "branch", "repository", "calendar event", "meeting", "email", "message", "channel", "document", "spreadsheet", "slide deck", "contact", "lead", "opportunity", "account", "user", "team", "project", "task", "milestone", "release", "deployment", "incident", "alert", "metric", "dashboard", "report", "log entry", "database row", "file", "folder", "image", "video", "transcript", "contract", "shipment", "product", "inventory item", "coupon", "review", "survey", "form", "webhook", "api key", "secret scan", "build", "test run", "container", "cluster", "domain", "certificate", "backup", "snapshot", "queue", "job", "workflow", "pipeline", "note", "bookmark", "playlist", "song", "map route", "weather forecast", "stock quote", "exchange rate", "flight", "hotel booking", "expense", "timesheet", "payroll run", "benefit"];
const ADJECTIVES = ["recent", "archived", "pending", "failed", "shared", "private", "public", "draft", "overdue", "priority", "internal", "external", "monthly", "weekly", "daily", "large", "small", "duplicate", "flagged", "verified", "unread", "starred", "open", "closed", "stale", "new", "legacy", "regional", "global", "custom"];
const NAMESPACES = ["github", "gitlab", "jira", "linear", "slack", "teams", "gmail", "outlook", "stripe", "paypal", "shopify", "salesforce", "hubspot", "zendesk", "intercom", "notion", "confluence", "drive", "dropbox", "s3", "datadog", "pagerduty", "sentry", "vercel", "kubernetes"];
const TAGS = ["billing", "crm", "support", "devops", "calendar", "email", "chat", "storage", "analytics", "security", "finance", "hr", "sales", "marketing", "ecommerce", "travel", "media", "docs", "monitoring", "ci", "payments", "compliance", "scheduling", "search", "ai", "translation", "geo", "legal", "inventory", "shipping"];
const ALIAS_WORDS = ["lookup", "find", "grab", "pull", "push", "ping", "nudge", "bill", "file away", "dig up", "ship", "kick off", "wrap up", "sign off", "hand over", "note down", "clean up", "roll back", "spin up", "tear down"];

function words(text) {
  return text.split(" ");
}
function camel(parts) {
  return parts.map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1))).join("");
}

function generateTool(i) {
  const verb = pick(VERBS);
  const noun = pick(NOUNS);
  const adjective = pick(ADJECTIVES);
  const namespace = pick(NAMESPACES);
  const parts = [verb, ...words(adjective), ...words(noun)];
  const base = i % 3 === 0 ? camel(parts) : parts.join("_");
  const tags = Array.from(new Set([pick(TAGS), pick(TAGS)])).slice(0, 1 + (i % 2));
  const aliases = i % 4 === 0 ? [`${pick(ALIAS_WORDS)} ${noun}`] : [];
  return {
    name: `${namespace}_${base}_${i}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)} ${adjective} ${noun} records in ${namespace} for the ${pick(TAGS)} team, with ${pick(ADJECTIVES)} ${pick(NOUNS)} details.`,
    tags,
    aliases,
    namespace,
    visibility: i % 10 === 0 ? "visible" : "deferred",
    meta: { verb, noun, adjective, parts },
  };
}

function typo(word) {
  if (word.length < 5) return word;
  const at = 1 + Math.floor(random() * (word.length - 2));
  return word.slice(0, at) + word.slice(at + 1);
}

function generateQuery(tools, i) {
  const target = tools[Math.floor(random() * tools.length)];
  const { verb, noun, adjective, parts } = target.meta;
  switch (i % 10) {
    case 0: return { query: noun };
    case 1: return { query: `${verb} ${noun}`, target: target.name };
    case 2: return { query: target.tags[0] };
    case 3: return target.aliases.length > 0 ? { query: target.aliases[0], target: target.name } : { query: `${verb} ${adjective} ${noun}`, target: target.name };
    case 4: return { query: `${target.namespace} ${noun}` };
    case 5: return { query: `${verb} ${adjective} ${noun} in ${target.namespace}`, target: target.name };
    case 6: return { query: camel(parts), target: target.name };
    case 7: return { query: `${typo(words(noun)[0])} ${verb}` };
    case 8: return { query: i % 20 === 8 ? "" : adjective };
    default: return { query: target.name, target: target.name };
  }
}

function baselineSearch(tools, query, limit) {
  const q = query.toLowerCase();
  const matches = [];
  for (const tool of tools) {
    const text = `${tool.name} ${tool.description} ${tool.tags.join(" ")} ${tool.aliases.join(" ")} ${tool.namespace}`.toLowerCase();
    if (text.includes(q)) matches.push(tool);
  }
  return { tools: matches.slice(0, limit), totalMatches: matches.length };
}

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const mean = sorted.reduce((sum, x) => sum + x, 0) / sorted.length;
  return { medianMs: at(0.5), p95Ms: at(0.95), meanMs: mean, minMs: sorted[0], maxMs: sorted[sorted.length - 1], n: sorted.length };
}

/**
 * Times both methods on every query, interleaved (alternating which goes first), so load
 * from other processes hits both alike.
 */
function measureBoth(methods, queries) {
  for (const run of Object.values(methods)) for (let i = 0; i < Math.min(200, queries.length); i += 1) run(queries[i].query);
  const names = Object.keys(methods);
  const acc = Object.fromEntries(names.map((name) => [name, { samples: [], hits: 0, targeted: 0, nonEmpty: 0 }]));
  queries.forEach(({ query, target }, i) => {
    const order = i % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      const a = acc[name];
      const start = performance.now();
      const page = methods[name](query);
      a.samples.push(performance.now() - start);
      if (page.totalMatches > 0) a.nonEmpty += 1;
      if (target !== undefined) {
        a.targeted += 1;
        if (page.tools.some((tool) => tool.name === target)) a.hits += 1;
      }
    }
  });
  return Object.fromEntries(
    names.map((name) => {
      const a = acc[name];
      return [name, { ...stats(a.samples), recallAt8: a.hits / a.targeted, nonEmptyShare: a.nonEmpty / queries.length }];
    }),
  );
}

const tools = Array.from({ length: TOOL_COUNT }, (_, i) => generateTool(i));
const queries = Array.from({ length: QUERY_COUNT }, (_, i) => generateQuery(tools, i));

const buildStart = performance.now();
const index = createToolSearchIndex(tools);
const buildMs = performance.now() - buildStart;

const { indexed, baseline } = measureBoth(
  { indexed: (query) => index.search(query, { limit: 8 }), baseline: (query) => baselineSearch(tools, query, 8) },
  queries,
);

const round = (x) => Math.round(x * 1000) / 1000;
const report = {
  node: process.version,
  tools: TOOL_COUNT,
  queries: QUERY_COUNT,
  seed: SEED,
  indexBuildMs: round(buildMs),
  toolSearch: Object.fromEntries(Object.entries(indexed).map(([k, v]) => [k, round(v)])),
  linearScan: Object.fromEntries(Object.entries(baseline).map(([k, v]) => [k, round(v)])),
};

if (JSON_OUTPUT) {
  const summary = (r) => ({ median: r.medianMs, min: r.minMs, max: r.maxMs, n: r.n, p95: r.p95Ms, mean: r.meanMs, recallAt8: r.recallAt8, nonEmptyShare: r.nonEmptyShare });
  emit(
    ratioFigure({
      name: "search.tool-search",
      label: `tool_search over ${TOOL_COUNT} tools, per query (in process)`,
      baselineLabel: "linear scan (lower-case includes)",
      subject: summary(report.toolSearch),
      baseline: summary(report.linearScan),
      node: report.node,
      tools: TOOL_COUNT,
      queries: QUERY_COUNT,
      seed: SEED,
      indexBuildMs: report.indexBuildMs,
    }),
    { json: true },
  );
} else {
  console.log(`tool_search vs linear scan — ${TOOL_COUNT} tools, ${QUERY_COUNT} queries, seed ${SEED}, Node ${process.version}`);
  console.log(`index build: ${report.indexBuildMs} ms`);
  const row = (label, r) =>
    `${label.padEnd(12)} median ${String(r.medianMs).padStart(7)} ms   p95 ${String(r.p95Ms).padStart(7)} ms   mean ${String(r.meanMs).padStart(7)} ms   max ${String(r.maxMs).padStart(8)} ms   recall@8 ${(r.recallAt8 * 100).toFixed(1)}%   non-empty ${(r.nonEmptyShare * 100).toFixed(1)}%`;
  console.log(row("tool_search", report.toolSearch));
  console.log(row("linear scan", report.linearScan));
}

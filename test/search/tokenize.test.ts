import { describe, expect, test } from "vitest";
import { splitWords, stemWord, tokenize } from "../../runtime-min/search/index.js";

describe("splitWords", () => {
  test.each([
    ["read_file", ["read", "file"]],
    ["deliver-artifact", ["deliver", "artifact"]],
    ["getHTTPStatus", ["get", "http", "status"]],
    ["XMLHttpRequest", ["xml", "http", "request"]],
    ["listURLs", ["list", "urls"]],
    ["s3Upload", ["s3", "upload"]],
    ["github.issues/create", ["github", "issues", "create"]],
    ["Send an E-mail!", ["send", "an", "e", "mail"]],
    ["  ", []],
    ["déjàVu", ["déjà", "vu"]],
  ])("%s", (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });
});

describe("tokenize", () => {
  test("drops stop words and stems plurals the same way for text and queries", () => {
    expect(tokenize("Search the files of a repository")).toEqual(["search", "file", "repository"]);
    expect(tokenize("queries")).toEqual(["query"]);
    expect(tokenize("status analysis class")).toEqual(["status", "analysis", "class"]);
    expect(tokenize("the of and")).toEqual([]);
  });

  test("stemWord leaves short words and words with digits alone", () => {
    expect(stemWord("bus")).toBe("bus");
    expect(stemWord("v2s")).toBe("v2s");
    expect(stemWord("tools")).toBe("tool");
  });
});

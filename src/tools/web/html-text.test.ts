import { describe, expect, it } from "vitest";
import { htmlToMarkdown } from "./html-text.js";
import { bodyKind, decodeText } from "./read-body.js";

const PAGE = `<!doctype html>
<html><head><title>Tea &amp; Biscuits</title><style>body { color: red }</style>
<script>window.track = "secret tracker";</script></head>
<body>
  <nav><a href="/">Home</a> | <a href="/shop">Shop</a></nav>
  <main>
    <h1>Brewing green tea</h1>
    <p>Use water at <strong>80 &deg;C</strong>, not boiling. See <a href="/guides/water?x=1&amp;y=2">the water guide</a>.</p>
    <ul><li>Steep 2 minutes</li><li>Re-steep twice</li></ul>
    <img src="/tea.png" alt="a cup">
    <form><input name="q"><button>Search</button></form>
  </main>
  <footer>Copyright 2026</footer>
</body></html>`;

describe("htmlToMarkdown", () => {
  it("keeps the title, headings, emphasis, lists and absolute links, and drops the clutter", async () => {
    const { title, markdown } = await htmlToMarkdown(PAGE, "https://tea.example/articles/green");
    expect(title).toBe("Tea & Biscuits");
    expect(markdown).toContain("# Brewing green tea");
    expect(markdown).toContain("**80 °C**");
    expect(markdown).toContain("[the water guide](https://tea.example/guides/water?x=1&y=2)");
    expect(markdown).toMatch(/\* Steep 2 minutes\n\* Re-steep twice/);
    for (const clutter of ["tracker", "color: red", "Shop", "Copyright", "tea.png", "Search"])
      expect(markdown).not.toContain(clutter);
  });

  it("keeps the text of a fragment or broken markup", async () => {
    expect((await htmlToMarkdown("<p>one<p>two <b>bold", "https://x.example/")).markdown).toBe(
      "one\n\ntwo bold",
    );
    expect(await htmlToMarkdown("", "https://x.example/")).toEqual({ title: "", markdown: "" });
  });
});

describe("bodyKind and decodeText", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);

  it("classifies by content type, and sniffs when there is none", () => {
    expect(bodyKind("text/html; charset=utf-8", bytes("x"))).toBe("html");
    expect(bodyKind("application/xhtml+xml", bytes("x"))).toBe("html");
    expect(bodyKind("text/markdown", bytes("x"))).toBe("text");
    expect(bodyKind("application/json", bytes("{}"))).toBe("text");
    expect(bodyKind("application/vnd.api+json; charset=utf-8", bytes("{}"))).toBe("text");
    expect(bodyKind("image/png", bytes("x"))).toBe("binary");
    expect(bodyKind("application/pdf", bytes("%PDF"))).toBe("binary");
    expect(bodyKind(null, bytes("<!DOCTYPE html><p>x"))).toBe("html");
    expect(bodyKind(null, bytes("plain words"))).toBe("text");
    expect(bodyKind("application/octet-stream", Uint8Array.of(0x89, 0x50, 0, 1))).toBe("binary");
  });

  it("decodes by the charset the content type names", () => {
    expect(
      decodeText("text/plain; charset=iso-8859-1", Uint8Array.of(0x63, 0x61, 0x66, 0xe9)),
    ).toBe("café");
    expect(decodeText("text/plain", bytes("café"))).toBe("café");
    expect(decodeText("text/plain; charset=klingon", bytes("café"))).toBe("café");
  });
});

import type { NodeHtmlMarkdown } from "node-html-markdown";

/**
 * Turns a web page into markdown a model reads well. Scripts, styles, navigation, forms and
 * images go (they cost tokens and say little); links are made absolute so that the model can
 * fetch them next.
 */
let converter: Promise<NodeHtmlMarkdown> | undefined;
/** The converter, loaded with the first page (the HTML parser is large). */
const loadConverter = () =>
  (converter ??= import("node-html-markdown").then(
    ({ NodeHtmlMarkdown }) => new NodeHtmlMarkdown(OPTIONS),
  ));

const OPTIONS = {
  ignore: [
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "nav",
    "aside",
    "footer",
    "form",
    "button",
    "select",
    "img",
    "picture",
    "video",
    "audio",
  ],
  maxConsecutiveNewlines: 2,
  keepDataImages: false,
};

/** The page's title (if any) and its content as markdown. */
export async function htmlToMarkdown(
  html: string,
  pageUrl: string,
): Promise<{ title: string; markdown: string }> {
  const title = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? "")
    .replace(/\s+/g, " ")
    .trim();
  const body = /<body[^>]*>([\s\S]*)/i.exec(html)?.[1] ?? html;
  const markdown = (await loadConverter()).translate(absoluteLinks(body, pageUrl)).trim();
  return { title, markdown };
}

function absoluteLinks(html: string, base: string): string {
  return html.replace(/(\bhref\s*=\s*)(["'])(.*?)\2/gi, (whole, prefix: string, quote, href) => {
    if (/^(#|javascript:|mailto:|data:)/i.test(href)) return whole;
    try {
      return `${prefix}${quote}${new URL(decodeEntities(href), base).href}${quote}`;
    } catch {
      return whole;
    }
  });
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number(name.slice(1));
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

// Cuts a workbook part's XML into tags and text as the chunks come, in one pass: each character is
// looked at once, whatever the chunks, and only a tag cut by a chunk's end is carried to the next
// (bounded), so a part padded with megabytes of spaces or of unclosed tags costs its length and no
// more. The parts' readers (sheet-xml.ts, workbook-parts.ts) say what each tag means.
import { limits, MAX_MARKUP, UnreadableWorkbook } from "./workbook-limits.ts";

export interface XmlHandler {
  /** A start tag (or an empty-element tag): its local name (without a namespace prefix) and attributes' text. */
  open(name: string, attributes: string, empty: boolean): void;
  close(name: string): void;
  /** Text between tags, as written (entities not yet decoded); only while `wantsText` says so. */
  text(raw: string): void;
  readonly wantsText: boolean;
}

const GT = 62;
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const COLON = 58;

export class XmlTokens {
  #carry = "";

  constructor(
    private readonly handler: XmlHandler,
    /** The part, for messages. */
    private readonly part: string,
  ) {}

  push(chunk: string): void {
    const text = this.#carry.length > 0 ? this.#carry + chunk : chunk;
    this.#carry = "";
    const handler = this.handler;
    const length = text.length;
    let at = 0;
    while (at < length) {
      const lt = text.indexOf("<", at);
      if (lt < 0) {
        if (handler.wantsText) handler.text(text.slice(at));
        return;
      }
      if (lt > at && handler.wantsText) handler.text(text.slice(at, lt));
      const end = this.#tagEnd(text, lt);
      if (end < 0) {
        this.#keep(text.slice(lt));
        return;
      }
      this.#tag(text, lt, end);
      at = end + 1;
    }
  }

  /** The part has ended: a tag left open is a part cut short. */
  end(): void {
    if (this.#carry.trim() !== "")
      throw new UnreadableWorkbook(`its part ${this.part} ends inside a tag`);
  }

  #keep(rest: string): void {
    if (rest.length > MAX_MARKUP) throw limits.markup(`a tag of ${this.part}`);
    this.#carry = rest;
  }

  /** Where the markup starting at `lt` ends (its `>`), or -1 when the text ends first. */
  #tagEnd(text: string, lt: number): number {
    const first = text.charCodeAt(lt + 1);
    if (first === BANG) {
      if (text.startsWith("<!--", lt)) return closing(text, lt + 4, "-->");
      if (text.startsWith("<![CDATA[", lt)) return closing(text, lt + 9, "]]>");
      if (lt + 9 > text.length) return -1;
      throw new UnreadableWorkbook(`its part ${this.part} declares a document type`);
    }
    return tagEnd(text, lt);
  }

  #tag(text: string, lt: number, gt: number): void {
    const first = text.charCodeAt(lt + 1);
    if (first === QUESTION) return;
    if (first === BANG) {
      if (text.startsWith("<![CDATA[", lt) && this.handler.wantsText)
        this.handler.text(escapeText(text.slice(lt + 9, gt - 2)));
      return;
    }
    if (first === SLASH) {
      this.handler.close(localName(text, lt + 2, gt));
      return;
    }
    let nameEnd = lt + 1;
    while (nameEnd < gt && !isNameEnd(text.charCodeAt(nameEnd))) nameEnd++;
    const empty = text.charCodeAt(gt - 1) === SLASH;
    this.handler.open(
      localName(text, lt + 1, nameEnd),
      text.slice(nameEnd, empty ? gt - 1 : gt),
      empty,
    );
  }
}

/** The `>` of a closing marker (`-->`, `]]>`) searched from `from`, or -1. */
function closing(text: string, from: number, marker: string): number {
  const at = text.indexOf(marker, from);
  return at < 0 ? -1 : at + marker.length - 1;
}

const isNameEnd = (code: number): boolean =>
  code === 32 || code === 9 || code === 10 || code === 13 || code === SLASH || code === GT;

/** The name between `from` and `to` without its namespace prefix (`x:c` is `c`), spaces trimmed. */
function localName(text: string, from: number, to: number): string {
  let start = from;
  let end = from;
  while (end < to && !isNameEnd(text.charCodeAt(end))) {
    if (text.charCodeAt(end) === COLON) start = end + 1;
    end++;
  }
  return text.slice(start, end);
}

/**
 * The `>` that ends the tag at `lt` (one inside a quoted attribute value does not), or -1 when the
 * text ends first. Each character is looked at once, however many attributes the tag has.
 */
function tagEnd(text: string, lt: number): number {
  let at = lt + 1;
  let gt = text.indexOf(">", at);
  while (gt >= 0) {
    let quote = 0;
    for (; at < gt; at++) {
      const code = text.charCodeAt(at);
      if (code === 34 || code === 39) {
        quote = code;
        break;
      }
    }
    if (quote === 0) return gt;
    const close = text.indexOf(quote === 34 ? '"' : "'", at + 1);
    if (close < 0) return -1;
    at = close + 1;
    if (gt < at) gt = text.indexOf(">", at);
  }
  return -1;
}

/** CDATA's text written as the text around it is, so the handler decodes both the same way. */
const escapeText = (text: string): string => text.replaceAll("&", "&amp;").replaceAll("<", "&lt;");

const ATTRIBUTE = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** A tag's attributes by local name (`r:id` is `id`), values decoded. */
export function attributes(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(text); match; match = ATTRIBUTE.exec(text)) {
    const name = match[1]!;
    const local = name.slice(name.lastIndexOf(":") + 1);
    found[local] ??= decodeXml(match[2] ?? match[3] ?? "");
  }
  return found;
}

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** XML's five entities and character references; any other `&…;` is left as written. */
export function decodeXml(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    /&(#x[0-9a-fA-F]{1,6}|#\d{1,7}|lt|gt|amp|quot|apos);/g,
    (whole, entity: string) => {
      if (entity.startsWith("#")) {
        const code =
          entity[1] === "x" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[entity] ?? whole;
    },
  );
}

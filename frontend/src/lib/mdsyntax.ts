// Markdown the editor's parser reads beyond GFM, as Obsidian writes it:
// ==highlight== (Highlight, its == marks HighlightMark). The preview's
// renderer reads the same (lib/markdown.ts); live preview draws it.
// Emphasis next to Chinese (CjkEmphasis): "**重点：**内容" is bold, as the
// preview's renderer has it (marked-cjk-friendly). And a heading's section
// folds (headingFolds), as in Obsidian.

import { foldService, syntaxTree } from '@codemirror/language';
import type { SyntaxNode } from '@lezer/common';
import type { InlineContext, MarkdownConfig, MarkdownParser } from '@lezer/markdown';
import { tags } from '@lezer/highlight';

const HighlightDelim = { resolve: 'Highlight', mark: 'HighlightMark' }; // i18n-ignore: syntax node names

/** ==text== as a Highlight node: opened by == before text, closed by == after it (Chinese on either side too), never ===. */
export const Highlight: MarkdownConfig = {
  defineNodes: [
    { name: 'Highlight', style: { 'Highlight/...': tags.special(tags.strong) } }, // i18n-ignore: syntax node names
    { name: 'HighlightMark', style: tags.processingInstruction }, // i18n-ignore: syntax node names
  ],
  parseInline: [
    {
      name: 'Highlight', // i18n-ignore: syntax node names
      parse(cx, next, pos) {
        if (next !== 61 /* = */ || cx.char(pos + 1) !== 61 || cx.char(pos + 2) === 61 || cx.char(pos - 1) === 61) return -1;
        const before = cx.slice(pos - 1, pos);
        const after = cx.slice(pos + 2, pos + 3);
        return cx.addDelimiter(HighlightDelim, pos, pos + 2, !/\s|^$/.test(after), !/\s|^$/.test(before));
      },
      after: 'Emphasis', // i18n-ignore: syntax node names
    },
  ],
};

/** A heading's level (1–6) by its node's name, else 0. */
function headingLevel(n: SyntaxNode): number {
  const mt = /^(?:ATX|Setext)Heading(\d)$/.exec(n.name);
  return mt ? Number(mt[1]) : 0;
}

/** A heading folds what follows it up to the next heading of its level or higher (the fold arrow beside it, Ctrl+Shift+[). */
export const headingFolds = foldService.of((state, start, end) => {
  for (let n: SyntaxNode | null = syntaxTree(state).resolveInner(end, -1); n && n.from >= start; n = n.parent) {
    const level = headingLevel(n);
    if (!level) continue;
    let last: SyntaxNode = n;
    for (let next = last.nextSibling; next; next = next.nextSibling) {
      const l = headingLevel(next);
      if (l && l <= level) break;
      last = next;
    }
    return last.to > end ? { from: end, to: last.to } : null;
  }
  return null;
});

// ---- emphasis next to CJK text -------------------------------------------------
//
// CommonMark opens or closes ** only when it is "flanking": a ** between a
// CJK character and punctuation ("重点：**内容", "是**“引用”") is neither, and
// shows as text. The CJK-friendly amendment counts CJK characters as
// punctuation for that rule. The parser's own Emphasis makes the delimiter;
// where a CJK character is beside it, its open/close sides are set by the
// amended rule (lezer keeps them on the delimiter it just appended).

const CJK = /[\u1100-\u11ff\u2e80-\u2fdf\u2ff0-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u3190-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe10-\ufe1f\ufe30-\ufe4f\uff00-\uffef\u{20000}-\u{3fffd}]/u;
const PUNCT = /[\p{P}\p{S}]/u;

type InlineParse = (cx: InlineContext, next: number, pos: number) => number;

/** The parser's own Emphasis inline parser (null if it has none). */
function builtinEmphasis(p: MarkdownParser): InlineParse | null {
  const q = p as unknown as { inlineParsers?: (InlineParse | undefined)[]; inlineNames?: string[] };
  const i = q.inlineNames?.indexOf('Emphasis') ?? -1; // i18n-ignore: a syntax node's name
  return (i >= 0 && q.inlineParsers?.[i]) || null;
}

/** The character before pos (a surrogate pair whole). */
function charBefore(cx: InlineContext, pos: number): string {
  const c = cx.slice(pos - 1, pos);
  return /[\udc00-\udfff]/.test(c) ? cx.slice(pos - 2, pos) : c;
}

/** The character at pos (a surrogate pair whole). */
function charAt(cx: InlineContext, pos: number): string {
  const c = cx.slice(pos, pos + 1);
  return /[\ud800-\udbff]/.test(c) ? cx.slice(pos, pos + 2) : c;
}

export const CjkEmphasis: MarkdownConfig = {
  parseInline: [
    {
      name: 'CjkEmphasis', // i18n-ignore: a syntax node's name
      before: 'Emphasis', // i18n-ignore: a syntax node's name
      parse(cx, next, start) {
        if (next !== 42 /* * */ && next !== 95 /* _ */) return -1;
        let pos = start + 1;
        while (cx.char(pos) === next) pos++;
        const before = charBefore(cx, start);
        const after = charAt(cx, pos);
        if (!CJK.test(before) && !CJK.test(after)) return -1; // CommonMark's rule, unchanged
        const emphasis = builtinEmphasis(cx.parser);
        if (!emphasis) return -1;
        const pBefore = PUNCT.test(before) || CJK.test(before);
        const pAfter = PUNCT.test(after) || CJK.test(after);
        const sBefore = /\s|^$/.test(before);
        const sAfter = /\s|^$/.test(after);
        const left = !sAfter && (!pAfter || sBefore || pBefore);
        const right = !sBefore && (!pBefore || sAfter || pAfter);
        const open = left && (next === 42 || !right || pBefore);
        const close = right && (next === 42 || !left || pAfter);
        const end = emphasis(cx, next, start);
        const parts = (cx as unknown as { parts?: unknown[] }).parts;
        const last = parts?.[parts.length - 1] as { from?: number; to?: number; side?: number } | null | undefined;
        if (end === pos && last && last.from === start && last.to === pos && typeof last.side === 'number') {
          last.side = (open ? 1 : 0) | (close ? 2 : 0);
        }
        return end;
      },
    },
  ],
};

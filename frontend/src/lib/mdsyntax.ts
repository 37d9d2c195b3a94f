// Markdown the editor's parser reads beyond GFM, as Obsidian writes it:
// ==highlight== (Highlight, its == marks HighlightMark). The preview's
// renderer reads the same (lib/markdown.ts); live preview draws it.
// And a heading's section folds (headingFolds), as in Obsidian.

import { foldService, syntaxTree } from '@codemirror/language';
import type { SyntaxNode } from '@lezer/common';
import type { MarkdownConfig } from '@lezer/markdown';
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

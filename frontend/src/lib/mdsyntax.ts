// Markdown the editor's parser reads beyond GFM, as Obsidian writes it:
// ==highlight== (Highlight, its == marks HighlightMark). The preview's
// renderer reads the same (lib/markdown.ts); live preview draws it.

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

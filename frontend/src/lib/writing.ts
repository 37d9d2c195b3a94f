// The editor's writing aids, registered in cm.ts as one extension: paste
// and drop (paste.ts), the outline (outline.ts), word count (wordcount.ts),
// and Ctrl+H for find and replace (its "by word" for Chinese too: wordsearch.ts).

import { openSearchPanel } from '@codemirror/search';
import type { Extension } from '@codemirror/state';
import { type EditorView, keymap } from '@codemirror/view';
import { outline } from './outline';
import { pasteAndDrop, type PasteHooks } from './paste';
import { wordCount } from './wordcount';
import { wordSearch } from './wordsearch';

export type { PasteHooks as WritingHooks };

/** Opens the search panel with the cursor in its Replace field (Ctrl+H, as in most editors). */
export function openReplace(view: EditorView): boolean {
  openSearchPanel(view);
  const field = view.dom.querySelector<HTMLInputElement>('.cm-search input[name=replace]');
  if (field) {
    field.focus();
    field.select();
  }
  return true;
}

export function writing(hooks: PasteHooks): Extension {
  const replaceKey = 'Mod-h'; // i18n-ignore: a key name
  return [pasteAndDrop(hooks), outline, wordCount, wordSearch, keymap.of([{ key: replaceKey, run: openReplace, preventDefault: true }])];
}

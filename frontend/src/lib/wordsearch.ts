// Find and replace's "whole word" for every script. CodeMirror's own test
// asks that the characters around a match not be word characters, which
// Chinese never satisfies (there are no spaces between words): 缓存 in
// 缓存设计很重要 was never a whole word, nor anywhere in a Chinese note.
// Here a match is a whole word when it starts and ends where the text's
// words do, as the platform's word segmenter (Intl.Segmenter, ICU's
// dictionary for Chinese and Japanese) divides them: 缓存 in 缓存设计 is
// not one (设计 is the next word: 缓存设计 may be one), 设计 in 缓存设计很重要
// is where the segmenter says, and in English cache is in "the cache," but
// not in "caches". The search panel's query is given this test whenever
// its "by word" box is ticked (replacing CodeMirror's).

import { getSearchQuery, SearchQuery, setSearchQuery } from '@codemirror/search';
import { EditorState, type Extension, type Text } from '@codemirror/state';
import { EditorView } from '@codemirror/view';

const segmenter = typeof Intl !== 'undefined' && 'Segmenter' in Intl ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;

/** Word boundaries of a document's lines, by line start (kept while the document is the same). */
const bounds = new WeakMap<Text, Map<number, Set<number>>>();

function lineBounds(doc: Text, lineFrom: number): Set<number> {
  let lines = bounds.get(doc);
  if (!lines) bounds.set(doc, (lines = new Map()));
  let b = lines.get(lineFrom);
  if (!b) {
    const line = doc.lineAt(lineFrom);
    b = new Set([line.from, line.to]);
    if (segmenter) for (const s of segmenter.segment(line.text)) b.add(line.from + s.index).add(line.from + s.index + s.segment.length);
    lines.set(lineFrom, b);
  }
  return b;
}

/** Whether [from, to) of state's text starts and ends at word boundaries. */
export function atWordBounds(state: EditorState, from: number, to: number): boolean {
  const doc = state.doc;
  return lineBounds(doc, doc.lineAt(from).from).has(from) && lineBounds(doc, doc.lineAt(to).from).has(to);
}

function wordTest(_match: string, state: EditorState, from: number, to: number): boolean {
  return atWordBounds(state, from, to);
}

/**
 * Gives a "by word" search query the segmenter's test (where there is a
 * segmenter). CodeMirror runs its own word test before a query's test
 * whenever wholeWord is set, so the query that follows in the same
 * transaction (the last one counts) has the segmenter's test in its
 * place, and wholeWord off; the panel's "by word" box, which shows the
 * query's wholeWord, is ticked again after each update.
 */
export const wordSearch: Extension = segmenter
  ? [
      EditorState.transactionExtender.of((tr) => {
        let last: SearchQuery | null = null;
        for (const e of tr.effects) if (e.is(setSearchQuery)) last = e.value;
        if (!last || !last.wholeWord) return null;
        const q = last;
        return { effects: setSearchQuery.of(new SearchQuery({ search: q.search, caseSensitive: q.caseSensitive, literal: q.literal, regexp: q.regexp, replace: q.replace, test: wordTest })) };
      }),
      EditorView.updateListener.of((u) => {
        if (getSearchQuery(u.state).test !== wordTest) return;
        const box = u.view.dom.querySelector<HTMLInputElement>('.cm-search input[name=word]');
        if (box && !box.checked) box.checked = true;
      }),
    ]
  : [];

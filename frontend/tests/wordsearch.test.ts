// Find and replace's "by word" in Chinese: a match may not cut a word as
// the platform's segmenter divides the text; CodeMirror's own test (no
// word character around the match) finds nothing in Chinese at all.
import { describe, expect, it } from 'vitest';
import { getSearchQuery, search, SearchQuery, setSearchQuery } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { wordSearch } from '../src/lib/wordsearch';

function matches(doc: string, text: string, extensions = [search(), wordSearch]): string[] {
  let state = EditorState.create({ doc, extensions });
  state = state.update({ effects: setSearchQuery.of(new SearchQuery({ search: text, wholeWord: true })) }).state;
  const out: string[] = [];
  const cur = getSearchQuery(state).getCursor(state);
  for (let r = cur.next(); !r.done; r = cur.next()) out.push(`${r.value.from}-${r.value.to}`);
  return out;
}

describe('whole-word search', () => {
  it('the search panel’s "by word" box stays ticked, and ticking it finds Chinese words', async () => {
    const { EditorView } = await import('@codemirror/view');
    const { openSearchPanel } = await import('@codemirror/search');
    const parent = document.createElement('div');
    document.body.append(parent);
    const v = new EditorView({ state: EditorState.create({ doc, extensions: [search(), wordSearch] }), parent });
    openSearchPanel(v);
    const field = v.dom.querySelector<HTMLInputElement>('.cm-search input[name=search]')!;
    const box = v.dom.querySelector<HTMLInputElement>('.cm-search input[name=word]')!;
    field.value = '设计';
    field.dispatchEvent(new Event('input', { bubbles: true }));
    box.checked = true;
    box.dispatchEvent(new Event('change', { bubbles: true }));
    expect(box.checked).toBe(true);
    const q = getSearchQuery(v.state);
    expect(q.search).toBe('设计');
    const cur = q.getCursor(v.state);
    const found: string[] = [];
    for (let r = cur.next(); !r.done; r = cur.next()) found.push(`${r.value.from}-${r.value.to}`);
    expect(found).toEqual(['2-4']);
    v.destroy();
    parent.remove();
  });

  const doc = '缓存设计很重要，缓存要小心。\nthe cache, caches';
  it('finds a Chinese word where it begins and ends a word, not inside one', () => {
    expect(matches(doc, '缓存')).toEqual(['0-2', '8-10']);
    expect(matches(doc, '设计')).toEqual(['2-4']);
    expect(matches(doc, '存设')).toEqual([]); // cuts 缓存 and 设计
    expect(matches(doc, '要小')).toEqual([]); // cuts 小心
  });
  it('keeps English as before', () => {
    expect(matches(doc, 'cache')).toEqual(['19-24']);
  });
  it('where CodeMirror alone finds no Chinese word at all', () => {
    expect(matches(doc, '缓存', [search()])).toEqual([]);
  });
});
